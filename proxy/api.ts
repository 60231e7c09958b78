import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Operation } from '../contract/api.ts'
import type { Config } from './config.ts'
import { ProxyError, invalid } from './errors.ts'
import type { Forwarder } from './forward.ts'
import type { RequestContext } from './http-types.ts'
import { parseJsonText, readBody, safeFieldName, sendError, sendJsonText } from './http.ts'
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

export async function handleOperation(
  config: Config,
  forwarder: Forwarder,
  req: IncomingMessage,
  res: ServerResponse,
  op: Operation,
  ctx: RequestContext,
): Promise<void> {
  if (req.method !== 'POST') {
    req.resume()
    return sendError(res, new ProxyError(405, { kind: 'invalid_request', field: 'method', message: `Use POST for /api/${op}.` }), {
      allow: 'POST',
    })
  }
  const body = await readBody(req)
  const fields = parseFields(body, String(req.headers['content-type'] ?? ''))
  const params = validate(op, fields, config.historyPageCap)
  const controller = new AbortController()
  res.on('close', () => {
    if (!res.writableFinished) controller.abort()
  })
  const result = await forwarder.forward(op, params, controller.signal)
  if (res.destroyed) return
  sendJsonText(res, 200, result.body)
  if (op === 'smshistory') {
    const p = Object.fromEntries(params)
    ctx.audit('history.view', { number: p.number, tid: p.tid, start: Number(p.history_start), end: Number(p.history_end) })
  }
}
