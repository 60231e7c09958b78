import { queryOptions } from '@tanstack/react-query'
import * as z from 'zod/mini'
import { getJson, parseWire } from './client'

/**
 * The callback watch's endpoints (/api/watch/endpoints, proxy/watch/routes.ts): each distinct
 * callback URL, the numbers that use it, and whether it answers. The numbers page (in the entry
 * chunk) reads them for its rows; the rest of the watch's client (./callbacks) loads with the
 * callbacks page. URLs come masked (query values shown as •••).
 */

export const WHO = "The Switchboard server's"
export const WATCH_PATHS = {
  changes: '/api/watch/changes',
  endpoints: '/api/watch/endpoints',
  atRisk: '/api/watch/at-risk',
  check: '/api/watch/check',
} as const

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
export const boundWire = z.object({ earliest: z.string(), latest: z.string() })
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
