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

/** The files the index's export writes (INDEX_PATHS.export's `format`). */
export type ExportFormat = 'csv' | 'ndjson' | 'xlsx'

/** The answers, described once in zod (contract/index-answers.ts); their types, for the code that only needs those. */
export type {
  DeskExportAction,
  ExportProgress,
  Freshness,
  IndexedMessage,
  IndexProgress,
  IndexStatus,
  LocateResult,
  MessageResult,
  NumberIndexStatus,
  PartiesResult,
  SearchResult,
  StatsBucket,
  StatsResult,
  SyncState,
  ThreadResult,
} from './index-answers.ts'

/** The search's parameters: one per filter key, from the filters' table (search-filters.ts). */
export type { SearchParams } from './search-filters.ts'
