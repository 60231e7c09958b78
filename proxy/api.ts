import { HISTORY_SHOWN_ANSWER, type HistoryShownAnswer } from '../contract/history-api.ts'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { checkParams, OPERATIONS, type Operation } from '../contract/api.ts'
import type { Config } from './config.ts'
import { ProxyError, invalid } from './errors.ts'
import type { Forwarder } from './forward.ts'
import { answering, route, type RequestContext, type RouteSpec } from './http-types.ts'
import { parseJsonText, readBody, safeFieldName, sendJsonText } from './http.ts'
import { checked, jsonBody, query } from './schema.ts'
import { parsePage, type OnHistoryServed, type PageMeta, type PageRecord } from './index/parse.ts'
import { partiesShown, type PartiesShown } from './log-parties.ts'

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
  onHistoryServed?: OnHistoryServed,
  onHistoryPage?: OnHistoryPage,
): RouteSpec[] {
  const prefetched = createPrefetchLedger()
  const row = (op: Operation): RouteSpec =>
    route({
      method: 'POST',
      path: `/api/${op}`,
      access: 'signed-in',
      reads: op === 'smshistory' ? 'history.view' : null,
      schema: { querystring: BODY_ONLY, body: operationFields(op, config.historyPageCap) },
      readBody: async (req) => parseFields(await readBody(req), String(req.headers['content-type'] ?? '')),
      handle: (req, res, _url, ctx, { body }) =>
        handleOperation(forwarder, req, res, ctx, op, body, { onHistoryServed, onHistoryPage, prefetched }),
    })
  return [...OPERATIONS.map(row), historyShownRoute(config, prefetched)]
}

async function handleOperation(
  forwarder: Forwarder,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  op: Operation,
  params: Array<[string, string]>,
  {
    onHistoryServed,
    onHistoryPage,
    prefetched,
  }: { onHistoryServed?: OnHistoryServed; onHistoryPage?: OnHistoryPage; prefetched: PrefetchLedger },
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
    const page = { number: p.number ?? '', tid: p.tid ?? '', start: Number(p.history_start), end: Number(p.history_end) }
    // The customers the page shows, as every list read names them; a page fetched ahead is
    // remembered for this sign-in, and only such a page can later be reported shown.
    const { records, envelope } = recordsOnPage(result.body, result.json)
    const shown = partiesShown(records.map((r) => r.partyDigits))
    await ctx.logRead({ ...page, ...shown }, prefetch ? 'history.prefetch' : 'history.view')
    if (prefetch) prefetched.remember(ctx, page, shown)
    // Before the page goes out: its thumbnails are asked for as soon as it renders.
    if (page.number) await onHistoryPage?.(ctx, page.number, records)
    if (res.destroyed) return
    if (p.number && p.tid) onHistoryServed?.(p.number, p.tid, envelope)
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

/**
 * A history page's records as the index reads them; none when it cannot be read (the browser
 * shows none either). `json`: the page as the forwarder already parsed it to judge it, so the
 * bytes are not decoded and parsed a second time on the server's thread.
 */
function recordsOnPage(body: Buffer | string, json?: unknown): { records: PageRecord[]; envelope: PageMeta | null } {
  try {
    const { records, ...envelope } = parsePage(body, json)
    return { records, envelope }
  } catch {
    return { records: [], envelope: null }
  }
}

/** A history page was served to this sign-in (the media room remembers what its messages hold). */
export type OnHistoryPage = (ctx: RequestContext, number: string, records: readonly PageRecord[]) => void | Promise<void>

type PageKey = { number: string; tid: string; start: number; end: number }
type Shown = PartiesShown
interface PrefetchLedger {
  remember: (ctx: RequestContext, page: PageKey, shown: Shown) => void
  /** The page's customers, once: a page this sign-in was not served ahead (or already reported) gives undefined. */
  take: (ctx: RequestContext, page: PageKey) => Shown | undefined
}

/** Pages fetched ahead and not yet shown, per sign-in: bounded in count and age, in memory only. */
function createPrefetchLedger(maxEntries = 10_000, maxAgeMs = 30 * 60_000): PrefetchLedger {
  const pages = new Map<string, { shown: Shown; at: number }>()
  const keyOf = (ctx: RequestContext, p: PageKey) =>
    JSON.stringify([ctx.principal?.name ?? '', ctx.principal?.sessionId ?? '', p.number, p.tid, p.start, p.end])
  return {
    remember: (ctx, page, shown) => {
      const key = keyOf(ctx, page)
      pages.delete(key)
      pages.set(key, { shown, at: Date.now() })
      // The oldest go first (a Map keeps insertion order).
      for (const [k, v] of pages) {
        if (pages.size <= maxEntries && Date.now() - v.at <= maxAgeMs) break
        pages.delete(k)
      }
    },
    take: (ctx, page) => {
      const key = keyOf(ctx, page)
      const found = pages.get(key)
      pages.delete(key)
      return found && Date.now() - found.at <= maxAgeMs ? found.shown : undefined
    },
  }
}

/**
 * The browser showed a page it had fetched ahead: that is when it was read. Only a page this
 * sign-in was served ahead counts, once: a report of any other page (a made-up number or
 * customer) is refused and writes nothing in anyone's name.
 */
function historyShownRoute(config: Config, prefetched: PrefetchLedger): RouteSpec {
  return route({
    method: 'POST',
    path: '/api/history/shown',
    access: 'signed-in',
    reads: 'history.view',
    schema: {
      querystring: query({}, { unknown: (name) => `${name}: send the fields in the JSON body.` }),
      body: shownBody(config.historyPageCap),
    },
    response: HISTORY_SHOWN_ANSWER,
    handle: answering(async (ctx, { body }) => {
      const shown = prefetched.take(ctx, body)
      if (!shown)
        throw new ProxyError(409, {
          kind: 'invalid_request',
          field: 'start',
          message: 'That page was not fetched ahead for this sign-in, or was already reported shown.',
        })
      await ctx.logRead({ ...body, ...shown, prefetched: true })
      return { status: 200, body: { recorded: true } satisfies HistoryShownAnswer }
    }),
  })
}
