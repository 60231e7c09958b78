import { LINE_KEY } from '../../contract/lines.ts'
import { invalid } from '../errors.ts'
import { z } from 'zod'
import { dateValue, digitsValue, INT4_MAX, limitValue, numberValue, zoneValue } from '../kernel/params.ts'
import { checked, jsonBody, param, query } from '../schema.ts'

/**
 * The desk's query strings, as zod schemas on its route rows (proxy/desk/routes.ts), read with the
 * same value readers as every other room's (kernel/params.ts): Fastify refuses a bad one before
 * the handler, naming its field in the one envelope, and the handler gets typed values (an
 * export's through `read()`, below). The refusals' words are the ones the hand-written readers
 * used, and proxy/desk/desk.test.ts checks the field each refusal names.
 */

export const MAX_THRESHOLD_MINUTES = 60 * 24 * 365

/** `number`, when sent (sent empty, it is refused as required): one number's rows, else every number's. */
const someNumber = (v: string | undefined) => (v === undefined ? null : numberValue('number', v))
const oneNumber = (v: string | undefined) => numberValue('number', v)

/** Minutes a customer waits before the queue lists them; null: the team's (desk_settings), read by the handler. */
const thresholdMinutes = (v: string | undefined) => {
  if (v === undefined || v === '') return null
  if (!/^\d{1,6}$/.test(v) || Number(v) > MAX_THRESHOLD_MINUTES)
    throw invalid('thresholdMinutes', `thresholdMinutes must be a whole number of minutes from 0 to ${MAX_THRESHOLD_MINUTES}.`)
  return Number(v)
}

/** `at`: the instant the queue is judged at (ISO 8601 with a zone); null: now. */
const at = (v: string | undefined) => {
  const d = dateValue('at', v)
  if (!d) return null
  if (d.isDay) throw invalid('at', 'at must be an ISO 8601 timestamp with a zone (2026-11-21T12:04:00Z), not a day.')
  return new Date(d.start)
}

const limit = (v: string | undefined) => limitValue(v, 100)

/** `offset`: rows to skip, for paging a ledger (bounded: the lists are per account, not per message). */
const offset = (v: string | undefined) => {
  if (v === undefined || v === '') return 0
  if (!/^\d{1,6}$/.test(v)) throw invalid('offset', 'offset must be a whole number of rows from 0 to 999999.')
  return Number(v)
}

export type OptState = 'all' | 'opted-out' | 'opted-in'
const state = (v: string | undefined): OptState => {
  const s = v || 'all'
  if (s !== 'all' && s !== 'opted-out' && s !== 'opted-in')
    throw invalid('state', 'state must be all, opted-out (still out) or opted-in (back in).')
  return s
}

const someParty = (v: string | undefined) => digitsValue('party', v, false)
const oneParty = (v: string | undefined) => digitsValue('party', v, true)!

/** A day or an instant, with the text as sent (the log and the file name say what was asked). */
const bound =
  (name: 'from' | 'to') =>
  (v: string | undefined): Bound => {
    const d = dateValue(name, v)
    return d ? { ...d, text: v! } : null
  }
type Bound = { start: string; endExclusive: string; isDay: boolean; text: string } | null
/** `from` and `to` as the range's start and end (exclusive), `to` not before `from`. */
const range = <T extends { from: Bound; to: Bound }>(q: T): T => {
  if (q.from && q.to && q.from.start >= q.to.endExclusive) throw invalid('to', 'to must not be before from.')
  return q
}

/** A desk export's file: CSV (the default) or .xlsx, the same columns either way. */
export type DeskFormat = 'csv' | 'xlsx'
export function deskFormat(v: string | null | undefined): DeskFormat {
  if (v === undefined || v === null || v === '' || v === 'csv') return 'csv'
  if (v === 'xlsx') return 'xlsx'
  throw invalid('format', 'format must be csv or xlsx.')
}

/**
 * A desk export's query: its names are checked at once (an unknown one, or one sent twice, is
 * refused before anything), its values only when the handler calls `read()`, after the tray's
 * progress record has begun, so a refusal (a bad number, an unknown zone) reaches the record as
 * well as the download, which the browser shows only as "failed". The index's export does the
 * same (index/schemas.ts); the words are those of the page's own query.
 */
type Reader = (v: string | undefined) => unknown
function exportQuery<R extends Record<string, Reader>>(
  readers: R,
  check: (values: { [K in keyof R]: ReturnType<R[K]> }) => void = () => {},
) {
  const all = { ...readers, tz: (v: string | undefined) => zoneValue('tz', v), format: (v: string | undefined) => deskFormat(v) }
  type Values = { [K in keyof typeof all]: ReturnType<(typeof all)[K]> }
  const raw = Object.fromEntries(Object.keys(all).map((k) => [k, param((v) => v)]))
  return query({ ...raw, job: param((v) => v ?? null) }).transform((q) => {
    const sent = q as Record<string, string | undefined>
    return {
      job: q.job,
      read: (): Values => {
        const values = Object.fromEntries(Object.entries(all).map(([k, read]) => [k, read(sent[k])])) as Values
        check(values)
        return values
      },
    }
  })
}

