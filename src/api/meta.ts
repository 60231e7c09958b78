import { queryOptions, useQuery } from '@tanstack/react-query'
import { META_ANSWER } from '../../contract/meta-api'
import { getJson, parseWire } from './client'

/** GET /api/meta: what the server is configured with that the app must respect (contract/meta-api.ts). */
export interface Meta {
  historyPageCap: number
  timeZone: string
  indexEnabled: boolean | null
  accessMode: string | null
  /** Which simulator account answers (the server runs on its built-in simulator: demo data); null for a real account or unknown. */
  simulatorAccount: string | null
}

/** Until the server answers (or when it is older and has no /api/meta): the server's default cap. */
export const DEFAULT_META: Meta = { historyPageCap: 1000, timeZone: 'UTC', indexEnabled: null, accessMode: null, simulatorAccount: null }

export const metaQuery = () =>
  queryOptions({
    queryKey: ['meta'] as const,
    queryFn: async ({ signal }): Promise<Meta> => {
      const w = parseWire(META_ANSWER, await getJson('/api/meta', {}, signal), "The Switchboard server's")
      return {
        historyPageCap: w.historyPageCap,
        timeZone: w.timeZone,
        indexEnabled: w.index?.enabled ?? null,
        accessMode: w.accessMode ?? null,
        simulatorAccount: w.upstream?.kind === 'simulator' ? w.upstream.account : null,
      }
    },
    staleTime: Infinity,
    retry: false,
  })

export function useMeta(): Meta {
  const q = useQuery(metaQuery())
  return q.data ?? DEFAULT_META
}
