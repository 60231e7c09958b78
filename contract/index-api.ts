/**
 * The message index's HTTP API (served by proxy/index/routes.ts, called by src/api/index-*.ts).
 *
 * Reads are GET with a query string, so results and exports are plain links; changes are POST
 * with a JSON body. Every path answers errors as `{ error: ErrorBody }` (contract/api.ts).
 * With INDEX=off every path answers 503 `{ error: { kind: 'index_off' } }`.
 *
 * Dates on the wire are ISO 8601 UTC strings with a Z (`2026-11-21T12:04:00Z`). Query
 * parameters named `from`/`to` accept `YYYY-MM-DD` (a whole UTC day: `to` is inclusive) or a
 * full ISO timestamp.
 */

import type { ErrorBody } from './api.ts'

export const INDEX_PATHS = {
  /**
   * GET {number?, summary?: 'true', limit?: 1–10,000, match?: digits} → IndexStatus (one number's
   * record and freshness; or no per-number list; or the first `limit` numbers matching, and how many match)
   */
  status: '/api/index/status',
  /** POST {number?: string, tid?: string, all?: boolean} → 202 IndexStatus. Starts/refreshes syncs. */
  sync: '/api/index/sync',
  /** GET SearchParams & {cursor?, limit?} → SearchResult */
  search: '/api/index/search',
  /** GET {number, party, before?: cursor, limit?} → ThreadResult (newest first; older via nextCursor) */
  thread: '/api/index/thread',
  /** GET {number, party?} → PartiesResult: the other parties of a number, with counts */
  parties: '/api/index/parties',
  /** GET {number?, bucket: 'day'|'week', from?, to?, tz?: IANA zone (days of that zone; UTC without)} → StatsResult */
  stats: '/api/index/stats',
  /** GET {number, ordinal} → MessageResult */
  message: '/api/index/message',
  /** GET {number, date: YYYY-MM-DD (a UTC day) or an ISO instant} → LocateResult: the newest message at or before the end of that day, or at or before that instant */
  locate: '/api/index/locate',
  /**
   * GET SearchParams & {format: 'csv'|'ndjson'|'xlsx', tz?: IANA zone, job?: an id the browser chose} →
   * streamed file (Content-Disposition: attachment names it), for the browser's download manager.
   */
  export: '/api/index/export',
  /** GET {job} → ExportProgress: how far the caller's export with that id has come, or how it ended */
  exportProgress: '/api/index/export/progress',
  /** POST {job} → ExportProgress: stops the caller's export (the download ends unfinished) */
  exportCancel: '/api/index/export/cancel',
  /** POST {number?: string, all?: boolean} → {forgotten: number} */
  forget: '/api/index/forget',
} as const

/**
 * One export's progress as the server streams it. `rows`/`bytes` count what was written to the
 * connection; `total` is the count of matches taken when it started (null until then);
 * `error` (state failed) is the one envelope's body.
 */
/** The support desk's report exports, which the tray follows as it follows the index's (their access-log actions). */
export const DESK_EXPORT_ACTIONS = ['needs-reply.export', 'opt-outs.export', 'sent-after-opt-out.export', 'quiet-hours.export'] as const
export type DeskExportAction = (typeof DESK_EXPORT_ACTIONS)[number]

/** The files the index's export writes (INDEX_PATHS.export's `format`). */
export type ExportFormat = 'csv' | 'ndjson' | 'xlsx'

export interface ExportProgress {
  job: string
  /** `queued`: waiting for one of the server's export slots (EXPORTS_MAX, EXPORTS_PER_USER); it starts by itself. */
  state: 'queued' | 'running' | 'done' | 'cancelled' | 'failed'
  rows: number
  bytes: number
  total: number | null
  fileName: string | null
  /** What it exports, in the access log's words (contract/vocabulary.ts); null until it has started. */
  action?: 'history.export' | 'search.export' | DeskExportAction
  startedAt: string
  /** State queued: 1 is next in line; the seconds until it should start, from the running exports' pace (null until they have one). */
  queue?: { position: number; startsInS: number | null }
  /** State cancelled: by the person (Cancel in the tray), or by the browser (its downloads list, a dropped connection). */
  cancelledBy?: 'you' | 'browser'
  error?: ErrorBody
}

export type SyncState = 'never' | 'queued' | 'syncing' | 'idle' | 'paused' | 'error'

export interface NumberIndexStatus {
  number: string
  tid: string
  state: SyncState
  /** Messages held in the index for this number. */
  indexed: number
  /** The upstream's total at the last sync. */
  upstreamTotal: number | null
  newestDate: string | null
  oldestDate: string | null
  lastSyncedAt: string | null
  /** Why a sync stopped or paused, in words. */
  error: string | null
  /** While syncing: records fetched so far of the total. */
  progress: { done: number; total: number } | null
  /** The account's listing no longer has this number: its messages stay until forgotten, never reported fresh. */
  removed?: boolean
  /** Other tids the account lists for the same number (a finding: the listing names it twice). */
  otherTids?: string[]
  /**
   * When an admin forgot its messages: the index leaves it alone (no periodic re-sync, no refresh
   * when its history is viewed) until someone syncs it or presses "Index all". Absent from older servers.
   */
  forgottenAt?: string | null
  /** What the last full walk found that the index could not follow (a total that counts more or fewer than the history serves); null: nothing. */
  finding?: string | null
}

