import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import * as z from 'zod/mini'
import { INDEX_PATHS, type NumberIndexStatus as WireNumberIndexStatus, type SearchParams } from '../../contract/index-api'
import { lineParts } from '../../contract/lines'
import { toE164 } from '../lib/phone'
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
    // The lists stop at 100 names; these are their true sizes (null from an older server).
    syncingCount: z.optional(z.catch(z.nullable(z.number()), null)),
    incompleteCount: z.optional(z.catch(z.nullable(z.number()), null)),
    incompleteSyncingCount: z.optional(z.catch(z.nullable(z.number()), null)),
  }),
  { numbersKnown: 0, numbersComplete: 0, syncing: [], incomplete: [], indexedUpTo: null },
)
export type Freshness = z.output<typeof freshnessWire>

// ---- status ---------------------------------------------------------------------------------

/**
 * The contract's shape, read tolerantly: a state this client does not know stays text, and
 * fields a newer server adds are kept.
 */
export type NumberIndexStatus = Omit<WireNumberIndexStatus, 'state' | 'removed' | 'otherTids' | 'forgottenAt' | 'finding'> & {
  state: string
  /** False when a server leaves it out (one that predates it): nothing is said rather than guessed. */
  removed: boolean
  otherTids: string[]
  /** Null when a server leaves it out, as for a number never forgotten. */
  forgottenAt: string | null
  /** What the last full walk could not follow (the server's words); null: nothing, or a server that predates it. */
  finding: string | null
  [extra: string]: unknown
}

/**
 * A number the index has never read: no messages, no total learnt, never synced. Shown as "not
 * indexed yet", never as 0, which reads as "this number has no messages" (on a large account most
 * numbers are in this state for the first hour).
 */
export function notIndexedYet(n: Pick<NumberIndexStatus, 'indexed' | 'upstreamTotal' | 'lastSyncedAt'>): boolean {
  return n.indexed === 0 && n.upstreamTotal === null && n.lastSyncedAt === null
}

/**
 * The envelope is zod's; the per-number records (one per number of the account: 10,000 on a
 * large one, 2 MB of JSON) are checked in place by `normaliseStatusNumbers`, with the rules a zod
 * schema of them would apply (src/api/index-status.test.ts checks the two agree), in a few
 * milliseconds instead of zod's 18–60 ms: on the numbers page that answer lands while the first
 * rows are being drawn.
 */
const statusWire = z.looseObject({
  enabled: z.catch(z.boolean(), false),
  engine: z.catch(z.string(), ''),
  numbers: z.catch(
    z.custom<unknown[]>((v) => Array.isArray(v)),
    [],
  ),
  freshness: freshnessWire,
  // Null from a server that predates it: the pages then say nothing about it rather than guess.
  autoSync: z.catch(z.nullable(z.boolean()), null),
  accountListed: z.catch(z.nullable(z.boolean()), null),
  accountListingFailure: z.catch(z.nullable(z.object({ message: z.string(), at: z.string() })), null),
  // Only in an answer to `limit`/`match` (a page of the numbers): how many match.
  numbersMatched: z.catch(z.nullable(z.number()), null),
  progress: z.catch(
    z.nullable(
      z.object({
        numbersTotal: count,
        numbersDone: count,
        messages: count,
        messagesTotal: count,
        ratePerSecond: z.catch(z.nullable(z.number()), null),
        secondsLeft: z.catch(z.nullable(z.number()), null),
        running: z.catch(z.boolean(), false),
      }),
    ),
    null,
  ),
})
// zod builds a schema's internals on its first parse: done at load, not when the answer is waiting.
statusWire.safeParse({ enabled: false, numbers: [] })

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
/** Text, a number made text, or null for anything else (optText, caught). */
const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : isNumber(v) ? String(v) : null)

/**
 * Each number's status, normalised in place (the array is fresh from JSON.parse and ours alone):
 * a field of the wrong type takes its default (no tid '', state 'never', counts 0, not removed,
 * no other tids, the rest null: never forgotten); a record that is not an object or has no text `number` makes the whole list empty, as
 * a caught zod array would.
 */
