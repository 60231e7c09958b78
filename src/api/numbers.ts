import { queryOptions, useQuery } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'
import * as z from 'zod/mini'
import { afterPaint } from '../lib/after-paint'
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

/** Answers at least this long (characters of JSON: about 1,700 records) show a preview first. */
const PREVIEW_MIN_TEXT = 256 * 1024
/** How many records a preview holds: more rows than the tallest screen shows at once. */
export const PREVIEW_RECORDS = 60
/** How our server writes a successful listing's start. */
const PREVIEW_HEAD = '{"success":"1","data":['

/**
 * The first `count` records of a listing's JSON text, parsed on their own and checked as
 * `normaliseNumbers` checks them, without parsing the rest: what the numbers table draws while
 * JSON.parse reads the whole answer (15–20 ms for 10,000 records, 1.9 MB, in a fresh page).
 * Null unless the text opens exactly as our server writes a successful listing and its first
 * records are flat objects: anything else waits for the whole answer, as before, and the whole
 * answer is still parsed and checked (a bad record further on is still a bad_response).
 */
export function previewNumbers(text: string, count = PREVIEW_RECORDS): OwnedNumber[] | null {
  if (!text.startsWith(PREVIEW_HEAD)) return null
  const start = PREVIEW_HEAD.length
  let i = start
  let taken = 0
  while (taken < count) {
    // One record: an object of scalars, written without spaces. A brace or bracket outside a string is not one.
    if (text.charCodeAt(i) !== 0x7b) return null
    i++
    let inString = false
    for (; ; i++) {
      if (i >= text.length) return null
      const c = text.charCodeAt(i)
      if (inString) {
        if (c === 0x5c) i++
        else if (c === 0x22) inString = false
      } else if (c === 0x22) inString = true
      else if (c === 0x7d) break
      else if (c === 0x7b || c === 0x5b) return null
    }
    i++
    taken++
    const next = text.charCodeAt(i)
    if (next === 0x5d) break
    if (next !== 0x2c) return null
    i++
  }
  const end = text.charCodeAt(i) === 0x5d ? i : i - 1
  let records: unknown[]
  try {
    records = JSON.parse(`[${text.slice(start, end)}]`) as unknown[]
  } catch {
    return null
  }
  try {
    return normaliseNumbers({ success: '1', data: records })
  } catch {
    return null
  }
}

// The preview of each tab's listing, while its answer is being parsed (useNumbersPreview).
const previews = new Map<NumberTab, OwnedNumber[]>()
const previewListeners = new Set<() => void>()
function setPreview(tab: NumberTab, rows: OwnedNumber[] | null) {
  if ((previews.get(tab) ?? null) === rows) return
  if (rows) previews.set(tab, rows)
  else previews.delete(tab)
  for (const l of previewListeners) l()
}
const subscribePreview = (l: () => void) => {
  previewListeners.add(l)
  return () => previewListeners.delete(l)
}

/**
 * The first records of the tab's listing once its answer has arrived and before it is parsed
 * whole (null otherwise, and for a listing too short to need one): what fetchNumbers shows the
 * table for the frame in between. Only a fetch with no answer yet should draw it.
 */
export function useNumbersPreview(tab: NumberTab): OwnedNumber[] | null {
  return useSyncExternalStore(subscribePreview, () => previews.get(tab) ?? null)
}

/** Resolves in the task after the next painted frame, or after 100 ms where frames wait (a hidden tab). */
function painted(): Promise<void> {
  return new Promise((resolve) => {
    const cancel = afterPaint(() => {
      clearTimeout(timer)
      resolve()
    })
    const timer = setTimeout(() => {
      cancel()
      resolve()
    }, 100)
  })
}

/**
 * A long listing's first records go to the table (useNumbersPreview) and are painted before the
 * whole answer is parsed: on 10,000 numbers the first rows no longer wait for the other 9,940.
 * They are drawn from the answer's start while the rest is still arriving (`whole` false, see
 * readText in ./client), or else from the whole text; either way the parse waits for their frame.
 */
async function showPreview(tab: NumberTab, text: string, whole: boolean) {
  if (!whole) {
    previewListing(tab, text)
    return
  }
  if (previews.has(tab) || (text.length >= PREVIEW_MIN_TEXT && previewListing(tab, text))) await painted()
}

/** Makes the text's first records the tab's preview (useNumbersPreview); false when it has none. */
export function previewListing(tab: NumberTab, text: string): boolean {
  const rows = previewNumbers(text)
  if (rows) setPreview(tab, rows)
  return rows !== null
}

export async function fetchNumbers(tab: NumberTab, signal?: AbortSignal): Promise<OwnedNumber[]> {
  // A preview left by an earlier fetch of the tab is never shown for this one.
  setPreview(tab, null)
  const preview = (text: string, whole: boolean) => showPreview(tab, text, whole)
  const json =
    tab === 'all'
      ? await postApi('allownednumbers', {}, signal, {}, preview)
      : await postApi('ownednumbers', { number_type: tab }, signal, {}, preview)
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
