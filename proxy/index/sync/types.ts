import type { Queryable } from '../../db/types.ts'
import type { Db } from '../../db/types.ts'
import type { Forwarder } from '../../forward.ts'
import type { PageWorker } from './pages.ts'
import type { IndexHooks } from '../hooks.ts'
import type { Pace } from '../../kernel/pace.ts'

export interface SyncOptions {
  db: Db
  forwarder: Forwarder
  pageCap: number
  concurrency: number
  /** Upstream requests per second, 0 = unlimited. */
  rate: number
  /** The server's shared pace (kernel/pace.ts), taken instead of one of `rate` of the sync's own. */
  pace?: Pace
  log?: (line: string) => void
  /** Retries of one request on 5xx/transport errors before the sync stops with an error. */
  maxRetries?: number
  /** Base back-off (ms); doubles per retry. */
  backoffMs?: number
  /** How long a sync's lease lasts without a heartbeat before another server may take it over (ms). */
  leaseMs?: number
  /** How long after a sync gave up on transient failures it is tried again (ms; doubles with each failure in a row). */
  errorRetryMs?: number
  /** A first walk at least this long into an index less than half its size loads in bulk. */
  bulkMin?: number
  /**
   * Rows stored per transaction in a full walk, with its checkpoint; default 10,000. Each batch also
   * writes its roll-ups, body ids and checkpoint and commits (PGlite syncs its log to disk): on the
   * simulator's million, batches of 10,000 stored in 15.7-16.2 s where batches of 5,000 took 17.6-18.4.
   */
  storeRows?: number
  /**
   * A full walk of a history at least this long has its pages parsed and its batches prepared in
   * a worker thread (pages.ts), so the server's thread stays free for requests; default 20,000,
   * Infinity: never. Shorter walks are done on the server's thread, where a thread's start-up
   * would cost more than it saves.
   */
  pageWorkerMin?: number
  /**
   * Keep the support desk's tables (proxy/desk) with each stored batch: on unless a caller says
   * otherwise (the bench syncs without it to measure what it costs).
   */
  desk?: boolean
  /** The rooms that move with the index's stored batches, finished syncs and wipes (rooms.ts hands them in). */
  hooks: IndexHooks
}

export interface SyncRequest {
  number: string
  tid?: string
  /**
   * Started by the index itself (the refresh a history view starts), not asked for by a person:
   * a number an admin forgot is left alone. A person's request indexes it again.
   */
  auto?: boolean
}

/**
 * Where a sync's time goes (bench): waiting for pages (fetch + parse), preparing batches, storing
 * them, vacuuming, the desk's thread recompute. A full walk prepares a batch while the one before
 * is stored (overlappedBatches counts those), so preparing and storing overlap.
 */
export interface SyncStats {
  requests: number
  waitMs: number
  prepareMs: number
  storeMs: number
  overlappedBatches: number
  vacuumMs: number
  deskMs: number
}

/** Overall progress of this server's syncs since it started (the index status shows it). */
export interface SyncProgress {
  /** Messages stored by this server's syncs. */
  messages: number
  /** When the first sync of this server started (ms since the epoch), null before any. */
  since: number | null
}

export interface Syncer {
  /**
   * Queues a sync of one number (full, resumed or incremental as its state says), asked for by
   * name: it goes first in the queue, before the numbers queued in the background.
   */
  request: (req: SyncRequest) => Promise<void>
  /** Queues known numbers in the background (the periodic re-sync), after those already queued. */
  enqueue: (numbers: readonly string[]) => Promise<void>
  /** The tids the account's listing gives a number (one upstream request), or null when it does not list it. */
  listedTids: (number: string) => Promise<string[] | null>
  /** Lists the account's numbers and queues them all. */
  /** Lists the account and queues its numbers; `revive` (default true): numbers an admin forgot too. */
  syncAll: (opts?: { revive?: boolean }) => Promise<number>
  /** syncAll, unless the account was listed before (first start); the numbers listed, or 0. */
  syncAllOnce: () => Promise<number>
  /** Queues the numbers whose sync was queued or running when the server last stopped. */
  resumePending: () => Promise<void>
  /** Stops the sync of one number (or all) and waits for it to let go. */
  stop: (number?: string) => Promise<void>
  /** Resolves when nothing is queued or running (tests, bench). */
  idle: () => Promise<void>
  isBusy: (number: string) => boolean
  /**
   * The last attempt to list the account, when it failed (the upstream down at first start): why
   * and when, for the Index page, until a listing succeeds.
   */
  listingFailure: () => { message: string; at: string } | null
  /** Upstream requests made by this syncer (bench, tests). */
  stats: SyncStats
  progress: SyncProgress
  close: () => Promise<void>
}

