import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { checkParams, OPERATIONS, type Operation } from '../contract/api.ts'
import type { Config } from './config.ts'
import { ProxyError, invalid } from './errors.ts'
import type { Forwarder } from './forward.ts'
import { route, type RequestContext, type RouteSpec } from './http-types.ts'
import { parseJsonText, readBody, safeFieldName, sendJson, sendJsonText } from './http.ts'
import { checked, jsonBody, query } from './schema.ts'

/**
 * The three upstream operations: read the browser's fields, validate them by the wire
 * contract's rules (contract/api.ts `checkParams`: each message names the field), forward them
 * with the account's credentials and pass the upstream's JSON through byte for byte. Only the
 * operation's own parameters are forwarded; credentials and anything else the browser sent are
 * dropped (the proxy attaches its own, see forward.ts).
 */

/** A form's or a JSON object's fields, each name with every value it was sent with. */
export type Fields = Record<string, string[]>

export function parseFields(body: Buffer, contentType: string): Fields {
  const fields: Fields = Object.create(null) as Fields
  const add = (k: string, v: string) => (fields[k] = [...(fields[k] ?? []), v])
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

/** An operation's fields by the contract's rules: its own parameters, in the contract's order. */
const operationFields = (op: Operation, pageCap: number) =>
  z.record(z.string(), z.array(z.string())).transform(
    checked((fields: Fields) => {
      const result = checkParams(op, (name) => fields[name], pageCap)
      if (!result.ok) throw invalid(result.field, result.message)
      return result.params
    }),
  )

/** The upstream operations take their parameters in the body only, so nothing rides along unseen. */
const BODY_ONLY = query({}, { unknown: (name) => `${name}: send parameters in the POST body, not the query string.` })

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
  const row = (op: Operation): RouteSpec =>
    route({
      method: 'POST',
      path: `/api/${op}`,
      access: 'signed-in',
      reads: op === 'smshistory' ? 'history.view' : null,
      schema: { querystring: BODY_ONLY, body: operationFields(op, config.historyPageCap) },
      readBody: async (req) => parseFields(await readBody(req), String(req.headers['content-type'] ?? '')),
      handle: (req, res, _url, ctx, { body }) => handleOperation(forwarder, req, res, ctx, op, body, onHistoryServed),
    })
  return [...OPERATIONS.map(row), historyShownRoute(config)]
}

async function handleOperation(
  forwarder: Forwarder,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  op: Operation,
  params: Array<[string, string]>,
  onHistoryServed?: (number: string, tid: string) => void,
): Promise<void> {
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

/** A page's range as the browser reports it shown: the history operation's own fields and rules. */
const shownBody = (pageCap: number) =>
  jsonBody(
    { number: z.unknown().optional(), tid: z.unknown().optional(), start: z.unknown().optional(), end: z.unknown().optional() },
    (name) => `Unknown field ${name}: send number, tid, start and end.`,
  ).transform(
    checked((body: Record<string, unknown>) => {
      const given: Fields = {}
      for (const [name, value] of [
        ['number', body.number],
        ['tid', body.tid],
        ['history_start', body.start],
        ['history_end', body.end],
      ] as const)
        if (typeof value === 'string' || typeof value === 'number') given[name] = [String(value)]
      const result = checkParams('smshistory', (name) => given[name], pageCap)
      if (!result.ok) throw invalid(result.field, result.message)
      const p = Object.fromEntries(result.params)
      return { number: p.number ?? '', tid: p.tid ?? '', start: Number(p.history_start), end: Number(p.history_end) }
    }),
  )

/** The browser showed a page it had fetched ahead: that is when it was read. */
function historyShownRoute(config: Config): RouteSpec {
  return route({
    method: 'POST',
    path: '/api/history/shown',
    access: 'signed-in',
    reads: 'history.view',
    schema: {
      querystring: query({}, { unknown: (name) => `${name}: send the fields in the JSON body.` }),
      body: shownBody(config.historyPageCap),
    },
    handle: async (_req, res, _url, ctx, { body }) => {
      await ctx.logRead({ ...body, prefetched: true })
      sendJson(res, 200, { recorded: true })
    },
  })
}
