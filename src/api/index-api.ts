import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import * as z from 'zod/mini'
import { INDEX_PATHS, type SearchParams } from '../../contract/index-api'
import { parseStatus } from '../lib/status'
import { getJson, parseWire } from './client'
import { count, freshnessWire, indexKeys, nullableText, WHO } from './index-status'

export { indexKeys, indexStatusQuery, useIndexStatus, type Freshness, type IndexStatus, type NumberIndexStatus } from './index-status'
import type { Message } from './history'

/**
 * The browser side of the message index (contract/index-api.ts). Answers are parsed at the
 * edge like the upstream's, into the app's own types: a row of the index becomes the same
 * `Message` the paged history shows, plus the number and its stable ordinal.
 */

const indexedWire = z.looseObject({
  number: z.string(),
  tid: z.catch(z.string(), ''),
  ordinal: z.number(),
  position: z.catch(z.number(), 0),
  systemId: nullableText,
  messageId: nullableText,
  date: nullableText,
  phone: nullableText,
  direction: nullableText,
  body: nullableText,
  mms: z.catch(z.boolean(), false),
  mediaUrl: nullableText,
  status: nullableText,
  statusCode: z.catch(z.nullable(z.number()), null),
})

export interface IndexedRow extends Message {
  number: string
  ordinal: number
}

export function toRow(m: z.output<typeof indexedWire>): IndexedRow {
  const ms = m.date ? Date.parse(m.date) : NaN
  return {
    key: `${m.number}:${m.ordinal}`,
    number: m.number,
    ordinal: m.ordinal,
    position: m.position,
    systemId: m.systemId,
    messageId: m.messageId,
    date: m.date,
    dateMs: Number.isNaN(ms) ? null : ms,
    tid: m.tid || null,
    phone: m.phone,
    direction: m.direction,
    body: m.body,
    mms: m.mms,
    mediaUrl: m.mediaUrl,
    status: parseStatus(m.status),
  }
}

// ---- search ---------------------------------------------------------------------------------

const searchWire = z.looseObject({
  total: count,
  // More than `total` match: the server stopped counting there (a filter its roll-ups cannot count).
  totalCapped: z.catch(z.boolean(), false),
  rows: z.array(indexedWire),
  nextCursor: nullableText,
  freshness: freshnessWire,
  tookMs: count,
})

export const SEARCH_PAGE = 200

export const searchQuery = (p: SearchParams) =>
  infiniteQueryOptions({
    queryKey: indexKeys.search(p),
    queryFn: async ({ signal, pageParam }) => {
      const w = parseWire(searchWire, await getJson(INDEX_PATHS.search, { ...p, cursor: pageParam, limit: SEARCH_PAGE }, signal), WHO)
      return {
        total: w.total,
        totalCapped: w.totalCapped,
        rows: w.rows.map(toRow),
        nextCursor: w.nextCursor,
        freshness: w.freshness,
        tookMs: w.tookMs,
      }
    },
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    staleTime: 15_000,
  })

// ---- thread and parties ---------------------------------------------------------------------

const threadWire = z.looseObject({
  number: z.string(),
  party: z.string(),
  total: count,
  firstDate: nullableText,
  lastDate: nullableText,
  rows: z.array(indexedWire),
  nextCursor: nullableText,
  freshness: freshnessWire,
  optedOut: z.catch(z.nullable(z.looseObject({ since: nullableText })), null),
})

export const THREAD_PAGE = 100

export const threadQuery = (number: string, party: string) =>
  infiniteQueryOptions({
    queryKey: indexKeys.thread(number, party),
    queryFn: async ({ signal, pageParam }) => {
      const w = parseWire(
        threadWire,
        await getJson(INDEX_PATHS.thread, { number, party, before: pageParam, limit: THREAD_PAGE }, signal),
        WHO,
      )
      return { ...w, rows: w.rows.map(toRow) }
    },
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    staleTime: 15_000,
  })

/** The newest message of the thread with `party` at or before `at` (an ISO instant, e.g. the last millisecond of a day), or null. */
export async function locateInThread(number: string, party: string, at: string, signal?: AbortSignal) {
  const w = parseWire(threadWire, await getJson(INDEX_PATHS.thread, { number, party, at, limit: 1 }, signal), WHO)
  const m = w.rows[0]
  return m ? toRow(m) : null
}

const partiesWire = z.looseObject({
  number: z.string(),
  parties: z.array(z.looseObject({ party: z.string(), count: count, lastDate: nullableText })),
  freshness: freshnessWire,
})

export const partiesQuery = (number: string) =>
  queryOptions({
    queryKey: indexKeys.parties(number),
    queryFn: async ({ signal }) => parseWire(partiesWire, await getJson(INDEX_PATHS.parties, { number }, signal), WHO),
    staleTime: 30_000,
  })

// ---- stats ----------------------------------------------------------------------------------

const statsWire = z.looseObject({
  number: z.catch(z.nullable(z.string()), null),
  bucket: z.catch(z.enum(['day', 'week']), 'day'),
  buckets: z.array(z.looseObject({ day: z.string(), inbound: count, outbound: count, failed: count })),
  freshness: freshnessWire,
})
export type StatsResult = z.output<typeof statsWire>

/** Counts per day or week of the IANA zone `tz` (from and to are days of that zone). */
export const statsQuery = (number: string | null, bucket: 'day' | 'week', from: string, to: string, tz: string) =>
  queryOptions({
    queryKey: indexKeys.stats(number, bucket, from, to, tz),
    queryFn: async ({ signal }) =>
      parseWire(statsWire, await getJson(INDEX_PATHS.stats, { number: number ?? undefined, bucket, from, to, tz }, signal), WHO),
    staleTime: 30_000,
  })

// ---- one message, locate --------------------------------------------------------------------

const messageWire = z.looseObject({ message: indexedWire, total: count, freshness: freshnessWire })

export const messageQuery = (number: string, ordinal: number) =>
  queryOptions({
    queryKey: indexKeys.message(number, ordinal),
    queryFn: async ({ signal }) => {
      const w = parseWire(messageWire, await getJson(INDEX_PATHS.message, { number, ordinal }, signal), WHO)
      return { message: toRow(w.message), total: w.total, freshness: w.freshness }
    },
    staleTime: 60_000,
  })

const locateWire = z.looseObject({ message: z.nullable(indexedWire), total: count, freshness: freshnessWire })

/** The newest message on or before the end of `date` (YYYY-MM-DD, a UTC day), or null. */
/** The newest indexed message at or before `at` (an ISO instant, e.g. the last millisecond of a day in the shown zone). */
export async function locateDate(number: string, at: string, signal?: AbortSignal) {
  const w = parseWire(locateWire, await getJson(INDEX_PATHS.locate, { number, date: at }, signal), WHO)
  return { message: w.message ? toRow(w.message) : null, total: w.total }
}

export function exportUrl(p: SearchParams & { format: 'csv' | 'ndjson'; tz?: string }): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(p)) if (v) q.set(k, v)
  return `${INDEX_PATHS.export}?${q.toString()}`
}
