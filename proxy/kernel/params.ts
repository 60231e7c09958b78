import { invalid } from '../errors.ts'
import { LINE_KEY } from '../../contract/lines.ts'
import { readFilters, SEARCH_PARAM_NAMES, type FilterValues, type ParamReaders } from '../../contract/search-filters.ts'

/**
 * The HTTP parameters the rooms share (the index's search and its cursors, the desk's reports,
 * saved views, the access log's days): each read once, checked, and refused with a 400 naming
 * the field; unknown names and repeats are refused too. What comes out is typed filters and
 * cursors the index's SQL (index/queries.ts) can trust.
 */

export const MAX_LIMIT = 500
export const DEFAULT_LIMIT = 100

/**
 * A search's filters as the contract's table reads them (contract/search-filters.ts: each
 * filter's value, null when not set), and what the index's look-ups add to them.
 */
export interface Filters extends FilterValues {
  /**
   * The distinct parties whose digits contain `party`, looked up in the parties roll-up
   * (resolveParties); null = not resolved (or too many to list: then a LIKE over every message).
   */
  parties?: string[] | null
  /**
   * The ids of the distinct bodies containing `q` (index_bodies, trigram index), looked up by
   * resolveParties; null = not resolved (or too many to list: then a semi-join on index_bodies).
   */
  bodyIds?: number[] | null
}

export interface Cursor {
  date: string
  number: string
  ordinal: number
}

/** What a parameter reader looks values up in: a Map of the query, or the parsed query string. */
export interface Params {
  get(name: string): string | undefined
}

function textValue(name: string, v: string | undefined, max: number): string | null {
  if (v === undefined || v === '') return null
  if (v.includes('\u0000')) throw invalid(name, `${name} must not contain NUL characters.`)
  if (v.length > max) throw invalid(name, `${name} must be at most ${max} characters.`)
  return v
}

export function digitsParam(p: Params, name: string, required: boolean): string | null {
  return digitsValue(name, p.get(name), required)
}

export function digitsValue(name: string, value: string | undefined, required: boolean): string | null {
  const v = textValue(name, value, 64)
  if (v === null) {
    if (required) throw invalid(name, `${name} is required.`)
    return null
  }
  // Formatting is forgiven, other text is not: "tel:1/415/…" or "14155550123x" found a customer
  // while the access log kept the text as typed, where its party filter could not find them.
  if (!/^[\d\s().+-]+$/.test(v))
    throw invalid(name, `${name} must be a phone number: digits, with any spaces, brackets, dots, dashes or a leading +.`)
  const digits = v.replace(/\D/g, '')
  if (!digits) throw invalid(name, `${name} must contain digits (any formatting is ignored).`)
  if (digits.length > 15) throw invalid(name, `${name} has more digits than a phone number (at most 15).`)
  return digits
}

export function numberParam(p: Params, name = 'number'): string {
  return numberValue(name, p.get(name))
}

/** An account number, or one of its further lines (contract/lines.ts: `18323232323~2`), as the index keys them. */
export function numberValue(name: string, v: string | undefined): string {
  if (v === undefined || v === '') throw invalid(name, `${name} is required.`)
  const key = v.replace(/^\+/, '')
  if (!LINE_KEY.test(key)) throw invalid(name, `${name} must be an account number: 6 to 15 digits.`)
  return key
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/

/**
 * The days a date filter may name. Outside them the database refused the statement (9999-12-31's
 * end is year 10000; 0001-01-01T00:00+14:00 is year 0) with a 500, and Date.UTC read year 1 as 1901.
 */
export const FIRST_DAY = '1900-01-01'
export const LAST_DAY = '2999-12-31'
const FIRST_MS = Date.parse(`${FIRST_DAY}T00:00:00Z`)
const END_MS = Date.parse(`${LAST_DAY}T00:00:00Z`) + 86_400_000

function inRange(name: string, ms: number): void {
  if (!(ms >= FIRST_MS && ms < END_MS)) throw invalid(name, `${name} must be a date from ${FIRST_DAY} to ${LAST_DAY}.`)
}

/** `YYYY-MM-DD` (a whole UTC day) or a full ISO timestamp; returns [start, end-exclusive]. */
export function dateParam(p: Params, name: string, required = false): DateValue | null {
  return dateValue(name, p.get(name), required)
}

export interface DateValue {
  start: string
  endExclusive: string
  isDay: boolean
}

/** An ISO 8601 timestamp with a zone: year, month, day, hour, minute, [second], [offset hours, minutes]. */
const STAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-](\d{2}):(\d{2}))$/

