import type { Queryable } from '../db/types.ts'

/**
 * The sign-in brute-force limit (OWASP Authentication Cheat Sheet, "Login Throttling"): failures
 * are counted per name tried and per client address over a sliding window, in the database so
 * every server sharing it enforces one limit. The per-address limit is higher: an office behind
 * one NAT address has many people typing passwords.
 */

export interface LimitRules {
  windowMs: number
  perName: number
  perAddress: number
}

export const DEFAULT_LIMITS: LimitRules = { windowMs: 15 * 60_000, perName: 5, perAddress: 20 }

export interface Limited {
  scope: 'name' | 'address'
  retryAfterMs: number
  message: string
}

function minutesText(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000))
  return minutes === 1 ? '1 minute' : `${minutes} minutes`
}

async function check(
  db: Queryable,
  kind: 'name' | 'address',
  key: string,
  max: number,
  now: number,
  windowMs: number,
): Promise<number | null> {
  // The oldest failure still in the window decides when the count drops below the limit.
  const r = await db.query<{ n: string | number; oldest: Date | string | null }>(
    `SELECT count(*) AS n, min(at) AS oldest FROM (
       SELECT at FROM signin_failures WHERE kind = $1 AND key = $2 AND at > $3 ORDER BY at DESC LIMIT $4
     ) recent`,
    [kind, key, new Date(now - windowMs), max],
  )
  const row = r.rows[0]
  if (!row || Number(row.n) < max || row.oldest === null) return null
  return Math.max(1000, new Date(row.oldest).getTime() + windowMs - now)
}

/** Whether this name or address has used up its failures; checked before any password work. */
export async function checkLimit(
  db: Queryable,
  name: string,
  address: string,
  now: number,
  rules: LimitRules = DEFAULT_LIMITS,
): Promise<Limited | null> {
  const byName = await check(db, 'name', name, rules.perName, now, rules.windowMs)
  if (byName !== null)
    return { scope: 'name', retryAfterMs: byName, message: `Too many sign-in attempts for this name; try again in ${minutesText(byName)}.` }
  const byAddress = await check(db, 'address', address, rules.perAddress, now, rules.windowMs)
  if (byAddress !== null)
    return {
      scope: 'address',
      retryAfterMs: byAddress,
      message: `Too many sign-in attempts from this address; try again in ${minutesText(byAddress)}.`,
    }
  return null
}

export async function recordFailure(db: Queryable, name: string, address: string, now: number): Promise<void> {
  await db.query("INSERT INTO signin_failures (kind, key, at) VALUES ('name', $1, $3), ('address', $2, $3)", [name, address, new Date(now)])
}

/**
 * A correct password clears that name's failures (the person got in); the address's stay, so
 * one valid account cannot be used to reset the counter while guessing other names.
 */
export async function clearNameFailures(db: Queryable, name: string): Promise<void> {
  await db.query("DELETE FROM signin_failures WHERE kind = 'name' AND key = $1", [name])
}

export async function purgeFailures(db: Queryable, now: number, rules: LimitRules = DEFAULT_LIMITS): Promise<void> {
  await db.query('DELETE FROM signin_failures WHERE at <= $1', [new Date(now - rules.windowMs)])
}
