import { INDEX_PATHS } from '../../contract/index-api.ts'
import { openDb } from '../db/open.ts'
import { background, type Db } from '../db/types.ts'
import { ProxyError } from '../errors.ts'
import type { Forwarder } from '../forward.ts'
import type { RouteSpec } from '../http-types.ts'
import type { IndexConfig } from './config.ts'
import { createExportGate } from './export.ts'
import { createExportTracker } from './export-progress.ts'
import { HANDLERS, type IndexRoom } from './handlers.ts'
import { createCountCache } from './queries.ts'
import { createRateMeter } from './rate-meter.ts'
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
}

export interface MessageIndex {
  routes: RouteSpec[]
  onHistoryViewed: (number: string, tid: string) => void
  meta: () => Record<string, unknown>
  close: () => Promise<void>
  /** Null with INDEX=off (and no database given). */
  db: Db | null
  /** The sync machinery (tests, bench); null with INDEX=off. */
  syncer: Syncer | null
}

/**
 * The index's rows of the route table: who may call each path and which access-log action its
 * answer records. Whole-history and search-result exports and forgetting are an admin's; viewers
 * export the rows on screen, which the browser writes itself.
 */
const INDEX_ROUTES: ReadonlyArray<Omit<RouteSpec, 'handle' | 'path'> & { key: keyof typeof INDEX_PATHS }> = [
  { key: 'status', method: 'GET', access: 'signed-in', reads: null },
  { key: 'sync', method: 'POST', access: 'signed-in', reads: null },
  { key: 'search', method: 'GET', access: 'signed-in', reads: 'search.view' },
  { key: 'thread', method: 'GET', access: 'signed-in', reads: 'thread.view' },
  { key: 'parties', method: 'GET', access: 'signed-in', reads: 'parties.view' },
  { key: 'stats', method: 'GET', access: 'signed-in', reads: 'stats.view' },
  { key: 'message', method: 'GET', access: 'signed-in', reads: 'message.view' },
  { key: 'locate', method: 'GET', access: 'signed-in', reads: 'history.locate' },
  { key: 'export', method: 'GET', access: 'admin', reads: 'search.export' },
  // Counts and the file's name for the caller's own export (its filters were logged when it started).
  { key: 'exportProgress', method: 'GET', access: 'admin', reads: null },
  { key: 'exportCancel', method: 'POST', access: 'admin', reads: null },
  { key: 'forget', method: 'POST', access: 'admin', reads: null },
]

function indexRoutes(handlerFor: (key: keyof typeof INDEX_PATHS) => RouteSpec['handle']): RouteSpec[] {
  return INDEX_ROUTES.map(({ key, ...r }) => ({ ...r, path: INDEX_PATHS[key], handle: handlerFor(key) }))
}

const OFF_MESSAGE = 'The message index is off (INDEX=off); search needs it.'
/** A number's history view refreshes its sync at most this often. */
const VIEW_REFRESH_MS = 5_000

export async function createIndex(cfg: IndexConfig, deps: IndexDeps): Promise<MessageIndex> {
  const log = deps.log ?? (() => {})
  if (!cfg.enabled) {
    const off = async () => {
      throw new ProxyError(503, { kind: 'index_off', message: OFF_MESSAGE })
    }
    return {
      routes: indexRoutes(() => off),
      onHistoryViewed: () => {},
      meta: () => ({ index: { enabled: false } }),
      close: async () => {},
      db: deps.db ?? null,
      syncer: null,
    }
  }

  const ownDb = !deps.db
  const db = deps.db ?? (await openDb({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl ?? undefined, log }))
  const location = 'location' in db && typeof db.location === 'string' ? db.location : db.engine
  // Sync, index builds and exports wait while requests' statements are queued (PGlite's lanes).
  const bulk = background(db)
  const exportGate = createExportGate({ perUser: cfg.exportsPerUser, total: cfg.exportsMax })
  const syncer = createSyncer({
    db: bulk,
    forwarder: deps.forwarder,
    pageCap: cfg.pageCap,
    concurrency: cfg.syncConcurrency,
    rate: cfg.syncRate,
    log,
    desk: deps.deskDuringSync ?? true,
  })
  // A bulk load cut short leaves the secondary indexes dropped: rebuild them unless a walk is
  // about to resume (it rebuilds them when it ends).
  const pending = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM index_numbers WHERE state IN ('queued', 'syncing')`)
  if ((pending.rows[0]?.n ?? 0) === 0) await ensureIndexes(bulk, log)
  // Syncs that were queued or running when the server stopped continue from their checkpoints;
  // an index that has never listed the account indexes all of it, within SYNC_RATE.
  void syncer
    .resumePending()
    .then(() => (cfg.autoSync ? syncer.syncAllOnce() : undefined))
    .catch((err: unknown) => log(`index: could not resume pending syncs: ${err instanceof Error ? err.message : String(err)}`))
  let interval: NodeJS.Timeout | null = null
  if (cfg.syncIntervalS > 0) {
    interval = setInterval(() => {
      void db
        .query<{ number: string }>(`SELECT number FROM index_numbers WHERE removed_at IS NULL AND (full_done OR state <> 'paused')`)
        .then(async (r) => {
          for (const { number } of r.rows) await syncer.request({ number })
        })
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
    exports: createExportTracker(),
    log,
    autoSync: cfg.autoSync,
    rate: createRateMeter(() => syncer.progress.messages),
  }

  return {
    routes: indexRoutes((key) => (req, res, url, ctx) => HANDLERS[key](room, req, res, url, ctx)),
    onHistoryViewed: (number: string, tid: string) => {
      const n = number.replace(/^\+/, '')
      if (!/^\d{6,15}$/.test(n) || !/^[A-Za-z0-9_-]{1,64}$/.test(tid)) return
      const now = Date.now()
      if (syncer.isBusy(n) || now - (lastViewed.get(n) ?? 0) < VIEW_REFRESH_MS) return
      lastViewed.set(n, now)
      if (lastViewed.size > 50_000) lastViewed.clear()
      void syncer
        .request({ number: n, tid })
        .catch((err: unknown) => log(`index: ${n}: ${err instanceof Error ? err.message : String(err)}`))
    },
    meta: () => ({ index: { enabled: true, engine: db.engine, location } }),
    close: async () => {
      if (interval) clearInterval(interval)
      room.rate.close()
      await syncer.close()
      if (ownDb) await db.close()
    },
    db,
    syncer,
  }
}
