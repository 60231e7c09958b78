import { queryOptions, useQuery } from '@tanstack/react-query'
import * as z from 'zod/mini'
import { getJson, parseWire } from './client'

/** GET /api/meta: what the server is configured with that the app must respect. */
const metaWire = z.looseObject({
  historyPageCap: z.catch(z.number().check(z.int(), z.positive()), 1000),
  timeZone: z.catch(z.string(), 'UTC'),
  indexEnabled: z.optional(z.catch(z.boolean(), false)),
  accessMode: z.optional(z.catch(z.string(), 'local')),
  upstream: z.optional(z.catch(z.looseObject({ kind: z.string(), account: z.optional(z.catch(z.string(), '')) }), { kind: 'configured' })),
})

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
      const w = parseWire(metaWire, await getJson('/api/meta', {}, signal), "The Switchboard server's")
      return {
        historyPageCap: w.historyPageCap,
        timeZone: w.timeZone,
        indexEnabled: w.indexEnabled ?? null,
        accessMode: w.accessMode ?? null,
        simulatorAccount: w.upstream?.kind === 'simulator' ? w.upstream.account || 'demo' : null,
      }
    },
    staleTime: Infinity,
    retry: false,
  })

export function useMeta(): Meta {
  const q = useQuery(metaQuery())
  return q.data ?? DEFAULT_META
}
