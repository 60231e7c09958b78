import type { MetaPart } from '../../contract/meta-api.ts'
import { PERMISSIONS } from '../../contract/roles.ts'
import type { z } from 'zod'
import { INDEX_PATHS } from '../../contract/index-api.ts'
import { INDEX_ANSWERS } from '../../contract/index-answers.ts'
import { openDb } from '../db/open.ts'
import { background, type Db } from '../db/types.ts'
import { ProxyError } from '../errors.ts'
import type { Forwarder } from '../forward.ts'
import type { Queryable } from '../db/types.ts'
import { answering, type RequestContext, type RouteSpec } from '../http-types.ts'
import type { OnHistoryServed, PageMeta } from './parse.ts'
import { NO_QUERY } from '../schema.ts'
import type { IndexConfig } from './config.ts'
import type { IndexHooks } from './hooks.ts'
import { createExportGate, type ExportGate } from '../exports/gate.ts'
import { createExportTracker, type ExportTracker } from '../exports/progress.ts'
import * as handlers from './handlers.ts'
import type { Handler, IndexInput, IndexRoom, StreamHandler } from './handlers.ts'
import { createCountCache } from './count-queries.ts'
import { createRateMeter } from './rate-meter.ts'
import type { Pace } from '../kernel/pace.ts'
import { fifo } from '../kernel/fifo.ts'
import {
  EXPORT_CANCEL_BODY,
  EXPORT_PROGRESS_QUERY,
  EXPORT_QUERY,
  FORGET_BODY,
  LOCATE_QUERY,
  MESSAGE_QUERY,
  PARTIES_QUERY,
  SEARCH_QUERY,
  STATS_QUERY,
  STATUS_QUERY,
  SYNC_BODY,
  THREAD_QUERY,
} from './schemas.ts'
import { createSyncer, ensureIndexes, type Syncer } from './sync.ts'

/**
 * The message index as the server sees it: routes under /api/index/ (contract/index-api.ts),
 * the history-viewed trigger, and the sync machinery behind them. With INDEX=off every route
 * answers 503 index_off and nothing is opened.
 */

export interface IndexDeps {
  forwarder: Forwarder
  log?: (line: string) => void
  /** An already opened database to share (team access uses the same one); else one is opened. */
  db?: Db
  /** The sync keeps the support desk's tables (default); false only to measure what that costs (bench). */
  deskDuringSync?: boolean
  /** The rooms that move with the index (the support desk's tables), handed in by rooms.ts. */
  hooks: IndexHooks
  /** The upstream pace shared with the callback watch's listings (rooms.ts); else the sync keeps SYNC_RATE alone. */
  pace?: Pace
  /** The first wait before a failed first listing is tried again (tests; default a minute, doubling up to an hour). */
  listRetryMs?: number
  /** How often a viewed number's history refreshes its sync at most (VIEW_REFRESH_MS; tests). */
  viewRefreshMs?: number
}

export interface MessageIndex {
  routes: RouteSpec[]
  onHistoryViewed: OnHistoryServed
  meta: () => MetaPart
  close: () => Promise<void>
  /** Null with INDEX=off (and no database given). */
  db: Db | null
  /** The sync machinery (tests, bench); null with INDEX=off. */
  syncer: Syncer | null
  /** The limits every export of customer data waits under (the desk's reports too); null with INDEX=off. */
  exportGate: ExportGate | null
  /** Where each export the tray gave an id stands (the desk's reports too); null with INDEX=off. */
  exports: ExportTracker | null
}

/**
 * How many of the index's reads (search, thread, parties, stats, message, locate) run at once; the
 * others wait at the door in the order they came. A read takes two to four statements, and after
 * each it waits for a turn of the event loop behind every other answer the database has sent
 * (db/turns.ts). With all of 50 searchers' reads let in together, a read's time grew with its
 * number of statements (a thread's four: median 191 ms against a search's 123) and the 99th
 * percentile was twice the median. Let in a few at a time, reads go through in order and the
 * wait is spent in one queue (bench/index.mts, 200,000 rows, one run each on this machine:
 * PostgreSQL 369-380 ms without the door, 302 ms with 16; PGlite 399 ms without, 346 with 4, 317
 * with 8). On PostgreSQL, four per connection of its pool.
 */