export interface Freshness {
  /** Numbers the index knows of (the account's numbers once listed) and how many are fully indexed. */
  numbersKnown: number
  numbersComplete: number
  /** Numbers whose sync is queued or running. */
  syncing: string[]
  /** Numbers in scope of this answer that are not fully indexed (never synced, partial, error). */
  incomplete: string[]
  /** The oldest last-sync time among the numbers in scope: "indexed up to". */
  indexedUpTo: string | null
  /**
   * The true sizes of the two lists above, which stop at 100 names: on a 10,000-number account a
   * list's length is no count. `incompleteSyncingCount`: numbers in both (not fully indexed, and
   * being indexed now). Absent from older servers.
   */
  syncingCount?: number
  incompleteCount?: number
  incompleteSyncingCount?: number
}

export interface IndexStatus {
  enabled: boolean
  engine: 'pglite' | 'postgres'
  /** Whether the server indexes every number of the account on its own (INDEX_AUTO_SYNC); absent from older servers. */
  autoSync?: boolean
  /** Whether the account's list of numbers has been read; until then the index knows only the numbers someone opened. */
  accountListed?: boolean
  /** The last attempt to list the account failed (why, when); null once one works. Absent from older servers. */
  accountListingFailure?: { message: string; at: string } | null
  /**
   * Every number the index knows (only the one asked for with `number`; none with `summary=true`;
   * with `limit` and `match`, the first `limit` in number order whose digits hold `match`).
   */
  numbers: NumberIndexStatus[]
  /** With `limit` or `match`: how many numbers match, of which `numbers` holds the first. */
  numbersMatched?: number
  freshness: Freshness
  /** Overall progress of indexing the account (absent from servers that predate it). */
  progress?: IndexProgress
}

export interface IndexProgress {
  /** Numbers of the account (not removed from it) and how many of them are fully indexed. */
  numbersTotal: number
  numbersDone: number
  /** Messages held, and the upstream's totals as last seen (the goal). */
  messages: number
  messagesTotal: number
  /** Messages stored per second by this server's syncs over the last half minute; null when none were. */
  ratePerSecond: number | null
  /** At that rate, the time to index what is left; null when unknown or nothing is left. */
  secondsLeft: number | null
  /** Whether a sync is queued or running. */
  running: boolean
}

/** The search's parameters: one per filter key, from the filters' table (search-filters.ts). */
export type { SearchParams } from './search-filters.ts'

export interface IndexedMessage {
  number: string
  tid: string
  /** 1 = the oldest message of the number; stable as new messages arrive. */
  ordinal: number
  /** The record's current 1-based position counted from the newest (as the upstream pages it). */
  position: number
  systemId: string | null
  messageId: string | null
  /** ISO 8601 UTC. */
  date: string | null
  phone: string | null
  direction: string | null
  body: string | null
  mms: boolean
  mediaUrl: string | null
  /** The raw status text as the upstream sent it. */
  status: string | null
  statusCode: number | null
}

export interface SearchResult {
  /**
   * Count of all matches of the query: exact, unless `totalCapped`, when counting stopped there
   * (a broad filter no roll-up counts) and more than `total` messages match.
   */
  total: number
  /** `total` is a lower bound: more than `total` match. */
  totalCapped: boolean
  rows: IndexedMessage[]
  /** Opaque keyset cursor for the next (older) page; null at the end. */
  nextCursor: string | null
  freshness: Freshness
  tookMs: number
}

export interface ThreadResult {
  number: string
  party: string
  total: number
  firstDate: string | null
  lastDate: string | null
  /** Newest first. */
  rows: IndexedMessage[]
  nextCursor: string | null
  freshness: Freshness
  /** The support desk's opt-out state of this party on this number, on the first page: null when not opted out (or the desk has none). */
  optedOut?: { since: string | null } | null
}

export interface PartiesResult {
  number: string
  parties: Array<{ party: string; count: number; lastDate: string | null }>
  freshness: Freshness
}

export interface StatsBucket {
  /** YYYY-MM-DD (the bucket's first day, UTC). */
  day: string
  inbound: number
  outbound: number
  failed: number
}

export interface StatsResult {
  number: string | null
  bucket: 'day' | 'week'
  /** The zone whose days (and Monday-first weeks) the buckets are: the request's tz, or UTC. */
  timeZone: string
  buckets: StatsBucket[]
  freshness: Freshness
}

export interface MessageResult {
  message: IndexedMessage
  /** The number's total indexed messages, so the UI can place the message in the paged history. */
  total: number
  freshness: Freshness
}

export interface LocateResult {
  /** The message found (newest message of that day or, if none, the newest before it), or null. */
  message: IndexedMessage | null
  total: number
  freshness: Freshness
}
