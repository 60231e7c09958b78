import { queryOptions } from '@tanstack/react-query'
import { WATCH_ANSWERS, WATCH_PATHS, type CheckNowResult } from '../../contract/watch-api'
import { WHO } from './callback-endpoints'
import { getJson, parseWire, postJson } from './client'

/**
 * The callback watch (/api/watch/*, proxy/watch/routes.ts): when each number's webhook and dlr
 * changed (between two listings), the messages that arrived or went out while one was broken, and
 * an admin's check and reveal. Whether each endpoint answers is ./callback-endpoints (the numbers
 * page reads it too). URLs come masked (query values shown as •••).
 */

export type { AtRisk, CallbackChange, Changes, CheckNowResult, Listing, RiskPeriod } from '../../contract/watch-api'

export const CALLBACKS_KEY = ['callbacks'] as const

export const callbackChangesQuery = (number: string) =>
  queryOptions({
    queryKey: ['callbacks', 'changes', number],
    queryFn: async ({ signal }) => parseWire(WATCH_ANSWERS.changes, await getJson(WATCH_PATHS.changes, { number }, signal), WHO),
    staleTime: 30_000,
  })

export const atRiskQuery = (number: string) =>
  queryOptions({
    queryKey: ['callbacks', 'at-risk', number],
    queryFn: async ({ signal }) => parseWire(WATCH_ANSWERS.atRisk, await getJson(WATCH_PATHS.atRisk, { number }, signal), WHO),
    // Each answer is a logged read of customer messages: not on every focus of the window.
    staleTime: 60_000,
    refetchOnWindowFocus: false,
  })

/** An admin's "Check now": one listing and one round of checks, answered when both are done. */
export async function checkNow(): Promise<CheckNowResult> {
  return parseWire(WATCH_ANSWERS.check, await postJson(WATCH_PATHS.check, {}), WHO)
}

/** An admin's reveal of one address whole (its query's secret too); the server logs it. */
export async function revealAddress(key: string): Promise<string> {
  return parseWire(WATCH_ANSWERS.reveal, await postJson(WATCH_PATHS.reveal, { key }), WHO).url
}
