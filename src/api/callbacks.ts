import { queryOptions } from '@tanstack/react-query'
import * as z from 'zod/mini'
import { getJson, parseWire, postJson } from './client'

/**
 * The callback watch (/api/watch/*, proxy/watch/routes.ts): when each number's webhook and dlr
 * changed (between two listings), whether each callback endpoint answers, and the messages that
 * arrived or went out while one was broken. URLs come masked (query values shown as •••).
 */

const WHO = "The Switchboard server's"
export const WATCH_PATHS = {
  changes: '/api/watch/changes',
  endpoints: '/api/watch/endpoints',
  atRisk: '/api/watch/at-risk',
  check: '/api/watch/check',
} as const

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
const changesWire = z.object({ changes: z.array(changeWire), listings: z.array(listingWire), note: z.string() })
export type CallbackChange = z.infer<typeof changeWire>
export type Listing = z.infer<typeof listingWire>
export type Changes = z.infer<typeof changesWire>

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
const endpointsWire = z.object({ endpoints: z.array(endpointWire) })
export type Check = z.infer<typeof checkWire>
export type Endpoint = z.infer<typeof endpointWire>
export type Bound = z.infer<typeof boundWire>

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
const atRiskWire = z.object({
  periods: z.array(periodWire),
  messages: z.array(
    z.object({ number: z.string(), ordinal: z.number(), date: z.string(), party: z.string(), direction: z.string(), period: z.number() }),
  ),
  counts: z.record(z.string(), z.number()),
  truncated: z.boolean(),
  since: z.nullable(z.string()),
})
export type RiskPeriod = z.infer<typeof periodWire>
export type AtRisk = z.infer<typeof atRiskWire>

export const CALLBACKS_KEY = ['callbacks'] as const

export const callbackChangesQuery = (number: string) =>
  queryOptions({
    queryKey: ['callbacks', 'changes', number],
    queryFn: async ({ signal }) => parseWire(changesWire, await getJson(WATCH_PATHS.changes, { number }, signal), WHO),
    staleTime: 30_000,
  })

export const endpointsQuery = () =>
  queryOptions({
    queryKey: ['callbacks', 'endpoints'],
    queryFn: async ({ signal }) => parseWire(endpointsWire, await getJson(WATCH_PATHS.endpoints, {}, signal), WHO).endpoints,
    staleTime: 30_000,
  })

export const endpointQuery = (key: string) =>
  queryOptions({
    queryKey: ['callbacks', 'endpoint', key],
    queryFn: async ({ signal }) =>
      parseWire(endpointsWire, await getJson(WATCH_PATHS.endpoints, { key }, signal), WHO).endpoints[0] ?? null,
    staleTime: 30_000,
  })

export const atRiskQuery = (number: string) =>
  queryOptions({
    queryKey: ['callbacks', 'at-risk', number],
    queryFn: async ({ signal }) => parseWire(atRiskWire, await getJson(WATCH_PATHS.atRisk, { number }, signal), WHO),
    // Each answer is a logged read of customer messages: not on every focus of the window.
    staleTime: 60_000,
    refetchOnWindowFocus: false,
  })

const checkResultWire = z.object({
  listing: z.object({ ok: z.boolean(), error: z.optional(z.string()), baseline: z.optional(z.boolean()), changes: z.optional(z.number()) }),
  checked: z.number(),
  findings: z.number(),
})
export type CheckNowResult = z.infer<typeof checkResultWire>

/** An admin's "Check now": one listing and one round of checks, answered when both are done. */
export async function checkNow(): Promise<CheckNowResult> {
  return parseWire(checkResultWire, await postJson(WATCH_PATHS.check, {}), WHO)
}

/** An admin's reveal of one address whole (its query's secret too); the server logs it. */
export async function revealAddress(key: string): Promise<string> {
  return parseWire(z.object({ key: z.string(), url: z.string() }), await postJson('/api/watch/reveal', { key }), WHO).url
}
