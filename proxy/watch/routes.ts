import { z } from 'zod'
import { WATCH_ANSWERS, WATCH_PATHS, type WatchAnswer } from '../../contract/watch-api.ts'
import type { Db } from '../db/types.ts'
import { ProxyError } from '../errors.ts'
import { answering, route, type RouteSpec } from '../http-types.ts'
import { jsonBody, NO_QUERY, query } from '../schema.ts'
import { messagesAtRisk } from './at-risk.ts'
import { listChanges } from './changes.ts'
import { listEndpoints } from './endpoints.ts'
import { keyOf, maskUrl } from './mask.ts'
import { callbackUrls, type RoundResult } from './probe-all.ts'
import type { ListingRecorded } from './record-listing.ts'

/**
 * The Callbacks page's routes. The history of changes and the endpoints' checks show no customer
 * message (numbers and their callback URLs, masked): any signed-in user. Messages at risk show
 * customers: a declared read, logged with the numbers and parties it shows. "Check now" calls
 * out to every callback endpoint: admins only, audited.
 */

const numberParam = z
  .string()
  .trim()
  .transform((v) => v.replace(/^\+/, ''))
  .refine((v) => /^\d{6,15}$/.test(v), 'number must be a phone number of 6 to 15 digits (a + in front is allowed)')
  .optional()

const limitParam = (max: number, dflt: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/, `limit must be a whole number from 1 to ${max}`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `limit must be a whole number from 1 to ${max}`)
    .optional()
    .transform((n) => n ?? dflt)

const CHANGES_QUERY = query({ number: numberParam, limit: limitParam(1000, 200) })
const ENDPOINT_KEY = z
  .string()
  .regex(/^[0-9a-f]{16}$/, "key must be an endpoint's key (16 hexadecimal characters) as the endpoints list gives it")
const ENDPOINTS_QUERY = query({ key: ENDPOINT_KEY.optional() })
const REVEAL_BODY = jsonBody({ key: ENDPOINT_KEY }, (name) => `Unknown field "${name}". Allowed here: key.`)
const AT_RISK_QUERY = query({ number: numberParam, limit: limitParam(1000, 200) })

export interface WatchRouteDeps {
  db: Db
  listNow: () => Promise<ListingRecorded | { gap: string }>
  checkNow: () => Promise<RoundResult>
  now: () => number
}

export function watchRoutes(deps: WatchRouteDeps): RouteSpec[] {
  const { db } = deps
  return [
    route({
      method: 'GET',
      path: WATCH_PATHS.changes,
      access: 'signed-in',
      reads: null,
      schema: { querystring: CHANGES_QUERY },
      response: WATCH_ANSWERS.changes,
      handle: answering(async (_ctx, { query: q }) => {
        const out = await listChanges(db, { ...(q.number ? { number: q.number } : {}), limit: q.limit })
        return {
          status: 200,
          body: {
            ...out,
            note: 'The API lists numbers as they are; it cannot say who changed a callback, only between which two listings.',
          } satisfies WatchAnswer<'changes'>,
        }
      }),
    }),
    route({
      method: 'GET',
      path: WATCH_PATHS.endpoints,
      access: 'signed-in',
      reads: null,
      schema: { querystring: ENDPOINTS_QUERY },
      response: WATCH_ANSWERS.endpoints,
      handle: answering(async (_ctx, { query: q }) => {
        const endpoints = await listEndpoints(db, q.key ? { key: q.key, checks: 200 } : {})
        return { status: 200, body: { endpoints } satisfies WatchAnswer<'endpoints'> }
      }),
    }),
    route({
      method: 'GET',
      path: WATCH_PATHS.atRisk,
      access: 'signed-in',
      reads: 'callbacks.view',
      schema: { querystring: AT_RISK_QUERY },
      response: WATCH_ANSWERS.atRisk,
      handle: answering(async (ctx, { query: q }) => {
        const r = await messagesAtRisk(db, { ...(q.number ? { number: q.number } : {}), limit: q.limit, now: new Date(deps.now()) })
        const numbers = [...new Set(r.messages.map((m) => m.number))]
        const parties = [...new Set(r.messages.map((m) => m.party).filter(Boolean))]
        await ctx.logRead({ ...(q.number ? { number: q.number } : {}), rows: r.messages.length, numbers, parties })
        return {
          status: 200,
          body: {
            ...r,
            periods: r.periods.map((p) => ({ ...p, url: maskUrl(p.url), ...(p.usual ? { usual: maskUrl(p.usual) } : {}) })),
          } satisfies WatchAnswer<'atRisk'>,
        }
      }),
    }),
    route({
      method: 'POST',
      path: WATCH_PATHS.check,
      access: 'admin',
      reads: null,
      schema: { querystring: NO_QUERY },
      response: WATCH_ANSWERS.check,
      handle: answering(async (ctx) => {
        // Stored before the checks run: an action the log cannot record does not happen.
        await ctx.audit('callbacks.check', {})
        const listed = await deps.listNow()
        const round = await deps.checkNow()
        return {
          status: 200,
          body: {
            listing:
              'gap' in listed ? { ok: false, error: listed.gap } : { ok: true, baseline: listed.baseline, changes: listed.changes.length },
            checked: round.checked,
            findings: round.findings.length,
          } satisfies WatchAnswer<'check'>,
        }
      }),
    }),
    route({
      method: 'POST',
      path: WATCH_PATHS.reveal,
      // A callback URL's query often holds the receiver's secret: only an admin sees it whole, and the access log says so.
      access: 'admin',
      reads: null,
      schema: { querystring: NO_QUERY, body: REVEAL_BODY },
      response: WATCH_ANSWERS.reveal,
      handle: answering(async (ctx, { body }) => {
        const url = (await callbackUrls(db)).find((u) => keyOf(u) === body.key)
        if (!url)
          throw new ProxyError(404, {
            kind: 'not_found',
            field: 'key',
            message: 'No callback address the last listing shows has this key.',
          })
        await ctx.audit('callbacks.reveal', { endpoint: body.key, address: maskUrl(url) })
        return { status: 200, body: { key: body.key, url } satisfies WatchAnswer<'reveal'> }
      }),
    }),
  ]
}
