import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import { INDEX_PATHS, type IndexedMessage, type SearchParams } from '../../contract/index-api'
import { INDEX_ANSWERS } from '../../contract/index-answers'
import { parseStatus } from '../lib/status'
import { plainValues } from '../../contract/message-fields'
import { getJson, parseWire } from './client'
import { indexKeys, WHO } from './index-status'

export type { StatsResult } from '../../contract/index-api'
export { indexKeys, indexStatusQuery, useIndexStatus, type Freshness, type IndexStatus, type NumberIndexStatus } from './index-status'
import type { Message } from './history'

/**
 * The browser side of the message index (contract/index-api.ts). Answers are parsed at the
 * edge with the schemas the server's routes declare (contract/index-answers.ts), into the app's
 * own types: a row of the index becomes the same
 * `Message` the paged history shows, plus the number and its stable ordinal.
 */

export interface IndexedRow extends Message {
  number: string
  ordinal: number
}

export function toRow(m: IndexedMessage): IndexedRow {
  const ms = m.date ? Date.parse(m.date) : NaN
  return {
    key: `${m.number}:${m.ordinal}`,
    number: m.number,
    ordinal: m.ordinal,
    position: m.position,
    ...plainValues((f) => m[f.key]),
    date: m.date,
    dateMs: Number.isNaN(ms) ? null : ms,
    tid: m.tid || null,
    phone: m.phone,
    body: m.body,
    mms: m.mms,
    status: parseStatus(m.status),
  }
}

// ---- search ---------------------------------------------------------------------------------

export const SEARCH_PAGE = 200

export const searchQuery = (p: SearchParams) =>
  infiniteQueryOptions({
    queryKey: indexKeys.search(p),
    queryFn: async ({ signal, pageParam }) => {
      const w = parseWire(
        INDEX_ANSWERS.search,
        await getJson(INDEX_PATHS.search, { ...p, cursor: pageParam, limit: SEARCH_PAGE }, signal),
        WHO,
      )
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

export const THREAD_PAGE = 100

export const threadQuery = (number: string, party: string) =>
  infiniteQueryOptions({
    queryKey: indexKeys.thread(number, party),
    queryFn: async ({ signal, pageParam }) => {
      const w = parseWire(
        INDEX_ANSWERS.thread,
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
  const w = parseWire(INDEX_ANSWERS.thread, await getJson(INDEX_PATHS.thread, { number, party, at, limit: 1 }, signal), WHO)
  const m = w.rows[0]
  return m ? toRow(m) : null
}

export const partiesQuery = (number: string) =>
  queryOptions({
    queryKey: indexKeys.parties(number),
    queryFn: async ({ signal }) => parseWire(INDEX_ANSWERS.parties, await getJson(INDEX_PATHS.parties, { number }, signal), WHO),
    staleTime: 30_000,
  })

// ---- stats ----------------------------------------------------------------------------------

/** Counts per day or week of the IANA zone `tz` (from and to are days of that zone). */
export const statsQuery = (number: string | null, bucket: 'day' | 'week', from: string, to: string, tz: string) =>
  queryOptions({
    queryKey: indexKeys.stats(number, bucket, from, to, tz),
    queryFn: async ({ signal }) =>
      parseWire(INDEX_ANSWERS.stats, await getJson(INDEX_PATHS.stats, { number: number ?? undefined, bucket, from, to, tz }, signal), WHO),
    staleTime: 30_000,
  })

// ---- one message, locate --------------------------------------------------------------------

export const messageQuery = (number: string, ordinal: number) =>
  queryOptions({
    queryKey: indexKeys.message(number, ordinal),
    queryFn: async ({ signal }) => {
      const w = parseWire(INDEX_ANSWERS.message, await getJson(INDEX_PATHS.message, { number, ordinal }, signal), WHO)
      return { message: toRow(w.message), total: w.total, freshness: w.freshness }
    },
    staleTime: 60_000,
  })

/** The newest message on or before the end of `date` (YYYY-MM-DD, a UTC day), or null. */
/** The newest indexed message at or before `at` (an ISO instant, e.g. the last millisecond of a day in the shown zone). */
export async function locateDate(number: string, at: string, signal?: AbortSignal) {
  const w = parseWire(INDEX_ANSWERS.locate, await getJson(INDEX_PATHS.locate, { number, date: at }, signal), WHO)
  return { message: w.message ? toRow(w.message) : null, total: w.total }
}

export function exportUrl(p: SearchParams & { format: 'csv' | 'ndjson'; tz?: string }): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(p)) if (v) q.set(k, v)
  return `${INDEX_PATHS.export}?${q.toString()}`
}
