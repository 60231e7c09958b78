import { queryOptions } from '@tanstack/react-query'
import * as z from 'zod/mini'
import { ApiError } from './errors'
import { parseWire, postApi } from './client'

/**
 * Owned numbers (spec §2.2, §4.2, §4.3). `country` exists only in the all-numbers listing.
 * The envelope is parsed with zod; the records (10,000 on large accounts) are read by `readRecord`
 * below, which applies the same tolerant rules as the zod schemas elsewhere (string or number
 * ids, missing or null optional fields) at a tenth of the cost: zod was the largest single item
 * between the data arriving and the first rows painting (see README, Performance).
 */
const numbersWire = z.looseObject({
  success: z.union([z.literal('1'), z.literal(1)]),
  data: z.array(z.unknown()),
})

function badField(path: string): ApiError {
  return new ApiError('bad_response', `The messaging service's answer is missing or has a bad "${path}".`, 200)
}

function field(record: object, key: string, index: number, required: boolean): string | null {
  const v: unknown = Reflect.get(record, key)
  if (typeof v === 'string') return v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  if ((v === null || v === undefined) && !required) return null
  throw badField(`data.${index}.${key}`)
}

function readRecord(r: unknown, i: number): OwnedNumber {
  if (typeof r !== 'object' || r === null || Array.isArray(r)) throw badField(`data.${i}`)
  return {
    number: field(r, 'number', i, true) ?? '',
    tid: field(r, 'tid', i, true) ?? '',
    type: field(r, 'type', i, false),
    country: field(r, 'country', i, false),
    webhook: field(r, 'webhook', i, false),
    dlr: field(r, 'dlr', i, false),
  }
}

export type NumberTab = 'all' | 'local' | 'tollfree'

export interface OwnedNumber {
  number: string
  tid: string
  type: string | null
  country: string | null
  webhook: string | null
  dlr: string | null
}

export function normaliseNumbers(json: unknown): OwnedNumber[] {
  const wire = parseWire(numbersWire, json)
  // Phone formatting is left to the cells (only rows on screen are formatted), search text to the first search.
  return wire.data.map(readRecord)
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
