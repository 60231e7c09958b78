import { queryOptions, useQuery } from '@tanstack/react-query'
import * as z from 'zod/mini'
import { ApiError } from './errors'
import { parseWire, postApi } from './client'

/**
 * Owned numbers (spec §2.2, §4.2, §4.3). `country` exists only in the all-numbers listing.
 * The envelope is parsed with zod; the records (10,000 on large accounts) are checked in place by
 * `normaliseNumbers` below, with the same tolerant rules as the zod schemas elsewhere (string or
 * number ids, missing or null optional fields) at a small fraction of the cost: zod was the largest
 * single item between the data arriving and the first rows painting (see README, Performance).
 */
const numbersWire = z.looseObject({
  success: z.union([z.literal('1'), z.literal(1)]),
  // Only "is an array": the records are read one by one below, and z.array() would walk and copy 10,000 of them first.
  data: z.custom<unknown[]>((v) => Array.isArray(v)),
})
// zod builds a schema's internals on its first parse (~1.5 ms): done at load, not when 10,000 rows are waiting.
numbersWire.safeParse({ success: '1', data: [] })

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

function isPlainRecord(r: unknown): r is OwnedNumber {
  if (typeof r !== 'object' || r === null) return false
  const o = r as Record<keyof OwnedNumber, unknown>
  return (
    typeof o.number === 'string' &&
    typeof o.tid === 'string' &&
    typeof o.type === 'string' &&
    typeof o.country === 'string' &&
    typeof o.webhook === 'string' &&
    typeof o.dlr === 'string'
  )
}

/**
 * One record that is not six plain strings, normalised in place: string or number ids become
 * strings, missing or null optional fields become null, anything else is a bad_response naming
 * the field. The object is fresh from JSON.parse and ours alone, so it is reused, not copied.
 */
function fixRecord(r: unknown, i: number): OwnedNumber {
  if (typeof r !== 'object' || r === null || Array.isArray(r)) throw badField(`data.${i}`)
  const rec = r as { [K in keyof OwnedNumber]: unknown }
  rec.number = requiredText(rec.number, i, 'number')
  rec.tid = requiredText(rec.tid, i, 'tid')
  rec.type = optionalText(rec.type, i, 'type')
  rec.country = optionalText(rec.country, i, 'country')
  rec.webhook = optionalText(rec.webhook, i, 'webhook')
  rec.dlr = optionalText(rec.dlr, i, 'dlr')
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
  // The common record is six strings, checked by one predicate over the array, no copy. Array
  // every() with a small callback is the fastest form on cold code (0.8 ms for 10,000 records in
  // Chromium here, against 2.5 ms for the same checks written as a loop). Anything else is fixed.
  if (!data.every(isPlainRecord))
    data.forEach((r, i) => {
      if (!isPlainRecord(r)) data[i] = fixRecord(r, i)
    })
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

/** Whether two phone numbers are one: the same digits, a North American one with or without its leading 1. */
export function sameNumber(a: string, b: string): boolean {
  const x = a.replace(/\D/g, '')
  const y = b.replace(/\D/g, '')
  if (x === '' || y === '') return false
  return x === y || (x.length === 11 && x[0] === '1' && x.slice(1) === y) || (y.length === 11 && y[0] === '1' && y.slice(1) === x)
}

/**
 * The account's own listing of a number (every tid it is listed under), from the cached listing
 * of all numbers: what tells "not in this account" from "not indexed yet". `loading` until the
 * listing has answered; a listing that failed says nothing either way (`failed`).
 */
export function useAccountListing(number: string): { loading: boolean; failed: boolean; entries: OwnedNumber[] } {
  const q = useQuery({ ...numbersQuery('all'), enabled: number !== '' })
  const entries = number === '' ? [] : (q.data ?? []).filter((n) => sameNumber(n.number, number))
  return { loading: number !== '' && q.isPending && q.fetchStatus !== 'idle', failed: q.isError, entries }
}