export function dateValue(name: string, v: string | undefined, required = false): DateValue | null {
  if (v === undefined || v === '') {
    if (required) throw invalid(name, `${name} is required (YYYY-MM-DD).`)
    return null
  }
  const d = DAY.exec(v)
  if (d) {
    if (d[1]! < FIRST_DAY.slice(0, 4) || d[1]! > LAST_DAY.slice(0, 4)) inRange(name, Number.NaN)
    const ms = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]))
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== v)
      throw invalid(name, `${name} is not a real date: use YYYY-MM-DD.`)
    inRange(name, ms)
    return { start: new Date(ms).toISOString(), endExclusive: new Date(ms + 86_400_000).toISOString(), isDay: true }
  }
  const t = v.length <= 40 ? STAMP.exec(v) : null
  if (t) {
    // Each part in its range, the day a real one: Date.parse rolls 2026-02-30 over to 2 March and T24:00 to the next day.
    const [, y, mo, da, h, mi, se, oh, om] = t.map((x) => (x === undefined ? 0 : Number(x)))
    const day = Date.UTC(y!, mo! - 1, da!)
    const real = !Number.isNaN(day) && new Date(day).toISOString().slice(0, 10) === v.slice(0, 10)
    const ms = real && h! <= 23 && mi! <= 59 && se! <= 59 && oh! <= 23 && om! <= 59 ? Date.parse(v) : Number.NaN
    if (!Number.isNaN(ms)) {
      inRange(name, ms)
      return { start: new Date(ms).toISOString(), endExclusive: new Date(ms + 1).toISOString(), isDay: false }
    }
  }
  throw invalid(name, `${name} must be a date (YYYY-MM-DD) or an ISO 8601 timestamp with a zone (2026-11-21T12:04:00Z).`)
}

export function limitParam(p: Params, def = DEFAULT_LIMIT): number {
  return limitValue(p.get('limit'), def)
}

export function limitValue(v: string | undefined, def = DEFAULT_LIMIT): number {
  if (v === undefined || v === '') return def
  if (!/^\d{1,4}$/.test(v) || Number(v) < 1 || Number(v) > MAX_LIMIT)
    throw invalid('limit', `limit must be a whole number from 1 to ${MAX_LIMIT}.`)
  return Number(v)
}

/** The index's search parameters, as the filters' table names them. */
export const SEARCH_PARAMS = SEARCH_PARAM_NAMES

/** What the filters' table reads a search's parameters with: the readers above, refusals as the 400 envelope. */
const READERS: ParamReaders = {
  fail: (field, message) => {
    throw invalid(field, message)
  },
  text: textValue,
  digits: (name, value) => digitsValue(name, value, false),
  date: (name, value) => dateValue(name, value),
}

/** A search's filters, each read and checked as its row in the table says (the first refusal answers). */
export const parseFilters = (p: Params): Filters => readFilters((name) => p.get(name), READERS)

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.date, c.number, c.ordinal])).toString('base64url')
}

/** Ordinals are PostgreSQL `integer`s: a larger one in a forged cursor would fail in the database, not here. */
export const INT4_MAX = 2_147_483_647

/**
 * An instant exactly as encodeCursor writes it (toISOString), naming a real calendar day in
 * years 1–9999: `Date.parse` also takes forms (2026-02-31, +275760 years) that PostgreSQL
 * refuses, which turned a forged cursor into a 500.
 */
function isCursorInstant(v: unknown): v is string {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(v)) return false
  const ms = Date.parse(v)
  return Number.isFinite(ms) && new Date(ms).toISOString() === v && !v.startsWith('0000')
}

export function decodeCursor(v: string | undefined, field = 'cursor'): Cursor | null {
  if (v === undefined || v === '') return null
  const bad = () => invalid(field, `${field} is not a cursor this server issued; start from the first page.`)
  if (v.length > 200 || !/^[A-Za-z0-9_-]+$/.test(v)) throw bad()
  let arr: unknown
  try {
    arr = JSON.parse(Buffer.from(v, 'base64url').toString('utf8'))
  } catch {
    throw bad()
  }
  if (!Array.isArray(arr) || arr.length !== 3) throw bad()
  const [date, number, ordinal] = arr as unknown[]
  if (
    !isCursorInstant(date) ||
    typeof number !== 'string' ||
    !LINE_KEY.test(number) ||
    typeof ordinal !== 'number' ||
    !Number.isInteger(ordinal) ||
    ordinal < 1 ||
    ordinal > INT4_MAX
  )
    throw bad()
  return { date, number, ordinal }
}

/**
 * An IANA zone name (`tz`), or null when absent. Intl must know it, and it must be a name, not
 * an offset: PostgreSQL reads "+05:30" as POSIX (sign reversed), so offsets are refused.
 */
export function zoneValue(name: string, v: string | undefined): string | null {
  if (v === undefined || v === '') return null
  let known = false
  if (v.length <= 64 && /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(v)) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: v })
      known = true
    } catch {
      known = false
    }
  }
  if (!known) throw invalid(name, `${name} must be an IANA time zone such as Europe/Paris or UTC.`)
  return v
}
