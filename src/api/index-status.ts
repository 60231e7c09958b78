import { queryOptions, useQuery } from '@tanstack/react-query'
import * as z from 'zod/mini'
import { INDEX_PATHS, type SearchParams } from '../../contract/index-api'
import { getJson, optText, parseWire } from './client'

/**
 * The message index's status, on its own: the numbers page (in the entry chunk) shows what the
 * index holds per number without loading the rest of the index's client (index-api.ts).
 */

export const WHO = "The message index's"
export const count = z.catch(z.number(), 0)
export const nullableText = z.catch(optText, null)

export const freshnessWire = z.catch(
  z.looseObject({
    numbersKnown: count,
    numbersComplete: count,
    syncing: z.catch(z.array(z.string()), []),
    incomplete: z.catch(z.array(z.string()), []),
    indexedUpTo: nullableText,
  }),
  { numbersKnown: 0, numbersComplete: 0, syncing: [], incomplete: [], indexedUpTo: null },
)
export type Freshness = z.output<typeof freshnessWire>

// ---- status ---------------------------------------------------------------------------------

const statusWire = z.looseObject({
  enabled: z.catch(z.boolean(), false),
  engine: z.catch(z.string(), ''),
  numbers: z.catch(
    z.array(
      z.looseObject({
        number: z.string(),
        tid: z.catch(z.string(), ''),
        state: z.catch(z.string(), 'never'),
        indexed: count,
        upstreamTotal: z.catch(z.nullable(z.number()), null),
        newestDate: nullableText,
        oldestDate: nullableText,
        lastSyncedAt: nullableText,
        error: nullableText,
        progress: z.catch(z.nullable(z.object({ done: z.number(), total: z.number() })), null),
      }),
    ),
    [],
  ),
  freshness: freshnessWire,
})
export type IndexStatus = z.output<typeof statusWire>
export type NumberIndexStatus = IndexStatus['numbers'][number]

export const indexKeys = {
  all: ['index'] as const,
  status: () => [...indexKeys.all, 'status'] as const,
  search: (p: SearchParams) => [...indexKeys.all, 'search', p] as const,
  thread: (number: string, party: string) => [...indexKeys.all, 'thread', number, party] as const,
  parties: (number: string) => [...indexKeys.all, 'parties', number] as const,
  stats: (number: string | null, bucket: 'day' | 'week', from: string, to: string) =>
    [...indexKeys.all, 'stats', number, bucket, from, to] as const,
  message: (number: string, ordinal: number) => [...indexKeys.all, 'message', number, ordinal] as const,
  locate: (number: string, date: string) => [...indexKeys.all, 'locate', number, date] as const,
}

export const indexStatusQuery = () =>
  queryOptions({
    queryKey: indexKeys.status(),
    queryFn: async ({ signal }) => parseWire(statusWire, await getJson(INDEX_PATHS.status, {}, signal), WHO),
    staleTime: 10_000,
    // While numbers sync the counts move: poll gently; never when the index is off.
    refetchInterval: (q) => (q.state.data && q.state.data.freshness.syncing.length > 0 ? 5_000 : false),
    retry: false,
  })

/**
 * The index's state for every number, for pages that show index facts (the numbers table's
 * "messages" and "last activity" columns use `byNumber`). `available` is false when the index
 * is off or not served, so callers fall back to what the upstream alone can do.
 */
export function useIndexStatus() {
  const q = useQuery(indexStatusQuery())
  const data = q.data
  const byNumber = new Map<string, NumberIndexStatus>()
  for (const n of data?.numbers ?? []) byNumber.set(n.number, n)
  return { available: !!data?.enabled, loading: q.isPending, error: q.error, status: data, byNumber, refetch: q.refetch }
}