const READS_PER_CONNECTION_POSTGRES = 4
const READS_AT_ONCE_PGLITE = 8

/**
 * One row of the index's table: the handler runs over the room, or answers 503 with INDEX=off.
 * A JSON row's handler (`run`) gives back its answer, which the row's `response` describes; the
 * export (`stream`) writes its file to the response itself.
 */
function row<Q extends z.ZodType, B extends z.ZodType | undefined = undefined>(
  r: {
    key: keyof typeof INDEX_PATHS
    method: RouteSpec['method']
    access: RouteSpec['access']
    reads: RouteSpec['reads']
    schema: { querystring: Q; body?: B }
  } & ({ run: Handler<Q, B> } | { stream: StreamHandler<Q> }),
): (room: IndexRoom | null) => RouteSpec {
  const open = (room: IndexRoom | null): IndexRoom => {
    if (!room) throw new ProxyError(503, { kind: 'index_off', message: OFF_MESSAGE })
    // The request's statements wait for the database as asked for now (Db.turn): its second one
    // goes ahead of the first ones of requests that came after it.
    const turned = room.db.turn?.(performance.now())
    return turned ? { ...room, db: turned } : room
  }
  return (room) => {
    // A read waits its turn at the door (room.reading), its statements after.
    const run = 'run' in r ? r.run : null
    const go =
      run && r.reads !== null && room
        ? (ctx: RequestContext, input: unknown) => room.reading(() => run(open(room), ctx, input as IndexInput<Q, B>))
        : (ctx: RequestContext, input: unknown) => run!(open(room), ctx, input as IndexInput<Q, B>)
    const handle: RouteSpec['handle'] =
      'run' in r ? answering(go) : (req, res, _url, ctx, input) => r.stream(open(room), req, res, ctx, input as IndexInput<Q>)
    return {
      method: r.method,
      path: INDEX_PATHS[r.key],
      access: r.access,
      reads: r.reads,
      schema: r.schema as RouteSpec['schema'],
      // A JSON row's answer schema (contract/index-answers.ts); the export's answer is a file.
      ...('run' in r ? { response: INDEX_ANSWERS[r.key as Exclude<keyof typeof INDEX_PATHS, 'export'>] } : {}),
      handle,
    }
  }
}

/**
 * The index's rows of the route table: who may call each path, what it takes, and which
 * access-log action its answer records. Whole-history and search-result exports and forgetting
 * are an admin's; viewers export the rows on screen, which the browser writes itself.
 */
const INDEX_ROUTES = [
  row({ key: 'status', method: 'GET', access: 'signed-in', reads: null, schema: { querystring: STATUS_QUERY }, run: handlers.status }),
  row({
    key: 'sync',
    method: 'POST',
    access: 'signed-in',
    reads: null,
    schema: { querystring: NO_QUERY, body: SYNC_BODY },
    run: handlers.sync,
  }),
  row({
    key: 'search',
    method: 'GET',
    access: 'signed-in',
    reads: 'search.view',
    schema: { querystring: SEARCH_QUERY },
    run: handlers.search,
  }),
  row({
    key: 'thread',
    method: 'GET',
    access: 'signed-in',
    reads: 'thread.view',
    schema: { querystring: THREAD_QUERY },
    run: handlers.thread,
  }),
  row({
    key: 'parties',
    method: 'GET',
    access: 'signed-in',
    reads: 'parties.view',
    schema: { querystring: PARTIES_QUERY },
    run: handlers.parties,
  }),
  row({ key: 'stats', method: 'GET', access: 'signed-in', reads: 'stats.view', schema: { querystring: STATS_QUERY }, run: handlers.stats }),
  row({
    key: 'message',
    method: 'GET',
    access: 'signed-in',
    reads: 'message.view',
    schema: { querystring: MESSAGE_QUERY },
    run: handlers.message,
  }),
  row({
    key: 'locate',
    method: 'GET',
    access: 'signed-in',
    reads: 'history.locate',
    schema: { querystring: LOCATE_QUERY },
    run: handlers.locate,
  }),
  row({
    key: 'export',
    method: 'GET',
    access: PERMISSIONS.exportIndex,
    reads: 'search.export',
    schema: { querystring: EXPORT_QUERY },
    stream: handlers.exportMessages,
  }),
  // Counts and the file's name for the caller's own export (its filters were logged when it started).
  // Signed-in, not admin: the tray follows a viewer's desk report exports too, and a record
  // answers only the person who started it (another's id is a 404, as an unknown one).
  row({
    key: 'exportProgress',
    method: 'GET',
    access: 'signed-in',
    reads: null,
    schema: { querystring: EXPORT_PROGRESS_QUERY },
    run: handlers.exportProgress,
  }),
  row({
    key: 'exportCancel',
    method: 'POST',
    access: 'signed-in',
    reads: null,
    schema: { querystring: NO_QUERY, body: EXPORT_CANCEL_BODY },
    run: handlers.exportCancel,
  }),
  row({
    key: 'forget',
    method: 'POST',
    access: PERMISSIONS.forgetMessages,
    reads: null,
    schema: { querystring: NO_QUERY, body: FORGET_BODY },
    run: handlers.forget,
  }),
]

