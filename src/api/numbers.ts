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
  // Only "is an array": the records are read one by one below, and z.array() would walk and copy 10,000 of them first.
  data: z.custom<unknown[]>((v) => Array.isArray(v)),
})

function badField(path: string): ApiError {
  return new ApiError('bad_response', `The messaging service's answer is missing or has a bad "${path}".`, 200)
}

/** A required id: a string, or a finite number made one. */
function requiredText(v: unknown, i: number, key: string): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  throw badField(`data.${i}.${key}`)
}

/** An optional field: a string, a finite number made one, or null for null/missing. */
function optionalText(v: unknown, i: number, key: string): string | null {
  if (typeof v === 'string') return v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  if (v === null || v === undefined) return null
  throw badField(`data.${i}.${key}`)
}

/**
 * One record, checked and normalised in place: string or number ids become strings, missing or
 * null optional fields become null. The object is fresh from JSON.parse and ours alone, so it is
 * reused rather than copied (10,000 copies were a third of the garbage made before first paint).
 * Fields are read by name, not through a key list: this runs 10,000 times on cold code, and
 * named reads are what the interpreter does fast. Fields beyond these are left on it, unread.
 */
function readRecord(r: unknown, i: number): OwnedNumber {
  if (typeof r !== 'object' || r === null || Array.isArray(r)) throw badField(`data.${i}`)
  const rec = r as { [K in keyof OwnedNumber]: unknown }
  if (typeof rec.number !== 'string') rec.number = requiredText(rec.number, i, 'number')
  if (typeof rec.tid !== 'string') rec.tid = requiredText(rec.tid, i, 'tid')
  if (typeof rec.type !== 'string') rec.type = optionalText(rec.type, i, 'type')
  if (typeof rec.country !== 'string') rec.country = optionalText(rec.country, i, 'country')
  if (typeof rec.webhook !== 'string') rec.webhook = optionalText(rec.webhook, i, 'webhook')
  if (typeof rec.dlr !== 'string') rec.dlr = optionalText(rec.dlr, i, 'dlr')
  return rec as OwnedNumber
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
  const data = wire.data
  for (let i = 0; i < data.length; i++) data[i] = readRecord(data[i], i)
  return data as OwnedNumber[]
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
