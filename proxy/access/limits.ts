import { isIP } from 'node:net'
import type { Db, Queryable } from '../db/types.ts'

/**
 * Sign-in throttling that stops guessers, not users (NIST SP 800-63B §5.2.2; OWASP
 * Authentication Cheat Sheet, where a lockout keyed by name alone is a denial of service: anyone
 * could keep the admin out). Two keys, each with growing delays:
 * - the name and the client's address together: a guesser at one name from one place slows
 *   down quickly, while the same person signing in from elsewhere is not affected;
 * - the address alone, more generous (an office behind one NAT address has many people typing
 *   passwords), so one address cannot spray guesses across many names.
 * After `free` consecutive failures each further attempt must wait a delay that doubles, up to
 * `maxDelayMs`. A key quiet for `forgetMs` starts again from zero.
 *
 * The attempt is counted in the database, in one transaction holding both rows' locks, before
 * any password is checked: concurrent guesses (on one server or several sharing PostgreSQL)
 * queue on the row lock and each sees the count the previous one left, so no more than `free`
 * passwords are ever checked before the first delay.
 */

export interface Throttle {
  /** Consecutive failures allowed without any wait. */
  free: number
  /** The wait after the first failure past `free`; doubled after each further failure. */
  firstDelayMs: number
  maxDelayMs: number
  /** A key with no attempt for this long has its failures forgotten. */
  forgetMs: number
}

export interface LimitRules {
  pair: Throttle
  address: Throttle
  /**
   * Password checks (scrypt, 32 MiB and tens of milliseconds each) running at once in this
   * process, and how many more may wait for a turn; past that the answer is 429 at once.
   * `perAddress`: how many of those turns (running or waiting) one client address may hold, so
   * one address sending guesses on many connections cannot fill the turns and keep everyone else,
   * the admin included, from signing in. `reserved`: waiting turns only an address with no failed
   * sign-in in the last 15 minutes may take, so guessers on many addresses cannot fill them either.
   */
  checks: { concurrent: number; queue: number; perAddress: number; reserved: number }
}

export const DEFAULT_LIMITS: LimitRules = {
  pair: { free: 5, firstDelayMs: 30_000, maxDelayMs: 30 * 60_000, forgetMs: 24 * 3_600_000 },
  address: { free: 30, firstDelayMs: 5_000, maxDelayMs: 5 * 60_000, forgetMs: 3_600_000 },
  checks: { concurrent: 2, queue: 16, perAddress: 2, reserved: 8 },
}

export interface Limited {
  scope: 'pair' | 'address'
  retryAfterMs: number
  message: string
}

/** The wait before the next attempt once a key has `failures` consecutive failures. */
export function delayAfter(t: Throttle, failures: number): number {
  if (failures < t.free) return 0
  return Math.min(t.maxDelayMs, t.firstDelayMs * 2 ** Math.min(30, failures - t.free))
}

export function waitText(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000))
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`
  const minutes = Math.ceil(seconds / 60)
  return minutes === 1 ? '1 minute' : `${minutes} minutes`
}

/** The first four groups of an IPv6 address: one host (or home) usually holds a whole /64. */
function ipv6Prefix64(address: string): string {
  const a = address.replace(/%.*$/, '').toLowerCase()
  const [head = '', tail] = a.split('::') as [string, string | undefined]
  const groupsOf = (s: string) => (s === '' ? [] : s.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])))
  const h = groupsOf(head)
  const t = tail === undefined ? [] : groupsOf(tail)
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t]
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`
}

export function addressKey(address: string): string {
  return isIP(address.replace(/%.*$/, '')) === 6 ? ipv6Prefix64(address) : address.slice(0, 100)
}

const pairKey = (name: string, address: string) => `${name.slice(0, 100)}\n${addressKey(address)}`

interface LimitRow extends Record<string, unknown> {
  scope: 'pair' | 'address'
  failures: number
  last_at: Date | string
}

/**
 * Counts one attempt for (name, address) and for the address, or refuses it without counting
 * when either key must still wait. Null means admitted: check the password now.
 */
export async function admitAttempt(db: Db, name: string, address: string, now: number, rules: LimitRules): Promise<Limited | null> {
  const keys = { address: addressKey(address), pair: pairKey(name, address) }
  return db.transaction(async (tx) => {
    // Rows are created, then locked, in one order (address before pair) so two attempts never
    // wait on each other crosswise.
    await tx.query(
      `INSERT INTO signin_limits (scope, key, failures, last_at) VALUES ('address', $1, 0, $3), ('pair', $2, 0, $3)
       ON CONFLICT (scope, key) DO NOTHING`,
      [keys.address, keys.pair, new Date(now)],
    )
    const r = await tx.query<LimitRow>(
      `SELECT scope, failures, last_at FROM signin_limits
       WHERE (scope = 'address' AND key = $1) OR (scope = 'pair' AND key = $2) ORDER BY scope FOR UPDATE`,
      [keys.address, keys.pair],
    )
    let worst: Limited | null = null
    const counted: Record<string, number> = {}
    for (const row of r.rows) {
      const t = rules[row.scope]
      const last = new Date(row.last_at).getTime()
      const failures = now - last >= t.forgetMs ? 0 : row.failures
      counted[row.scope] = failures + 1
      const wait = last + delayAfter(t, failures) - now
      if (wait > 0 && (!worst || wait > worst.retryAfterMs)) worst = limited(row.scope, wait)
    }
    if (worst) return worst
    await tx.query(
      `UPDATE signin_limits SET failures = CASE scope WHEN 'address' THEN $3::int ELSE $4::int END, last_at = GREATEST(last_at, $5)
       WHERE (scope = 'address' AND key = $1) OR (scope = 'pair' AND key = $2)`,
      [keys.address, keys.pair, counted.address ?? 1, counted.pair ?? 1, new Date(now)],
    )
    return null
  })
}

