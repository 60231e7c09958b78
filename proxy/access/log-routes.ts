import type { IncomingMessage } from 'node:http'
import { invalid } from '../errors.ts'
import type { RequestContext, RouteSpec } from '../http-types.ts'
import { readQuery, SECURITY_HEADERS, sendJson } from '../http.ts'
import { csvCell } from '../../contract/csv.ts'
import { CSV_HEADER, csvLine, decodeCursor, encodeCursor, listEntries, verifyLog, type LogFilters } from './access-log.ts'
import type { RouteDeps } from './routes.ts'

/** The access log's routes: the list (a logged read: it shows which customers were read), its CSV, the chain's verdict. */

const LIST_LIMIT_MAX = 500
const EXPORT_BATCH = 500

/** Query parameters: only the known ones, each at most once, trimmed. */
const queryParams = (url: URL, known: readonly string[]) => readQuery(url, known, { trim: true })

const PRINTABLE = /^[^\u0000-\u001f\u007f]*$/

function textFilter(q: Map<string, string>, field: string, max: number): string | undefined {
  const v = q.get(field)
  if (v === undefined || v === '') return undefined
  if (v.length > max || !PRINTABLE.test(v)) throw invalid(field, `${field} must be at most ${max} printable characters.`)
  return v
}

/** YYYY-MM-DD (a whole UTC day; `to` inclusive) or a full ISO timestamp, as in contract/index-api.ts. */
function dateFilter(q: Map<string, string>, field: 'from' | 'to'): Date | undefined {
  const v = q.get(field)
  if (v === undefined || v === '') return undefined
  const day = /^\d{4}-\d{2}-\d{2}$/.test(v)
  const ms = day ? Date.parse(`${v}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T/.test(v) ? Date.parse(v) : NaN
  if (!Number.isFinite(ms) || (day && new Date(ms).toISOString().slice(0, 10) !== v))
    throw invalid(field, `${field} must be a date (YYYY-MM-DD) or an ISO 8601 timestamp.`)
  return new Date(day && field === 'to' ? ms + 86_400_000 : ms)
}

const FILTER_KEYS = ['user', 'number', 'party', 'action', 'from', 'to'] as const

function logFilters(q: Map<string, string>): LogFilters {
  const f: LogFilters = {}
  const user = textFilter(q, 'user', 320)
  if (user) f.user = user.toLowerCase()
  const number = textFilter(q, 'number', 64)
  if (number) f.number = number
  const party = textFilter(q, 'party', 64)
  if (party) f.party = party
  const action = textFilter(q, 'action', 60)
  if (action) {
    if (!/^[a-z][a-z._-]*$/.test(action)) throw invalid('action', 'action must be an action name such as signin.ok or search.export.')
    f.action = action
  }
  const from = dateFilter(q, 'from')
  if (from) f.from = from
  const to = dateFilter(q, 'to')
  if (to) f.to = to
  if (f.from && f.to && f.from >= f.to) throw invalid('to', 'to must be after from.')
  return f
}

/** The filters as written, for the access log's own record of an export or a read. */
const filtersRecord = (q: Map<string, string>) => Object.fromEntries(FILTER_KEYS.flatMap((k) => (q.get(k) ? [[k, q.get(k)]] : [])))

const auditAs = (d: RouteDeps, req: IncomingMessage, ctx: RequestContext) => (action: string, details: Record<string, unknown>) =>
  d.audit(ctx.principal, d.addressOf(req), action, details)

const accessLogList =
  (d: RouteDeps): RouteSpec['handle'] =>
  async (_req, res, url, ctx) => {
    await d.flushLog()
    const q = queryParams(url, [...FILTER_KEYS, 'limit', 'cursor'])
    const filters = logFilters(q)
    const limitText = q.get('limit') || '100'
    if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > LIST_LIMIT_MAX)
      throw invalid('limit', `limit must be a whole number from 1 to ${LIST_LIMIT_MAX}.`)
    const cursorText = q.get('cursor')
    const cursor = cursorText ? decodeCursor(cursorText) : null
    if (cursorText && !cursor) throw invalid('cursor', 'cursor is not one this server gave out.')
    const page = await listEntries(d.db, filters, Number(limitText), cursor)
    await ctx.logRead({ filters: filtersRecord(q), rows: page.entries.length })
    sendJson(res, 200, { entries: page.entries, nextCursor: page.next ? encodeCursor(page.next) : null })
  }

const accessLogVerify =
  (d: RouteDeps): RouteSpec['handle'] =>
  async (_req, res, url) => {
    queryParams(url, [])
    await d.flushLog()
    sendJson(res, 200, await verifyLog(d.db))
  }

const accessLogExport =
  (d: RouteDeps): RouteSpec['handle'] =>
  async (req, res, url, ctx) => {
    await d.flushLog()
    const q = queryParams(url, [...FILTER_KEYS])
    const filters = logFilters(q)
    const day = new Date(d.now()).toISOString().slice(0, 10)
    await ctx.logRead({ what: 'access-log', filters: filtersRecord(q) })
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
    auditAs(d, req, ctx)('access-log.export.done', { what: 'access-log', rows, complete: !aborted, filters: filtersRecord(q) })
  }

/** Admins only: the log shows which customer numbers and parties were read, so reading it is a logged read too. */
export const accessLogRoutes = (d: RouteDeps): RouteSpec[] => [
  { method: 'GET', path: '/api/auth/access-log', access: 'admin', reads: 'access-log.view', handle: accessLogList(d) },
  { method: 'GET', path: '/api/auth/access-log/export', access: 'admin', reads: 'access-log.export', handle: accessLogExport(d) },
  // The chain's verdict names entries by number only: no customer data.
  { method: 'GET', path: '/api/auth/access-log/verify', access: 'admin', reads: null, handle: accessLogVerify(d) },
]
