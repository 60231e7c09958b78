import { createHash, randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Role } from '../http-types.ts'
import type { Queryable } from '../db/types.ts'

/**
 * Server-side sessions (OWASP Session Management Cheat Sheet): a random 256-bit id in the
 * cookie, only its SHA-256 in the database, an idle timeout and an absolute lifetime, a fresh id
 * at every sign-in, and sign-out deleting the row.
 */

export const COOKIE_NAME = 'sb_session'

export const hashId = (id: string) => createHash('sha256').update(id).digest('hex')

export interface SessionTimes {
  idleMs: number
  maxMs: number
}

export interface SessionUser {
  name: string
  role: Role
  /** The SHA-256 of the id, never the id itself: safe to keep in a principal or a log. */
  sessionId: string
}

/** The value of the sb_session cookie, or null. Several copies (a planted one) mean none is trusted. */
export function sessionCookie(req: IncomingMessage): string | null {
  const header = req.headers.cookie
  if (!header) return null
  const found: string[] = []
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    if (part.slice(0, eq).trim() === COOKIE_NAME) found.push(part.slice(eq + 1).trim())
  }
  if (found.length !== 1) return null
  const value = found[0] ?? ''
  // Our ids are 43 base64url characters; anything else is not ours and is not looked up.
  return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null
}

export async function createSession(
  db: Queryable,
  userName: string,
  address: string,
  now: number,
  times: SessionTimes,
): Promise<{ id: string; expiresAt: number }> {
  const id = randomBytes(32).toString('base64url')
  const expiresAt = now + times.maxMs
  await db.query(
    'INSERT INTO sessions (id_hash, user_name, created_at, last_seen_at, expires_at, address) VALUES ($1, $2, $3, $3, $4, $5)',
    [hashId(id), userName, new Date(now), new Date(expiresAt), address.slice(0, 100)],
  )
  return { id, expiresAt }
}

/**
 * The signed-in user for a cookie id, or null when the session is unknown, idle for the idle
 * timeout or longer, past its absolute end, or its user is disabled or removed. An expired row
 * is deleted on sight. Roles are read from the user each time, so a change applies at once.
 *
 * The check and the touch are one statement: the row is found and its last use moved to now
 * only while it is still valid, so the idle timeout runs from the true last use (to the
 * millisecond, on every server sharing the database) at the cost of the one statement a lookup
 * needs anyway. GREATEST keeps a server whose clock is behind from moving it back.
 *
 * `touch` false: checked, not counted as use. A page left open polls (the header's indexing
 * indicator every 10 s, the needs-reply count every minute), and each poll moved the last use,
 * so the idle sign-out never came while a tab was open; the app marks requests made while its
 * person has not acted lately (src/api/client.ts) and those do not move it.
 */
export async function lookupSession(
  db: Queryable,
  id: string,
  now: number,
  times: SessionTimes,
  touch = true,
): Promise<SessionUser | null> {
  const idHash = hashId(id)
  const valid = `s.id_hash = $1 AND u.name = s.user_name AND NOT u.disabled AND s.last_seen_at > $3 AND s.expires_at > $2`
  const r = await db.query<{ user_name: string; role: Role }>(
    touch
      ? `UPDATE sessions s SET last_seen_at = GREATEST(s.last_seen_at, $2) FROM users u WHERE ${valid} RETURNING s.user_name, u.role`
      : `SELECT s.user_name, u.role FROM sessions s JOIN users u ON true WHERE ${valid}`,
    [idHash, new Date(now), new Date(now - times.idleMs)],
  )
  const row = r.rows[0]
  if (row) return { name: row.user_name, role: row.role, sessionId: idHash }
  await db.query('DELETE FROM sessions WHERE id_hash = $1', [idHash])
  return null
}

export async function deleteSession(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE id_hash = $1', [hashId(id)])
}

export async function purgeSessions(db: Queryable, now: number, times: SessionTimes): Promise<number> {
  const r = await db.query('DELETE FROM sessions WHERE expires_at <= $1 OR last_seen_at <= $2 RETURNING 1', [
    new Date(now),
    new Date(now - times.idleMs),
  ])
  return r.rows.length
}

export interface CookieOptions {
  secure: boolean
}

/**
 * HttpOnly (no script reads it), SameSite=Strict (no cross-site request carries it), Path=/,
 * Secure behind HTTPS. No Max-Age: the browser forgets it when it closes, and the server's idle
 * and absolute limits apply either way.
 */
export function sessionSetCookie(id: string, opts: CookieOptions): string {
  return `${COOKIE_NAME}=${id}; Path=/; HttpOnly; SameSite=Strict${opts.secure ? '; Secure' : ''}`
}

export function clearSessionCookie(opts: CookieOptions): string {
  return `${COOKIE_NAME}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT${opts.secure ? '; Secure' : ''}`
}