function limited(scope: 'pair' | 'address', retryAfterMs: number): Limited {
  const wait = waitText(retryAfterMs)
  return {
    scope,
    retryAfterMs,
    message:
      scope === 'pair'
        ? `Too many failed sign-ins for this name from your address; try again in ${wait}.`
        : `Too many failed sign-ins from your address; try again in ${wait}.`,
  }
}

/**
 * The password was right: the pair's failures are cleared (the person got in), and the attempt
 * counted against the address is given back, so an office's successful sign-ins never add up
 * to a wait; the address's real failures stay, so one valid account cannot reset the counter
 * while guessing other names.
 */
export async function recordSuccess(db: Queryable, name: string, address: string): Promise<void> {
  await db.query(
    `WITH gone AS (DELETE FROM signin_limits WHERE scope = 'pair' AND key = $2)
     UPDATE signin_limits SET failures = GREATEST(failures - 1, 0) WHERE scope = 'address' AND key = $1`,
    [addressKey(address), pairKey(name, address)],
  )
}

/** Rows whose failures are forgotten anyway. */
export async function purgeLimits(db: Queryable, now: number, rules: LimitRules = DEFAULT_LIMITS): Promise<void> {
  await db.query(`DELETE FROM signin_limits WHERE (scope = 'pair' AND last_at <= $1) OR (scope = 'address' AND last_at <= $2)`, [
    new Date(now - rules.pair.forgetMs),
    new Date(now - rules.address.forgetMs),
  ])
}

/** Who asks for a password check: their address key, whether it failed lately, whether their browser is a known device. */
export interface CheckRequest {
  from: string
  failing: boolean
  trusted: boolean
}

/**
 * At most `concurrent` password checks at once in this process and `queue` waiting. Turns are
 * given round the addresses waiting (one address's many requests do not run ahead of another's
 * one), a known device's sign-in waits ahead of everyone and is never turned away, and an
 * address that failed lately may not take the last `reserved` places. When the queue is full a
 * newcomer takes the place of the newest request of the address holding the most places, if
 * that address holds more than the newcomer's; else it is turned away (null, the caller answers
 * 429). A request pushed out resolves null too.
 */
export function createCheckGate(rules: LimitRules['checks']): {
  enter: (who?: Partial<CheckRequest>) => Promise<(() => void) | null> | null
} {
  let running = 0
  type Waiting = CheckRequest & { go: (leave: (() => void) | null) => void }
  const waiting: Waiting[] = []
  let lastFrom = ''
  const held = (from: string) => waiting.filter((w) => w.from === from).length
  const next = (): Waiting | undefined => {
    const i = Math.max(
      0,
      waiting.findIndex((w) => w.trusted),
    )
    const first = waiting[i]
    // Round the addresses: the first that is not the one served last, when there is one.
    const pick = first?.trusted ? i : waiting.findIndex((w) => w.from !== lastFrom)
    const [w] = waiting.splice(pick < 0 ? 0 : pick, 1)
    return w
  }
  const leave = () => {
    const w = next()
    if (!w) {
      running--
      return
    }
    lastFrom = w.from
    w.go(once())
  }
  const once = () => {
    let done = false
    return () => {
      if (done) return
      done = true
      leave()
    }
  }
  return {
    enter: (who = {}) => {
      const w = { from: who.from ?? '', failing: who.failing ?? false, trusted: who.trusted ?? false }
      if (running < rules.concurrent) {
        running++
        lastFrom = w.from
        return Promise.resolve(once())
      }
      const room = rules.queue - (w.failing ? rules.reserved : 0)
      if (waiting.length >= room) {
        // The place of the newest request from the address holding the most, if it holds more.
        let victim = -1
        for (let k = waiting.length - 1; k >= 0; k--) {
          const c = waiting[k]!
          if (c.trusted) continue
          if (victim < 0 || held(c.from) > held(waiting[victim]!.from)) victim = k
        }
        const mine = held(w.from) + 1
        if (!w.trusted && (victim < 0 || held(waiting[victim]!.from) <= mine || waiting.length - 1 >= room)) return null
        if (victim >= 0) waiting.splice(victim, 1)[0]!.go(null)
      }
      return new Promise((ok) => {
        const entry = { ...w, go: ok }
        if (w.trusted) waiting.unshift(entry)
        else waiting.push(entry)
      })
    },
  }
}