export function normaliseStatusNumbers(list: unknown[]): NumberIndexStatus[] {
  if (!list.every((r) => isRecord(r) && typeof r.number === 'string')) return []
  for (const r of list as Array<Record<string, unknown>>) {
    if (typeof r.tid !== 'string') r.tid = ''
    if (typeof r.state !== 'string') r.state = 'never'
    if (!isNumber(r.indexed)) r.indexed = 0
    if (!isNumber(r.upstreamTotal)) r.upstreamTotal = null
    r.newestDate = textOrNull(r.newestDate)
    r.oldestDate = textOrNull(r.oldestDate)
    r.lastSyncedAt = textOrNull(r.lastSyncedAt)
    r.error = textOrNull(r.error)
    r.forgottenAt = textOrNull(r.forgottenAt)
    r.finding = textOrNull(r.finding)
    if (typeof r.removed !== 'boolean') r.removed = false
    if (!Array.isArray(r.otherTids) || !r.otherTids.every((t) => typeof t === 'string')) r.otherTids = []
    if (r.lineOf !== undefined && typeof r.lineOf !== 'string') delete r.lineOf
    if (r.lineTids !== undefined && !(Array.isArray(r.lineTids) && r.lineTids.every((t) => typeof t === 'string'))) delete r.lineTids
    const p = r.progress
    r.progress = isRecord(p) && isNumber(p.done) && isNumber(p.total) ? { done: p.done, total: p.total } : null
  }
  return sortNumbersAsWritten(list as NumberIndexStatus[])
}

/**
 * In the order people read them: by the number as written ((212) 907-3885 among the 212s), not
 * by the stored text, where a number the account lists with 10 digits sorts after every 1….
 */
export function sortNumbersAsWritten<T extends { number: string }>(list: T[]): T[] {
  // A number's further lines (contract/lines.ts: 18323232323~2) right after it.
  const order = (n: string) => {
    const line = lineParts(n)
    return line ? `${toE164(line.number) ?? line.number}~${line.place}` : (toE164(n) ?? n)
  }
  return list.sort((a, b) => {
    const x = order(a.number)
    const y = order(b.number)
    return x < y ? -1 : x > y ? 1 : a.number < b.number ? -1 : a.number > b.number ? 1 : 0
  })
}

export function parseStatus(json: unknown) {
  const wire = parseWire(statusWire, json, WHO)
  return { ...wire, numbers: normaliseStatusNumbers(wire.numbers) }
}
export type IndexStatus = ReturnType<typeof parseStatus>
export type IndexProgress = NonNullable<IndexStatus['progress']>

export const indexKeys = {
  all: ['index'] as const,
  status: () => [...indexKeys.all, 'status'] as const,
  summary: () => [...indexKeys.all, 'status', 'summary'] as const,
  numberStatus: (number: string) => [...indexKeys.all, 'status', 'number', number] as const,
  numbersPage: (match: string, limit: number) => [...indexKeys.all, 'status', 'page', match, limit] as const,
  search: (p: SearchParams) => [...indexKeys.all, 'search', p] as const,
  thread: (number: string, party: string) => [...indexKeys.all, 'thread', number, party] as const,
  parties: (number: string) => [...indexKeys.all, 'parties', number] as const,
  stats: (number: string | null, bucket: 'day' | 'week', from: string, to: string, tz: string) =>
    [...indexKeys.all, 'stats', number, bucket, from, to, tz] as const,
  message: (number: string, ordinal: number) => [...indexKeys.all, 'message', number, ordinal] as const,
  locate: (number: string, date: string) => [...indexKeys.all, 'locate', number, date] as const,
}

export const indexStatusQuery = () =>
  queryOptions({
    queryKey: indexKeys.status(),
    queryFn: async ({ signal }) => parseStatus(await getJson(INDEX_PATHS.status, {}, signal)),
    staleTime: 10_000,
    // While numbers sync the counts move: poll gently; never when the index is off.
    refetchInterval: (q) => (q.state.data && (q.state.data.freshness.syncing.length > 0 || q.state.data.progress?.running) ? 5_000 : false),
    retry: false,
  })