/** Why a sync stopped before its end: a value passed up, not an exception. */
export interface Stop {
  /** pause: the upstream refused (waits for a person); fail: gave up; rewalk: the stored history no longer matches; aborted: stopped. */
  kind: 'pause' | 'fail' | 'rewalk' | 'aborted' | 'gone'
  message: string
  /** A re-walk because the upstream's total fell below what is stored: the number it fell from (confirmed before anything is wiped). */
  shrankFrom?: number
}

export type Result<T> = { ok: true; value: T } | { ok: false; stop: Stop }

export const ok = <T>(value: T): Result<T> => ({ ok: true, value })
export const stopped = (kind: Stop['kind'], message: string): { ok: false; stop: Stop } => ({ ok: false, stop: { kind, message } })

/** The upstream's total fell from `from` to `to`: a re-walk, once the fall is confirmed (number.ts). */
export const shrank = (from: number, to: number): { ok: false; stop: Stop } => ({
  ok: false,
  stop: { kind: 'rewalk', message: `the upstream's total went down from ${from} to ${to}`, shrankFrom: from },
})

/** What every part of one server's sync shares. */
export interface SyncContext {
  db: Db
  forwarder: Forwarder
  pageCap: number
  log: (line: string) => void
  maxRetries: number
  backoffMs: number
  bulkMin: number
  storeRows: number
  /** SyncOptions.pageWorkerMin, and the worker, started by the first walk that uses it. */
  pageWorkerMin: number
  pages: PageWorker
  leaseMs: number
  errorRetryMs: number
  /** This syncer's name in the leases it holds. */
  owner: string
  limit: Pace
  stats: SyncStats
  progress: SyncProgress
  /** Bulk loads running in this server: the indexes are rebuilt when the last one ends. */
  bulk: { loads: number }
  /** Whether stored batches keep the desk tables (SyncOptions.desk). */
  desk: boolean
  hooks: IndexHooks
  /** A number's further lines (lines.ts): the tids asked once (number NUL tid), and where a line found goes to be queued. */
  lines: { probed: Set<string>; found: (key: string) => void }
}

/** One number's sync: which number, under which tid, and the signal that stops it. */
export interface Job {
  ctx: SyncContext
  /** The index's key of the line synced (contract/lines.ts): the number, or one of its further lines. */
  number: string
  /** The number asked of the upstream (the key itself, or the number a further line belongs to). */
  upstream: string
  tid: string
  signal: AbortSignal
  /**
   * A staged walk (a re-walk of a short history): its batches are kept here, not stored, and go in
   * after the walk, in one transaction with the wipe of what was stored (store.ts commitStaged).
   */
  stage?: Array<(tx: Queryable) => Promise<number>>
}

export interface NumberRow {
  number: string
  tid: string
  top_ordinal: number
  indexed: number
  full_done: boolean
  cp_next: number | null
  cp_total: number | null
  cp_check: string | null
  newest_msg_id: string | null
  upstream_total: number | null
  other_tids: string[]
  /** A further line's number (contract/lines.ts); null on a number's own row. */
  line_of: string | null
}

/**
 * The abort reason of a sync whose walk goes on later or elsewhere: stopped by a closing server
 * (its next start resumes it), or its lease taken by another server (which walks on).
 */
export const RESUMES = 'the walk resumes later or elsewhere'

export const NUMBER_RE = /^\d{6,15}$/
/** What a sync may be asked for: a number, or a number's further line (contract/lines.ts). */
export { LINE_KEY } from '../../../contract/lines.ts'
