import { queryOptions } from '@tanstack/react-query'
import * as z from 'zod/mini'
import { boundWire, WATCH_PATHS, WHO } from './callback-endpoints'
import { getJson, parseWire, postJson } from './client'

/**
 * The callback watch (/api/watch/*, proxy/watch/routes.ts): when each number's webhook and dlr
 * changed (between two listings), the messages that arrived or went out while one was broken, and
 * an admin's check and reveal. Whether each endpoint answers is ./callback-endpoints (the numbers
 * page reads it too). URLs come masked (query values shown as •••).
 */

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