const OFF_MESSAGE = 'The message index is off on this server (INDEX=off).'
/** The first listing's retries: a minute, doubling up to an hour. */
const LIST_RETRY_MS = 60_000
const LIST_RETRY_MAX_MS = 3_600_000

/** A number's history view refreshes its sync at most this often. */
const VIEW_REFRESH_MS = 5_000

/**
 * Whether the index already holds the whole history the served page's envelope describes: the
 * number walked to its end under this tid, idle, nothing forgotten or removed, and its stored top,
 * the upstream total it last saw and the newest message id all what the page says now. Then the
 * view's refresh would fetch the newest record only to find it stored (catch-up.ts, "Nothing
 * new"), and this one statement stands for it, recording the check as the sync's would
 * (last_synced_at). Before, every five seconds a viewed number ran a whole sync for nothing: its
 * lease, a request upstream (counted against the account's rate), a transaction and the release.
 */
async function upToDate(db: Queryable, number: string, tid: string, envelope: PageMeta): Promise<boolean> {
  if (envelope.newestId === null) return false
  const r = await db.query(
    `UPDATE index_numbers SET last_synced_at = now()
      WHERE number = $1 AND tid = $2 AND state = 'idle' AND full_done AND locked_by IS NULL
        AND removed_at IS NULL AND forgotten_at IS NULL
        AND top_ordinal = $3 AND upstream_total = $3 AND indexed = $3 AND newest_msg_id = $4
      RETURNING number`,
    [number, tid, envelope.total, envelope.newestId],
  )
  return r.rows.length > 0
}

