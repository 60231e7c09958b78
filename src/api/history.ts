import { queryOptions } from '@tanstack/react-query'
import * as z from 'zod/mini'
import { upstreamList } from '../../contract/upstream-values'
import { plainShape, plainValues, readPlain, type PlainValues } from '../../contract/message-fields'
import { parseApiDate } from '../lib/dates'
import { parseStatus, type ParsedStatus } from '../lib/status'
import { optText, parseWire, postApi, postJson } from './client'

/** Message history (spec §2.1, §2.3, §4.1), parsed tolerantly: any message field may be missing or null. */
const intLike = z.pipe(
  z.union([z.number(), z.string().check(z.regex(/^\d+$/))]),
  z.transform((v) => Number(v)),
)

const messageWire = z.looseObject({
  // The plain fields (contract/message-fields.ts), read as the index reads them once here.
  ...plainShape('upstream', optText),
  GMTdate: optText,
  tid: optText,
  phone: optText,
  body: optText,
  mms: optText,
  status: optText,
})

const historyWire = z.looseObject({
  success: z.union([z.literal('1'), z.literal(1)]),
  total_message_count: intLike,
  // Published with a trailing space in the key (field notes); accept either.
  'message_count_requested ': z.optional(intLike),
  message_count_requested: z.optional(intLike),
  created_date: optText,
  most_recent_msg_id: optText,
  most_recent_date: optText,
  tid: optText,
  number: optText,
  optin: optText,
  messages: z.pipe(z.transform(upstreamList), z.array(z.union([messageWire, z.null()]))),
})

/** One record: the plain fields (contract/message-fields.ts: ids, direction, media URL) and those the page reads itself. */
export interface Message extends PlainValues {
  /** Unique within a page even when message_ids repeat: the record position. */
  key: string
  position: number
  date: string | null
  dateMs: number | null
  tid: string | null
  phone: string | null
  body: string | null
  mms: boolean
  status: ParsedStatus
}

export interface HistoryPage {
  number: string | null
  tid: string | null
  optin: string | null
  total: number
  requested: number | null
  createdDate: string | null
  mostRecentId: string | null
  mostRecentDate: string | null
  start: number
  end: number
  messages: Message[]
}

export function normaliseHistory(json: unknown, start: number, end: number): HistoryPage {
  const w = parseWire(historyWire, json)
  const messages: Message[] = []
  w.messages.forEach((m, i) => {
    if (!m) return
    const position = start + i
    messages.push({
      key: `${position}:${m.message_id ?? ''}`,
      position,
      ...plainValues((f) => readPlain(f, m[f.upstream])),
      date: m.GMTdate,
      dateMs: parseApiDate(m.GMTdate),
      tid: m.tid,
      phone: m.phone,
      body: m.body,
      mms: m.mms?.toLowerCase() === 'yes',
      status: parseStatus(m.status),
    })
  })
  return {
    number: w.number,
    tid: w.tid,
    optin: w.optin,
    total: w.total_message_count,
    requested: w['message_count_requested '] ?? w.message_count_requested ?? null,
    createdDate: w.created_date,
    mostRecentId: w.most_recent_msg_id,
    mostRecentDate: w.most_recent_date,
    start,
    end,
    messages,
  }
}

/**
 * Pages fetched ahead of need. The server logs such a request as a prefetch, not a read: the
 * page becomes a `history.view` in the access log when it is shown (`reportShown`).
 */
const prefetched = new WeakMap<HistoryPage, { number: string; tid: string; start: number; end: number }>()

export async function fetchHistory(
  number: string,
  tid: string,
  start: number,
  end: number,
  signal?: AbortSignal,
  prefetch = false,
): Promise<HistoryPage> {
  const params = { number, tid, history_start: String(start), history_end: String(end) }
  const json = await postApi('smshistory', params, signal, prefetch ? { 'x-switchboard-prefetch': '1' } : {})
  const page = normaliseHistory(json, start, end)
  if (prefetch) prefetched.set(page, { number, tid, start, end })
  return page
}

/** Tells the server a prefetched page is now on screen, once; a page fetched to be shown was logged when served. */
export function reportShown(page: HistoryPage): void {
  const request = prefetched.get(page)
  if (!request) return
  prefetched.delete(page)
  postJson('/api/history/shown', request).catch(() => {
    // The page stays on screen; the server already holds the prefetch's entry for these records.
  })
}

/** Keys from general to specific: every page of one number's history sits under `historyKeys.number`. */
export const historyKeys = {
  all: ['history'] as const,
  number: (tid: string, number: string) => [...historyKeys.all, tid, number] as const,
  range: (tid: string, number: string, start: number, end: number) => [...historyKeys.number(tid, number), { start, end }] as const,
}

export const historyQuery = (number: string, tid: string, start: number, end: number) =>
  queryOptions({
    queryKey: historyKeys.range(tid, number, start, end),
    queryFn: ({ signal }) => fetchHistory(number, tid, start, end, signal),
    staleTime: 30_000,
    structuralSharing: false,
  })

/** The same page, fetched ahead of need (logged as a prefetch until `reportShown`). */
export const historyPrefetchQuery = (number: string, tid: string, start: number, end: number) =>
  queryOptions({
    ...historyQuery(number, tid, start, end),
    queryFn: ({ signal }) => fetchHistory(number, tid, start, end, signal, true),
  })
