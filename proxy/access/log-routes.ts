import { ACCESS_ANSWERS, type AccessAnswer } from '../../contract/access-api.ts'
import { PERMISSIONS } from '../../contract/roles.ts'
import { invalid } from '../errors.ts'
import { dateValue } from '../kernel/params.ts'
import { z } from 'zod'
import { answering, route, type RouteHandler, type RouteSpec } from '../http-types.ts'
import { SECURITY_HEADERS } from '../http.ts'
import { checked, NO_PARAMS, param, query } from '../schema.ts'
import { csvCell } from '../../contract/csv.ts'
import { CSV_HEADER, csvLine, decodeCursor, encodeCursor, listEntries, type LogFilters } from './log-listing.ts'
import { auditAs } from './route-helpers.ts'
import type { RouteDeps } from './route-helpers.ts'

/** The access log's routes: the list (a logged read: it shows which customers were read), its CSV, the chain's verdict. */

const LIST_LIMIT_MAX = 500
const EXPORT_BATCH = 500

const PRINTABLE = /^[^\u0000-\u001f\u007f]*$/

/** A text filter, trimmed; empty is no filter. */
const textValue = (field: string, max: number) => (raw: string | undefined) => {
  const v = raw?.trim()
  if (!v) return undefined
  if (v.length > max || !PRINTABLE.test(v)) throw invalid(field, `${field} must be at most ${max} printable characters.`)
  return v
}
const textFilter = (field: string, max: number) => param(textValue(field, max))

/**
 * YYYY-MM-DD (a whole UTC day; `to` inclusive) or an ISO 8601 timestamp with a zone (`to`
 * inclusive of that instant), read as contract/index-api.ts reads them (proxy/kernel/params.ts
 * dateValue): a `to` timestamp left out the entry written at that very millisecond.
 */
const dateFilter = (field: 'from' | 'to') =>
  param((raw) => {
    const v = raw?.trim()
    if (!v) return undefined
    const d = dateValue(field, v)!
    return { text: v, date: new Date(field === 'to' ? d.endExclusive : d.start) }
  })

const FILTERS = {
  user: textFilter('user', 320),
  number: textFilter('number', 64),
  party: textFilter('party', 64),
  action: param((raw) => {
    const v = textValue('action', 60)(raw)
    if (v !== undefined && !/^[a-z][a-z._-]*$/.test(v))
      throw invalid('action', 'action must be an action name such as signin.ok or search.export.')
    return v
  }),
  from: dateFilter('from'),
  to: dateFilter('to'),
}

type FilterFields = z.output<z.ZodObject<typeof FILTERS>>

/** The filters for the query, and as written (for the access log's own record of an export or a read). */
function logFilters(q: FilterFields): { filters: LogFilters; record: Record<string, string> } {
  const filters: LogFilters = {}
  if (q.user) filters.user = q.user.toLowerCase()
  if (q.number) filters.number = q.number
  if (q.party) filters.party = q.party
  if (q.action) filters.action = q.action
  if (q.from) filters.from = q.from.date
  if (q.to) filters.to = q.to.date
  if (filters.from && filters.to && filters.from >= filters.to) throw invalid('to', 'to must be after from.')
  const written = { ...q, from: q.from?.text, to: q.to?.text }
  const record = Object.fromEntries(Object.entries(written).filter((e): e is [string, string] => typeof e[1] === 'string'))
  return { filters, record }
}

const LIST_QUERY = query({
  ...FILTERS,
  limit: param((raw) => {
    const text = raw?.trim() || '100'
    if (!/^\d{1,4}$/.test(text) || Number(text) < 1 || Number(text) > LIST_LIMIT_MAX)
      throw invalid('limit', `limit must be a whole number from 1 to ${LIST_LIMIT_MAX}.`)
    return Number(text)
  }),
  cursor: param((raw) => {
    const text = raw?.trim()
    if (!text) return null
    const cursor = decodeCursor(text)
    if (!cursor) throw invalid('cursor', 'cursor is not one this server gave out.')
    return cursor
  }),
}).transform(checked((q) => ({ ...q, ...logFilters(q) })))

const EXPORT_QUERY = query(FILTERS).transform(checked(logFilters))

const accessLogList = (d: RouteDeps): RouteHandler<z.output<typeof LIST_QUERY>> =>
  answering(async (ctx, { query: q }) => {
    await d.flushLog()
    const page = await listEntries(d.db, q.filters, q.limit, q.cursor)
    await ctx.logRead({ filters: q.record, rows: page.entries.length })
    return {
      status: 200,
      body: { entries: page.entries, nextCursor: page.next ? encodeCursor(page.next) : null } satisfies AccessAnswer<'log'>,
    }
  })

const accessLogVerify = (d: RouteDeps): RouteSpec['handle'] =>
  answering(async () => {
    await d.flushLog()
    return { status: 200, body: (await d.verifyLog()) satisfies AccessAnswer<'verify'> }
  })

const accessLogExport =
  (d: RouteDeps): RouteHandler<z.output<typeof EXPORT_QUERY>> =>
  async (req, res, _url, ctx, { query: { filters, record } }) => {
    await d.flushLog()
    const day = new Date(d.now()).toISOString().slice(0, 10)
    await ctx.logRead({ what: 'access-log', filters: record })
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="switchboard-access-log-${day}.csv"`,
      'cache-control': 'no-store',
    })
    let aborted = false
    res.on('close', () => {
      if (!res.writableFinished) aborted = true
    })
    // A BOM so spreadsheet programs read UTF-8; batches over the keyset keep memory flat.
    res.write(`\uFEFF${CSV_HEADER.map(csvCell).join(',')}\r\n`)
    let rows = 0
    let cursor = null
    do {
      const page = await listEntries(d.db, filters, EXPORT_BATCH, cursor)
      const chunk = page.entries.map(csvLine).join('')
      rows += page.entries.length
      cursor = page.next
      if (chunk && !res.write(chunk) && !aborted)
        await new Promise<void>((ok) => {
          res.once('drain', ok)
          res.once('close', ok)
        })
    } while (cursor && !aborted)
    res.end()
    // The rows have gone out (the start's entry holds the read); a lost end is in the server log.
    void auditAs(
      d,
      req,
      ctx,
    )('access-log.export.done', { what: 'access-log', rows, complete: !aborted, filters: record }).catch(() => undefined)
  }

/** Admins only: the log shows which customer numbers and parties were read, so reading it is a logged read too. */
export const accessLogRoutes = (d: RouteDeps): RouteSpec[] => [
  route({
    method: 'GET',
    path: '/api/auth/access-log',
    access: PERMISSIONS.readAccessLog,
    reads: 'access-log.view',
    schema: { querystring: LIST_QUERY },
    response: ACCESS_ANSWERS.log,
    handle: accessLogList(d),
  }),
  route({
    method: 'GET',
    path: '/api/auth/access-log/export',
    access: PERMISSIONS.readAccessLog,
    reads: 'access-log.export',
    schema: { querystring: EXPORT_QUERY },
    handle: accessLogExport(d),
  }),
  // The chain's verdict names entries by number only: no customer data.
  route({
    method: 'GET',
    path: '/api/auth/access-log/verify',
    access: PERMISSIONS.readAccessLog,
    reads: null,
    schema: NO_PARAMS,
    response: ACCESS_ANSWERS.verify,
    handle: accessLogVerify(d),
  }),
]
