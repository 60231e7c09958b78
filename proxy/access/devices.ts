import { createHash, randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Queryable } from '../db/types.ts'

/**
 * Device cookies (OWASP, "Slow down online guessing attacks with device cookies"): a browser that
 * signed in successfully as a user holds a random token, and its next sign-in as that user goes
 * ahead of strangers' guesses waiting for a password check. Guessers on hundreds of addresses
 * kept the check queue full and an admin out; they hold no such token.
 */

export const DEVICE_COOKIE = 'sb_device'
const DEVICE_DAYS = 90

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')

/** The device token the request carries (one, well formed), or null. */
export function deviceCookie(req: IncomingMessage): string | null {
  const found = (req.headers.cookie ?? '')
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p.startsWith(`${DEVICE_COOKIE}=`))
    .map((p) => p.slice(DEVICE_COOKIE.length + 1))
  return found.length === 1 && /^[A-Za-z0-9_-]{43}$/.test(found[0]!) ? found[0]! : null
}

/** Whether `token` was given to a browser that signed in as `name`, and has not expired. */
export async function knownDevice(db: Queryable, token: string | null, name: string | null, now: number): Promise<boolean> {
  if (!token || !name) return false
  const r = await db.query('SELECT 1 FROM signin_devices WHERE token_hash = $1 AND user_name = $2 AND expires_at > $3', [
    hashOf(token),
    name,
    new Date(now),
  ])
  return r.rows.length > 0
}

/** A new device token for `name` (kept as its hash), and the Set-Cookie that gives it to the browser. */
export async function rememberDevice(db: Queryable, name: string, now: number, secure: boolean): Promise<string> {
  const token = randomBytes(32).toString('base64url')
  await db.query('INSERT INTO signin_devices (token_hash, user_name, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    hashOf(token),
    name,
    new Date(now),
    new Date(now + DEVICE_DAYS * 86_400_000),
  ])
  await db.query('DELETE FROM signin_devices WHERE expires_at <= $1', [new Date(now)])
  // Sent only to the sign-in form's path: no other request carries it.
  return `${DEVICE_COOKIE}=${token}; Path=/api/auth/signin; HttpOnly; SameSite=Strict; Max-Age=${DEVICE_DAYS * 86_400}${secure ? '; Secure' : ''}`
}