const inRange = (q: { from: Bound; to: Bound }) => void range(q)

export const NEEDS_REPLY_QUERY = query({
  number: param(someNumber),
  thresholdMinutes: param(thresholdMinutes),
  at: param(at),
  limit: param(limit),
})
export const NEEDS_REPLY_COUNT_QUERY = query({ number: param(someNumber) })
export const NEEDS_REPLY_EXPORT_QUERY = exportQuery({ number: someNumber, thresholdMinutes, at })
export const OPT_OUTS_QUERY = query({ number: param(someNumber), state: param(state), limit: param(limit), offset: param(offset) })
export const OPT_OUTS_EXPORT_QUERY = exportQuery({ number: someNumber, state })
export const SENT_AFTER_QUERY = query({ number: param(someNumber), party: param(someParty), limit: param(limit), offset: param(offset) })
export const SENT_AFTER_EXPORT_QUERY = exportQuery({ number: someNumber, party: someParty })
export const CUSTOMER_QUERY = query({ party: param(oneParty) })
const RANGE = { number: oneNumber, from: bound('from'), to: bound('to') }
export const QUIET_HOURS_QUERY = query({
  number: param(oneNumber),
  from: param(RANGE.from),
  to: param(RANGE.to),
  limit: param(limit),
}).transform(checked(range))
export const QUIET_HOURS_EXPORT_QUERY = exportQuery(RANGE, inRange)
export const SEGMENTS_QUERY = query({ number: param(oneNumber), from: param(RANGE.from), to: param(RANGE.to) }).transform(checked(range))

// ---- the bodies of a mark, its undo, and the team's settings ---------------------------------

const field = z.unknown().optional()

/** A mark's number and party as sent (the party's digits as typed), each checked and named when wrong. */
function threadOf(body: { number?: unknown; party?: unknown }): { number: string; typed: string } {
  if (typeof body.number !== 'string' || !LINE_KEY.test(body.number.replace(/^\+/, '')))
    throw invalid('number', 'number is required: the account number, 6 to 15 digits.')
  if (typeof body.party !== 'string' || body.party.length > 64 || !/^\d{1,15}$/.test(body.party.replace(/\D/g, '')))
    throw invalid('party', 'party is required: the customer’s phone number (at most 15 digits).')
  return { number: body.number.replace(/^\+/, ''), typed: body.party.replace(/\D/g, '') }
}

/** Mark handled: the thread, and (when known) the ordinal of the newest message from the customer that was seen. */
export const HANDLED_BODY = jsonBody(
  { number: field, party: field, through: field },
  (k) => `Unknown field "${k}": send number, party and through.`,
).transform(
  checked((body) => {
    const thread = threadOf(body)
    const through = body.through
    // Ordinals are PostgreSQL integers: a larger one failed in the database as a 500.
    if (through === undefined || through === null) return { ...thread, through: null }
    if (typeof through !== 'number' || !Number.isSafeInteger(through) || through < 1 || through > INT4_MAX)
      throw invalid(
        'through',
        `through, when sent, is the ordinal of the newest message from the customer that was seen: a whole number from 1 to ${INT4_MAX}.`,
      )
    return { ...thread, through }
  }),
)

/** Undo a mark: the thread, and the time of the mark to undo, as the mark gave it. */
export const UNDO_BODY = jsonBody(
  { number: field, party: field, handledAt: field },
  (k) => `Unknown field "${k}": send number, party and handledAt.`,
).transform(
  checked((body) => {
    const thread = threadOf(body)
    const at = typeof body.handledAt === 'string' && body.handledAt.length <= 40 ? Date.parse(body.handledAt) : Number.NaN
    if (!Number.isFinite(at)) throw invalid('handledAt', 'handledAt is required: the time of the mark to undo, as the mark gave it.')
    return { ...thread, at }
  }),
)

/** The team's needs-reply threshold, in whole minutes. */
export const SETTINGS_BODY = jsonBody({ thresholdMinutes: field }, (k) => `Unknown field "${k}": send thresholdMinutes.`).transform(
  checked((body) => {
    const v = body.thresholdMinutes
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_THRESHOLD_MINUTES)
      throw invalid('thresholdMinutes', `thresholdMinutes must be a whole number of minutes from 0 to ${MAX_THRESHOLD_MINUTES}.`)
    return { thresholdMinutes: v }
  }),
)
