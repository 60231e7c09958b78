import * as z from 'zod/mini'

/**
 * The callback watch's routes (proxy/watch/routes.ts) and their answers, described once: the
 * server's route rows declare these as their responses (proxy/route-table.test.ts holds each
 * sample answer to its schema), and the browser (src/api/callbacks.ts, callback-endpoints.ts)
 * parses what it receives with the same ones. URLs come masked (query values shown as •••),
 * except the reveal's.
 */

export const WATCH_PATHS = {
  changes: '/api/watch/changes',
  endpoints: '/api/watch/endpoints',
  atRisk: '/api/watch/at-risk',
  check: '/api/watch/check',
  reveal: '/api/watch/reveal',
} as const

/** What a check found: up; answers, but 4xx; failing; redirects elsewhere; not checked (private address, not a web address). */
export const OUTCOMES = ['up', 'client-error', 'failing', 'redirect', 'private', 'invalid'] as const
export type Outcome = (typeof OUTCOMES)[number]

const checkWire = z.object({
  at: z.string(),
  outcome: z.enum(OUTCOMES),
  failure: z.nullable(z.string()),
  detail: z.string(),
  status: z.nullable(z.number()),
  latencyMs: z.nullable(z.number()),
  tlsProtocol: z.nullable(z.string()),
  tlsValidTo: z.nullable(z.string()),
  tlsDays: z.nullable(z.number()),
})
/** A moment known only between two others (a listing's or a check's): the earliest and latest it can be. */
const boundWire = z.object({ earliest: z.string(), latest: z.string() })
const endpointWire = z.object({
  key: z.string(),
  url: z.string(),
  webhookOf: z.array(z.string()),
  dlrOf: z.array(z.string()),
  latest: z.nullable(checkWire),
  down: z.array(z.object({ start: boundWire, end: z.nullable(boundWire) })),
  checks: z.optional(z.array(checkWire)),
})

const changeWire = z.object({
  id: z.string(),
  number: z.string(),
  kind: z.string(),
  from: z.nullable(z.string()),
  to: z.nullable(z.string()),
  windowStart: z.string(),
  windowEnd: z.string(),
})
const listingWire = z.object({
  id: z.string(),
  at: z.string(),
  ok: z.boolean(),
  baseline: z.boolean(),
  prevAt: z.nullable(z.string()),
  numbers: z.nullable(z.number()),
  changes: z.nullable(z.number()),
  error: z.nullable(z.string()),
})

const periodWire = z.object({
  number: z.string(),
  callback: z.enum(['webhook', 'dlr']),
  reason: z.enum(['missing', 'invalid', 'elsewhere', 'failing']),
  url: z.string(),
  usual: z.optional(z.string()),
  start: boundWire,
  end: z.nullable(boundWire),
  count: z.number(),
})

/** Each route's 2xx answer. */
export const WATCH_ANSWERS = {
  changes: z.object({ changes: z.array(changeWire), listings: z.array(listingWire), note: z.string() }),
  endpoints: z.object({ endpoints: z.array(endpointWire) }),
  atRisk: z.object({
    periods: z.array(periodWire),
    messages: z.array(
      z.object({ number: z.string(), ordinal: z.number(), date: z.string(), party: z.string(), direction: z.string(), period: z.number() }),
    ),
    counts: z.record(z.string(), z.number()),
    truncated: z.boolean(),
    since: z.nullable(z.string()),
  }),
  check: z.object({
    listing: z.object({
      ok: z.boolean(),
      error: z.optional(z.string()),
      baseline: z.optional(z.boolean()),
      changes: z.optional(z.number()),
    }),
    checked: z.number(),
    findings: z.number(),
  }),
  reveal: z.object({ key: z.string(), url: z.string() }),
} as const

export type Check = z.infer<typeof checkWire>
export type Endpoint = z.infer<typeof endpointWire>
export type Bound = z.infer<typeof boundWire>
export type CallbackChange = z.infer<typeof changeWire>
export type Listing = z.infer<typeof listingWire>
export type Changes = z.infer<typeof WATCH_ANSWERS.changes>
export type RiskPeriod = z.infer<typeof periodWire>
export type AtRisk = z.infer<typeof WATCH_ANSWERS.atRisk>
export type CheckNowResult = z.infer<typeof WATCH_ANSWERS.check>
/** A route's answer, for the server's handlers to satisfy (an answer that strays fails to compile). */
export type WatchAnswer<K extends keyof typeof WATCH_ANSWERS> = z.infer<(typeof WATCH_ANSWERS)[K]>
