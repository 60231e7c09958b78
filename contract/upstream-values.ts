/**
 * One reading of the upstream's dates and status codes, for the browser (src/) and the server
 * (proxy/) alike, so a record never means one thing in the history page and another in the index.
 * Plain functions with no dependencies: the SPA's bundle takes only what it imports.
 */

/**
 * An upstream date: `YYYY-MM-DD HH:MM:SS` (spec §2.1; GMTdate is documented as GMT, the others
 * carry no zone and are read as UTC too). Tolerated, as live values have them: `T` for the space,
 * fractional seconds (dropped: the index keeps whole seconds) and a trailing `Z`, with spaces
 * around. Refused: a day that does not exist (2026-02-31 is not rolled into March), an hour over
 * 23, a minute or second over 59, anything else.
 */
const UPSTREAM_DATE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z?$/

/** The upstream date as ISO 8601 UTC with a Z and whole seconds, or null when it is not a real instant. */
export function upstreamDateIso(raw: unknown): string | null {
  if (typeof raw !== 'string') return null
  const m = UPSTREAM_DATE.exec(raw.trim())
  if (!m) return null
  const day = `${m[1]}-${m[2]}-${m[3]}`
  // Year 0000 is on JavaScript's calendar, not PostgreSQL's: stored, it failed the whole batch.
  if (m[1] === '0000' || !isRealDay(day) || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return null
  return `${day}T${m[4]}:${m[5]}:${m[6]}Z`
}

/** The same instant in milliseconds since the epoch, or null. */
export function upstreamDateMs(raw: unknown): number | null {
  const iso = upstreamDateIso(raw)
  return iso === null ? null : Date.parse(iso)
}

/**
 * `YYYY-MM-DD` naming a day on the calendar. Date.parse rolls 2026-02-31 into March, so the day
 * is rebuilt and compared; each day seen is remembered (a sync reads a million dates over a few
 * thousand days).
 */
export function isRealDay(day: string): boolean {
  let real = realDays.get(day)
  if (real === undefined) {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
    const ms = m ? Date.parse(`${day}T00:00:00Z`) : Number.NaN
    real = !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === day
    if (realDays.size >= 10_000) realDays.clear()
    realDays.set(day, real)
  }
  return real
}
const realDays = new Map<string, boolean>()

/**
 * A message status's code: exactly three leading digits, after optional spaces, not followed by
 * another digit (field notes: the published example is `200 [Possible status and meaning: …]`;
 * live values may be a bare code or a code with other text). `20 ok` and `2000` have no code.
 */
export function upstreamStatusCode(raw: unknown): number | null {
  if (typeof raw !== 'string') return null
  const m = /^\s*(\d{3})(?!\d)/.exec(raw)
  return m?.[1] ? Number(m[1]) : null
}

/** The two codes the provider documents (spec §2.1): 200 success, 400 error; any other is neither. */
export const STATUS_SUCCESS = 200
export const STATUS_ERROR = 400

/**
 * A list as some providers write it: a JSON array, or an object keyed 0, 1, 2… (PHP encodes an
 * array with a gap in its keys that way), read in key order. Anything else is returned as it is.
 */
export function upstreamList(v: unknown): unknown {
  if (Array.isArray(v) || !v || typeof v !== 'object') return v
  const keys = Object.keys(v)
  if (!keys.every((k) => /^\d{1,9}$/.test(k))) return v
  // Object.values orders integer-like keys ascending.
  return Object.values(v as Record<string, unknown>)
}

/** JSON text with a UTF-8 byte order mark, which some servers write first, taken off (JSON.parse refuses it). */
export const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
