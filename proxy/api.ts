import type { IncomingMessage, ServerResponse } from 'node:http'
import { OPERATIONS, type Operation } from '../contract/api.ts'
import type { Config } from './config.ts'
import { ProxyError, invalid } from './errors.ts'
import type { Forwarder } from './forward.ts'
import type { RequestContext, RouteSpec } from './http-types.ts'
import { parseJsonText, readBody, readJsonBody, safeFieldName, sendJson, sendJsonText } from './http.ts'
import { validate, type Fields } from './validate.ts'

/**
 * The three upstream operations: read the browser's fields, validate them, forward them with
 * the account's credentials and pass the upstream's JSON through byte for byte.
 */

export function parseFields(body: Buffer, contentType: string): Fields {
  const fields: Fields = new Map()
  const add = (k: string, v: string) => fields.set(k, [...(fields.get(k) ?? []), v])
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  if (body.length === 0) return fields
  if (type === 'application/x-www-form-urlencoded') {
    const text = body.toString('utf8')
    for (const [k, v] of new URLSearchParams(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)) add(k, v)
    return fields
  }
  if (type === 'application/json') {
    const json = parseJsonText(body.toString('utf8'))
    if (!json || typeof json !== 'object' || Array.isArray(json)) throw invalid('body', 'The request body must be a JSON object.')
    for (const [k, v] of Object.entries(json)) {
      if (typeof v === 'string' || typeof v === 'number') add(k, String(v))
      else throw invalid(safeFieldName(k), `${safeFieldName(k)} must be a string or a number.`)
    }
    return fields
  }
  throw new ProxyError(415, {
    kind: 'invalid_request',
    field: 'content-type',
    message: 'Send the parameters as application/x-www-form-urlencoded or application/json.',
  })
}

/**
 * The upstream operations' rows of the route table. Only a page of history shows customer data
 * (bodies, parties, media links); the numbers lists are the account's own numbers. A history
 * page the browser fetches ahead of need (`X-Switchboard-Prefetch: 1`) is logged as a prefetch,
 * and becomes a `history.view` when the browser reports it shown (POST /api/history/shown).
 */
export function operationRoutes(
  config: Config,
  forwarder: Forwarder,
  onHistoryServed?: (number: string, tid: string) => void,
): RouteSpec[] {
  const route = (op: Operation): RouteSpec => ({
    method: 'POST',
    path: `/api/${op}`,
    access: 'signed-in',
    reads: op === 'smshistory' ? 'history.view' : null,
    handle: (req, res, url, ctx) => handleOperation(config, forwarder, req, res, url, ctx, op, onHistoryServed),
  })
  return [...OPERATIONS.map(route), historyShownRoute(config)]
}

async function handleOperation(
  config: Config,
  forwarder: Forwarder,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: RequestContext,
  op: Operation,
  onHistoryServed?: (number: string, tid: string) => void,
): Promise<void> {
  // The upstream operations take their parameters in the body only, so nothing rides along unseen.
  if (url.search) throw invalid('query', 'Send parameters in the POST body, not the query string.')
  const body = await readBody(req)
  const fields = parseFields(body, String(req.headers['content-type'] ?? ''))
  const params = validate(op, fields, config.historyPageCap)
  const controller = new AbortController()
  res.on('close', () => {
    if (!res.writableFinished) controller.abort()
  })
  const result = await forwarder.forward(op, params, controller.signal)
  if (res.destroyed) return
  if (op === 'smshistory') {
    const p = Object.fromEntries(params)
    const prefetch = req.headers['x-switchboard-prefetch'] === '1'
    await ctx.logRead(
      { number: p.number, tid: p.tid, start: Number(p.history_start), end: Number(p.history_end) },
      prefetch ? 'history.prefetch' : 'history.view',
    )
    if (res.destroyed) return
    if (p.number && p.tid) onHistoryServed?.(p.number, p.tid)
  }
  sendJsonText(res, 200, result.body)
}

/** The browser showed a page it had fetched ahead: that is when it was read. */
function historyShownRoute(config: Config): RouteSpec {
  return {
    method: 'POST',
    path: '/api/history/shown',
    access: 'signed-in',
    reads: 'history.view',
    handle: async (req, res, url, ctx) => {
      if (url.search) throw invalid('query', 'Send the fields in the JSON body.')
      const body = await readJsonBody(req)
      for (const k of Object.keys(body))
        if (!['number', 'tid', 'start', 'end'].includes(k))
          throw invalid(safeFieldName(k), `Unknown field ${safeFieldName(k)}: send number, tid, start and end.`)
      const fields: Fields = new Map(
        Object.entries({
          number: body.number,
          tid: body.tid,
          history_start: body.start,
          history_end: body.end,
        }).map(([k, v]) => [k, typeof v === 'string' || typeof v === 'number' ? [String(v)] : []]),
      )
      for (const [k, v] of fields) if (v.length === 0) fields.delete(k)
      const p = Object.fromEntries(validate('smshistory', fields, config.historyPageCap))
      await ctx.logRead({ number: p.number, tid: p.tid, start: Number(p.history_start), end: Number(p.history_end), prefetched: true })
      sendJson(res, 200, { recorded: true })
    },
  }
}
