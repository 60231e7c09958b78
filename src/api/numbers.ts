import { queryOptions } from '@tanstack/react-query'
import * as z from 'zod/mini'
import { idLike, optText, parseWire, postApi } from './client'

/** Owned numbers (spec §2.2, §4.2, §4.3). `country` exists only in the all-numbers listing. */
const ownedNumberWire = z.looseObject({
  number: idLike,
  tid: idLike,
  type: optText,
  country: optText,
  webhook: optText,
  dlr: optText,
})

const numbersWire = z.looseObject({
  success: z.union([z.literal('1'), z.literal(1)]),
  data: z.array(ownedNumberWire),
})

export type NumberTab = 'all' | 'local' | 'tollfree'

export interface OwnedNumber {
  number: string
  tid: string
  type: string | null
  country: string | null
  webhook: string | null
  dlr: string | null
  /** Lower-cased text of every column, built once so search stays cheap. Digit queries match the raw digits in it. */
  searchText: string
}

export function normaliseNumbers(json: unknown): OwnedNumber[] {
  const wire = parseWire(numbersWire, json)
  // Phone formatting is left to the cells: only the rows on screen are ever formatted.
  return wire.data.map((r) => ({
    number: r.number,
    tid: r.tid,
    type: r.type,
    country: r.country,
    webhook: r.webhook,
    dlr: r.dlr,
    searchText: `${r.number}\u0001${r.tid}\u0001${r.type ?? ''}\u0001${r.country ?? ''}\u0001${r.webhook ?? ''}\u0001${r.dlr ?? ''}`.toLowerCase(),
  }))
}

export async function fetchNumbers(tab: NumberTab, signal?: AbortSignal): Promise<OwnedNumber[]> {
  const json = tab === 'all' ? await postApi('allownednumbers', {}, signal) : await postApi('ownednumbers', { number_type: tab }, signal)
  return normaliseNumbers(json)
}

export const numbersQuery = (tab: NumberTab) =>
  queryOptions({
    queryKey: ['numbers', tab] as const,
    queryFn: ({ signal }) => fetchNumbers(tab, signal),
    staleTime: 60_000,
    // 10,000 rows: deep-comparing them on every refetch costs more than re-rendering.
    structuralSharing: false,
  })
