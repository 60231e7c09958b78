import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'

/**
 * Password hashing with scrypt (node:crypto). The hash string carries its own parameters and
 * salt, `scrypt$N$r$p$salt$key` (base64url), so the cost can be raised later and old hashes
 * still verify.
 *
 * Default cost: OWASP Password Storage Cheat Sheet, scrypt "N=2^15 (32 MiB), r=8, p=3", one of
 * its equivalent minimum configurations; chosen over N=2^17 because it needs a quarter of the
 * memory per concurrent sign-in on a small server.
 */

export interface ScryptParams {
  N: number
  r: number
  p: number
}

export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 15, r: 8, p: 3 }
const KEY_BYTES = 32
const SALT_BYTES = 16

/** Bounds for hashes read back from the database: a doctored row must not make us allocate gigabytes. */
const MAX_N = 2 ** 20
const MAX_R = 32
const MAX_P = 16

/** NIST SP 800-63B asks for at least 8; a console holding customer conversations asks for more. */
export const PASSWORD_MIN = 12
/** Long enough for any passphrase, short enough that hashing it costs nothing extra. */
export const PASSWORD_MAX = 1024

function derive(password: string, salt: Buffer, p: ScryptParams, keyLen: number): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node's default cap (32 MiB) is exactly the default cost, so leave headroom.
  const maxmem = 256 * p.N * p.r + 1024 * 1024
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyLen, { N: p.N, r: p.r, p: p.p, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
  )
}

/** How a password is compared with the list: case and spaces do not make a common one rare. */
const comparable = (password: string) => password.normalize('NFKC').toLowerCase().replace(/\s+/g, '')

let common: Set<string> | null = null
/**
 * common-passwords.txt: a few thousand of the passwords that head every breach list, with the
 * endings people add to reach a length rule (scripts/common-passwords.mjs writes it). Read once,
 * on the first password set.
 */
function commonPasswords(): Set<string> {
  common ??= new Set(
    readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  )
  return common
}

/**
 * Why a password is refused, in words naming the field, or null when it is acceptable (NIST SP
 * 800-63B §5.1.1.2: a minimum length, no composition rules, but no password from a list of
 * common or breached ones, nor repetitive or sequential characters, nor the user's own name).
 * `context` holds words the password must not be: the user's name.
 */
export function passwordProblem(password: string, context: readonly string[] = []): string | null {
  // NIST SP 800-63B lets a verifier fold runs of spaces into one: padding does not add length.
  const folded = password.trim().replace(/\s+/g, ' ')
  if (password !== '' && folded === '') return 'password must not be only spaces.'
  if (Array.from(folded).length < PASSWORD_MIN)
    return `password must be at least ${PASSWORD_MIN} characters long${folded === password ? '' : ' (leading, trailing and repeated spaces do not count)'}.`
  if (Array.from(password).length > PASSWORD_MAX) return `password must be at most ${PASSWORD_MAX} characters long.`
  const plain = comparable(password)
  if (Array.from(plain).length < 8) return 'password must hold at least 8 characters besides spaces.'
  // One short piece over and over ("aaaaaaaaaaaa", "abcabcabcabc", "12121212…").
  if (/^(.{1,4})\1+$/su.test(plain)) return 'password must not be one short pattern repeated; choose a longer phrase.'
  if (commonPasswords().has(plain)) return 'password is one of the most common passwords; choose a phrase others would not guess.'
  for (const word of context) {
    const w = comparable(word)
    // The name plus a few characters, or plus digits and symbols only ("bob123456789").
    const rest = w.length >= 3 ? plain.split(w).join('') : plain
    if (rest !== plain && (Array.from(rest).length < 8 || !/\p{L}/u.test(rest)))
      return 'password must not be built from the user name; choose something else.'
  }
  return null
}

export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, params, KEY_BYTES)
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

interface Parsed {
  params: ScryptParams
  salt: Buffer
  key: Buffer
}

function parseHash(stored: string): Parsed | null {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  if (!Number.isInteger(N) || N < 2 || N > MAX_N || (N & (N - 1)) !== 0) return null
  if (!Number.isInteger(r) || r < 1 || r > MAX_R || !Number.isInteger(p) || p < 1 || p > MAX_P) return null
  const salt = Buffer.from(parts[4] ?? '', 'base64url')
  const key = Buffer.from(parts[5] ?? '', 'base64url')
  if (salt.length < 8 || key.length < 16 || key.length > 128) return null
  return { params: { N, r, p }, salt, key }
}

/**
 * True when `password` matches `stored`. The comparison is constant-time (timingSafeEqual); a
 * malformed stored hash never matches, but still costs one derivation so it is not faster.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored)
  if (!parsed) {
    await derive(password, randomBytes(SALT_BYTES), DEFAULT_SCRYPT, KEY_BYTES)
    return false
  }
  const key = await derive(password, parsed.salt, parsed.params, parsed.key.length)
  return timingSafeEqual(key, parsed.key)
}

/**
 * For a name with no user (or a disabled one, or one without a password): verify against a
 * hash of a random password made with the same parameters, so the answer takes as long as for
 * a real user and timing does not reveal which names exist. Always false.
 */
export function createDummyCheck(params: ScryptParams = DEFAULT_SCRYPT): (password: string) => Promise<false> {
  let dummy: Promise<string> | null = null
  return async (password) => {
    dummy ??= hashPassword(randomBytes(24).toString('base64url'), params)
    await verifyPassword(password, await dummy)
    return false
  }
}