/**
 * The first `limit` numbers whose digits hold `match` (every number with ''), and how many match:
 * the Index page's table, which shows 100 at a time and waited 3 s for all 10,000 records.
 * Polled as the whole status is; the last page stays on screen while the next is asked for.
 */
export const indexNumbersPageQuery = (match: string, limit: number) =>
  queryOptions({
    queryKey: indexKeys.numbersPage(match, limit),
    queryFn: async ({ signal }) =>
      parseStatus(await getJson(INDEX_PATHS.status, { limit: String(limit), ...(match ? { match } : {}) }, signal)),
    staleTime: 10_000,
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data && (q.state.data.freshness.syncing.length > 0 || q.state.data.progress?.running) ? 5_000 : false),
    retry: false,
  })

/** Running syncs are polled this often by the header's indicator. */
export const SUMMARY_POLL_MS = 3_000
/** With nothing running, the indicator still looks now and then: the server may start on its own. */
export const SUMMARY_IDLE_POLL_MS = 10_000

/**
 * The account's indexing as a whole, without the per-number list (the header asks on every page).
 * Polled while anything runs, and slowly otherwise; never once the index answered that it is off.
 */
export const indexSummaryQuery = () =>
  queryOptions({
    queryKey: indexKeys.summary(),
    queryFn: async ({ signal }) => parseStatus(await getJson(INDEX_PATHS.status, { summary: 'true' }, signal)),
    staleTime: 2_000,
    refetchInterval: (q) => (!q.state.data?.enabled ? false : q.state.data.progress?.running ? SUMMARY_POLL_MS : SUMMARY_IDLE_POLL_MS),
    retry: false,
  })

/** One number's status and freshness (an export waiting for the number's sync asks this). */
export async function fetchNumberStatus(number: string, signal?: AbortSignal) {
  return parseStatus(await getJson(INDEX_PATHS.status, { number }, signal))
}

export function useIndexSummary(enabled = true) {
  const q = useQuery({ ...indexSummaryQuery(), enabled })
  return { available: !!q.data?.enabled, status: q.data, error: q.error, loading: q.isPending && enabled }
}

const NO_NUMBERS: ReadonlyMap<string, NumberIndexStatus> = new Map()

/**
 * The index's state for every number, for pages that show index facts (the numbers table's
 * "messages" and "last activity" columns use `byNumber`). `available` is false when the index
 * is off or not served, so callers fall back to what the upstream alone can do.
 */
export function useIndexStatus() {
  const q = useQuery(indexStatusQuery())
  const data = q.data
  // Built once per answer, not on every render of every page that asks (10,000 entries on a large account).
  // An answer that holds no number keeps the one empty map: the numbers table's rows are built
  // from it, and a new (still empty) map each answer rebuilt and re-rendered every row in view.
  const byNumber = useMemo(() => (data?.numbers.length ? new Map(data.numbers.map((n) => [n.number, n])) : NO_NUMBERS), [data])
  return { available: !!data?.enabled, loading: q.isPending, error: q.error, status: data, byNumber, refetch: q.refetch }
}

/** Whether the index holds the number's whole history (the look-ups that need all of it may use it). */
export function holdsWhole(status: IndexStatus | undefined, number: string, tid?: string): boolean {
  const n = indexRowFor(status, number, tid)
  return n !== undefined && n.indexed > 0 && n.upstreamTotal !== null && n.indexed >= n.upstreamTotal
}

/**
 * The index's row that holds `number`'s history under `tid`: the number's own when it syncs under
 * that tid (or any, without one), else the further line (contract/lines.ts) that does; undefined
 * when the index holds no such history.
 */
export function indexRowFor(status: IndexStatus | undefined, number: string, tid?: string): NumberIndexStatus | undefined {
  if (!status?.enabled) return undefined
  const own = status.numbers.find((x) => x.number === number)
  if (tid === undefined || own === undefined || own.tid === '' || own.tid === tid) return own
  return status.numbers.find((x) => x.lineOf === number && x.tid === tid)
}
