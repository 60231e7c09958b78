import { queryOptions } from '@tanstack/react-query'
import { WATCH_ANSWERS, WATCH_PATHS } from '../../contract/watch-api'
import { getJson, parseWire } from './client'

/**
 * The callback watch's endpoints (/api/watch/endpoints, proxy/watch/routes.ts; its answer's schema is contract/watch-api.ts): each distinct
 * callback URL, the numbers that use it, and whether it answers. The numbers page (in the entry
 * chunk) reads them for its rows; the rest of the watch's client (./callbacks) loads with the
 * callbacks page. URLs come masked (query values shown as •••).
 */

export const WHO = "The Switchboard server's"
export { OUTCOMES, WATCH_PATHS, type Bound, type Check, type Endpoint, type Outcome } from '../../contract/watch-api'

export const endpointsQuery = () =>
  queryOptions({
    queryKey: ['callbacks', 'endpoints'],
    queryFn: async ({ signal }) => parseWire(WATCH_ANSWERS.endpoints, await getJson(WATCH_PATHS.endpoints, {}, signal), WHO).endpoints,
    staleTime: 30_000,
  })

export const endpointQuery = (key: string) =>
  queryOptions({
    queryKey: ['callbacks', 'endpoint', key],
    queryFn: async ({ signal }) =>
      parseWire(WATCH_ANSWERS.endpoints, await getJson(WATCH_PATHS.endpoints, { key }, signal), WHO).endpoints[0] ?? null,
    staleTime: 30_000,
  })
