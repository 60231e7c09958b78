import { LINE_KEY } from '../../contract/lines.ts'
import { z } from 'zod'
import { invalid } from '../errors.ts'
import type { ExportFormat } from '../../contract/index-api.ts'
import { checked, jsonBody, param, query } from '../schema.ts'
import { JOB_ID } from '../exports/progress.ts'
import { dateValue, decodeCursor, digitsValue, limitValue, numberValue, parseFilters, SEARCH_PARAMS, zoneValue } from '../kernel/params.ts'

/**
 * The request schemas of the index's routes (contract/index-api.ts): the names each path takes
 * and how each value is read (kernel/params.ts), so a handler starts from typed filters, cursors and
 * numbers. The messages are kernel/params.ts's, each naming its field.
 */

/** A value as sent, or undefined. */
const raw = param((v) => v)
const number = param((v) => numberValue('number', v))
const limit = (def?: number) => param((v) => limitValue(v, def))
const date = (name: string) => param((v) => dateValue(name, v))

/** What was sent, for the access log's entry (the names the schema knows, as written). */
const sent = (q: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(q).filter((e): e is [string, string] => typeof e[1] === 'string'))

const SEARCH_FIELDS = Object.fromEntries(SEARCH_PARAMS.map((k) => [k, raw])) as Record<(typeof SEARCH_PARAMS)[number], typeof raw>

/** The most numbers one status answer lists by `limit`: an account of 10,000 fits in one. */
export const STATUS_LIMIT_MAX = 10_000

export const STATUS_QUERY = query({
  number: param((v) => (v === undefined ? undefined : numberValue('number', v))),
  summary: param((v = 'false') => {
    if (v !== 'true' && v !== 'false') throw invalid('summary', 'summary must be true or false.')
    return v === 'true'
  }),
  limit: param((v) => {
    if (v === undefined || v === '') return undefined
    if (!/^\d{1,5}$/.test(v) || Number(v) < 1 || Number(v) > STATUS_LIMIT_MAX)
      throw invalid('limit', `limit must be a whole number from 1 to ${STATUS_LIMIT_MAX.toLocaleString('en-US')}.`)
    return Number(v)
  }),
  match: param((v) => digitsValue('match', v, false) ?? undefined),
}).transform(
  checked((q) => {
    if (q.summary && q.number) throw invalid('summary', 'Send either number or summary=true, not both.')
    if (q.summary && (q.limit !== undefined || q.match !== undefined))
      throw invalid('summary', 'summary=true lists no numbers: send limit or match without it.')
    if (q.number && (q.limit !== undefined || q.match !== undefined))
      throw invalid('number', 'Send either number or limit and match, not both.')
    return q
  }),
)

// tz is not a filter of the search (the page sends days already in UTC); it is checked so what the
// access log keeps of it is a zone, not any text.
export const SEARCH_QUERY = query({
  ...SEARCH_FIELDS,
  cursor: raw,
  limit: limit(),
  tz: param((v) => zoneValue('tz', v) ?? undefined),
}).transform(
  checked((q) => {
    const given = sent(q)
    return { filters: parseFilters(new Map(Object.entries(given))), cursor: decodeCursor(q.cursor), limit: q.limit, sent: given }
  }),
)

export const THREAD_QUERY = query({
  number,
  party: param((v) => digitsValue('party', v, true) ?? ''),
  before: param((v) => decodeCursor(v, 'before')),
  at: param((v) => {
    const at = dateValue('at', v)
    return at && { endExclusive: at.endExclusive, text: v ?? '' }
  }),
  limit: limit(),
})

export const PARTIES_QUERY = query({
  number,
  party: param((v) => digitsValue('party', v, false)),
  limit: limit(500),
})

export const STATS_QUERY = query({
  number: param((v) => (v === undefined ? null : numberValue('number', v))),
  bucket: param((v = 'day'): 'day' | 'week' => {
    if (v !== 'day' && v !== 'week') throw invalid('bucket', 'bucket must be day or week.')
    return v
  }),
  from: date('from'),
  to: date('to'),
  tz: param((v) => zoneValue('tz', v)),
}).transform(
  checked((q) => {
    if (q.from && q.to && q.from.start >= q.to.endExclusive) throw invalid('to', 'to must not be before from.')
    return q
  }),
)