export async function createIndex(cfg: IndexConfig, deps: IndexDeps): Promise<MessageIndex> {
  const log = deps.log ?? (() => {})
  if (!cfg.enabled) {
    return {
      routes: INDEX_ROUTES.map((r) => r(null)),
      onHistoryViewed: () => {},
      meta: () => ({ index: { enabled: false } }),
      close: async () => {},
      db: deps.db ?? null,
      syncer: null,
      exportGate: null,
      exports: null,
    }
  }

  const ownDb = !deps.db
  const db =
    deps.db ?? (await openDb({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl ?? undefined, poolSize: cfg.databasePoolSize, log }))
  // Sync, index builds and exports go in the background lane: on PGlite they wait while requests'
  // statements are queued, on PostgreSQL they hold at most their share of the pool.
  const bulk = background(db)
  const exportGate = createExportGate({
    perUser: cfg.exportsPerUser,
    total: cfg.exportsMax,
    queue: cfg.exportsQueue,
    stallMs: cfg.exportStallMs,
  })
  const exports = createExportTracker()
  const syncer = createSyncer({
    db: bulk,
    forwarder: deps.forwarder,
    pageCap: cfg.pageCap,
    concurrency: cfg.syncConcurrency,
    rate: cfg.syncRate,
    ...(deps.pace ? { pace: deps.pace } : {}),
    log,
    desk: deps.deskDuringSync ?? true,
    hooks: deps.hooks,
  })
  if (deps.deskDuringSync ?? true)
    void deps.hooks
      .warm()
      .catch((err: unknown) => log(`desk: could not warm the desk's code: ${err instanceof Error ? err.message : String(err)}`))
  // A bulk load cut short leaves the secondary indexes dropped: rebuild them unless a walk is
  // about to resume (it rebuilds them when it ends).
  const pending = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM index_numbers WHERE state IN ('queued', 'syncing')`)
  if ((pending.rows[0]?.n ?? 0) === 0) await ensureIndexes(bulk, log)
  // Syncs that were queued or running when the server stopped continue from their checkpoints;
  // an index that has never listed the account indexes all of it, within SYNC_RATE.
  // A first listing that fails (the upstream down at first start) is tried again, a minute later
  // and then less often (up to an hour), until one works: it was tried once, and the index stayed
  // empty until someone pressed "Index all numbers".
  let listTimer: NodeJS.Timeout | null = null
  let closed = false
  const listAll = async (attempt: number): Promise<void> => {
    if (closed) return
    try {
      await syncer.syncAllOnce()
    } catch (err) {
      if (closed) return
      const wait = Math.min(LIST_RETRY_MAX_MS, (deps.listRetryMs ?? LIST_RETRY_MS) * 2 ** attempt)
      log(
        `index: could not list the account's numbers (${err instanceof Error ? err.message : String(err)}); trying again in ${Math.round(wait / 1000)} s`,
      )
      listTimer = setTimeout(() => void listAll(attempt + 1), wait)
      listTimer.unref()
    }
  }
  void syncer
    .resumePending()
    .catch((err: unknown) => log(`index: could not resume pending syncs: ${err instanceof Error ? err.message : String(err)}`))
    .then(() => (cfg.autoSync ? listAll(0) : undefined))
  let interval: NodeJS.Timeout | null = null
  if (cfg.syncIntervalS > 0) {
    // Numbers in error are left to the sweep, which retries them with their back-off (dueNumbers):
    // queued here too, an outage was asked again every SYNC_INTERVAL_S.
    interval = setInterval(() => {
      void db
        .query<{ number: string }>(
          `SELECT number FROM index_numbers WHERE removed_at IS NULL AND forgotten_at IS NULL AND state <> 'error' AND (full_done OR state <> 'paused')`,
        )
        .then((r) => syncer.enqueue(r.rows.map(({ number }) => number)))
        .catch((err: unknown) => log(`index: periodic sync failed: ${err instanceof Error ? err.message : String(err)}`))
    }, cfg.syncIntervalS * 1000)
    interval.unref()
  }
  const lastViewed = new Map<string, number>()

  const room: IndexRoom = {
    db,
    bulk,
    syncer,
    count: createCountCache(),
    exportGate,
    exports,
    hooks: deps.hooks,
    log,
    autoSync: cfg.autoSync,
    rate: createRateMeter(() => syncer.progress.messages),
    reading: fifo(db.engine === 'postgres' ? READS_PER_CONNECTION_POSTGRES * (cfg.databasePoolSize || 4) : READS_AT_ONCE_PGLITE),
  }

  return {
    routes: INDEX_ROUTES.map((r) => r(room)),
    onHistoryViewed: (number, tid, envelope) => {
      const n = number.replace(/^\+/, '')
      if (!/^\d{6,15}$/.test(n) || !/^[A-Za-z0-9_-]{1,64}$/.test(tid)) return
      const now = Date.now()
      if (syncer.isBusy(n) || now - (lastViewed.get(n) ?? 0) < (deps.viewRefreshMs ?? VIEW_REFRESH_MS)) return
      lastViewed.set(n, now)
      if (lastViewed.size > 50_000) lastViewed.clear()
      void (envelope ? upToDate(db, n, tid, envelope) : Promise.resolve(false))
        .then((current) => (current ? undefined : syncer.request({ number: n, tid, auto: true })))
        .catch((err: unknown) => log(`index: ${n}: ${err instanceof Error ? err.message : String(err)}`))
    },
    // Public: whether the index is on and its engine, never where its data lives (the directory, or
    // a database's host and name; the start banner and the server's log say that).
    meta: () => ({ index: { enabled: true, engine: db.engine } }),
    close: async () => {
      closed = true
      if (interval) clearInterval(interval)
      if (listTimer) clearTimeout(listTimer)
      room.rate.close()
      await syncer.close()
      if (ownDb) await db.close()
    },
    db,
    syncer,
    exportGate,
    exports,
  }
}