export const MESSAGE_QUERY = query({
  number,
  ordinal: param((v = '') => {
    if (!/^\d{1,9}$/.test(v) || Number(v) < 1) throw invalid('ordinal', 'ordinal must be a whole number from 1 (the oldest message).')
    return Number(v)
  }),
})

export const LOCATE_QUERY = query({
  number,
  date: param((v) => ({ day: dateValue('date', v, true), text: v ?? '' })),
})

/** `job`: the browser's id for an export, so the tray can ask how far it has come and cancel it. */
const job = param((v) => {
  if (v === undefined) return undefined
  if (!JOB_ID.test(v)) throw invalid('job', 'job must be 8 to 64 letters, digits, "-" or "_".')
  return v
})

/**
 * An export's filters are read by the handler (`read`), not here: with a `job`, a refusal (a bad
 * filter or format) must reach the tray's progress record as well as the download, which the
 * browser shows only as "failed". The messages are the same either way.
 */
export const EXPORT_QUERY = query({ ...SEARCH_FIELDS, format: raw, tz: raw, job }).transform((q) => {
  const given = sent(q)
  return {
    job: q.job,
    read: () => {
      const format = q.format ?? 'csv'
      if (format !== 'csv' && format !== 'ndjson' && format !== 'xlsx') throw invalid('format', 'format must be csv, ndjson or xlsx.')
      const params = new Map(Object.entries(given))
      for (const k of ['format', 'tz', 'job']) params.delete(k)
      return {
        filters: parseFilters(params),
        format: format as ExportFormat,
        tz: q.tz ?? 'UTC',
        params: new Map(Object.entries(given)),
      }
    },
  }
})

export const EXPORT_PROGRESS_QUERY = query({
  job: param((v) => {
    if (v === undefined) throw invalid('job', 'job is required: the id the export was started with.')
    if (!JOB_ID.test(v)) throw invalid('job', 'job must be 8 to 64 letters, digits, "-" or "_".')
    return v
  }),
})

export const EXPORT_CANCEL_BODY = jsonBody({ job: z.unknown().optional() }, (name) => `Unknown field "${name}": send job.`).transform(
  checked((body) => {
    if (typeof body.job !== 'string' || !JOB_ID.test(body.job)) throw invalid('job', 'job is required: the id the export was started with.')
    return { job: body.job }
  }),
)

const TID = /^[A-Za-z0-9_-]{1,64}$/

/** A sync of one number (its tid needed when the index has not seen it) or of all. */
export const SYNC_BODY = jsonBody(
  { number: z.unknown().optional(), tid: z.unknown().optional(), all: z.unknown().optional() },
  (name) => `Unknown field "${name}": send number (and tid) or all.`,
).transform(
  checked((body): { all: true } | { all: false; number: string; tid?: string } => {
    if (body.all !== undefined && typeof body.all !== 'boolean') throw invalid('all', 'all must be true or false.')
    if (body.all === true) {
      if (body.number !== undefined) throw invalid('number', 'Send either number or all, not both.')
      return { all: true }
    }
    if (typeof body.number !== 'string') throw invalid('number', 'number is required (or all: true).')
    const number = body.number.replace(/^\+/, '')
    if (!LINE_KEY.test(number)) throw invalid('number', 'number must be an account number: 6 to 15 digits.')
    if (body.tid === undefined) return { all: false, number }
    if (typeof body.tid !== 'string' || !TID.test(body.tid))
      throw invalid('tid', "tid must be the number's identifier (letters and digits).")
    return { all: false, number, tid: body.tid }
  }),
)

/** Forget one number's messages, or all. */
export const FORGET_BODY = jsonBody(
  { number: z.unknown().optional(), all: z.unknown().optional() },
  (name) => `Unknown field "${name}": send number or all.`,
).transform(
  checked((body): string | null => {
    if (body.all === true) {
      if (body.number !== undefined) throw invalid('number', 'Send either number or all, not both.')
      return null
    }
    if (body.all !== undefined && body.all !== false) throw invalid('all', 'all must be true or false.')
    if (typeof body.number !== 'string' || !LINE_KEY.test(body.number.replace(/^\+/, '')))
      throw invalid('number', 'number is required (6 to 15 digits), or all: true.')
    return body.number.replace(/^\+/, '')
  }),
)
