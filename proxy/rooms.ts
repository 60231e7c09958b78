import type { MetaPart } from '../contract/meta-api.ts'
import { checkExposure, parseAccessConfig, type AccessConfig } from './access/config.ts'
import { createAccess, type Access } from './access/access.ts'
import { accessOnOpen } from './access/on-open.ts'
import { keyPlacementProblem } from './access/signed-heads.ts'
import { parseAlertsConfig, type AlertsConfig } from './alerts/config.ts'
import { createAlerts, type Alerts } from './alerts/room.ts'
import type { Config } from './config.ts'
import { openDb } from './db/open.ts'
import { refreshAllDesk } from './desk/refresh.ts'
import { deskIndexHooks } from './desk/index-hooks.ts'
import { deskRoutes } from './desk/routes.ts'
import type { Db } from './db/types.ts'
import type { Forwarder } from './forward.ts'
import type { AccessGate, RouteSpec } from './http-types.ts'
import type { OnHistoryServed } from './index/parse.ts'
import { parseIndexConfigResult, type IndexConfig } from './index/config.ts'
import { dataVersion, newMatches } from './index/count-queries.ts'
import { createIndex, type MessageIndex } from './index/routes.ts'
import { addressProblem } from './kernel/outbound-address.ts'
import { viewsRoutes } from './views/routes.ts'
import { parseWatchConfig, type WatchConfig } from './watch/config.ts'
import { openWatch, type OnFinding, type Watch } from './watch/watch.ts'
import { maskUrl } from './watch/mask.ts'
import { createLimiter } from './kernel/pace.ts'
import { createServedMedia, servedMediaIn, storedMedia, type KnownMedia, type ServedMedia } from './media/locate.ts'

/**
 * The rooms behind the upstream proxy: one database (PGlite under DATA_DIR, or DATABASE_URL),
 * the message index on it and team access on it. server.ts and the e2e stack compose them the
 * same way through here.
 */

export interface RoomsConfig {
  index: IndexConfig
  access: AccessConfig
  watch: WatchConfig
  alerts: AlertsConfig
}

/** Every problem with the rooms' variables, one line each naming its variable (empty when fine). */
export function roomsConfigIssues(
  env: Record<string, string | undefined>,
  config: Config | null,
): { config: RoomsConfig | null; issues: string[] } {
  const index = parseIndexConfigResult(env)
  const access = parseAccessConfig(env)
  const watch = parseWatchConfig(env)
  const alerts = parseAlertsConfig(env, addressProblem)
  const issues = [
    ...index.issues.map((i) => (i.message.includes(i.variable) ? i.message : `${i.variable}: ${i.message}`)),
    ...access.issues,
    ...watch.issues,
    ...alerts.issues,
  ]
  // The mode as ACCESS says it even when another access variable is wrong: the refusal is one of
  // "every problem at once", not one that appears only after the others are mended.
  const mode = access.ok ? access.config.mode : (env.ACCESS ?? '') === '' ? 'local' : env.ACCESS
  if (config && mode === 'local') {
    const exposed = checkExposure(config.host, mode)
    if (exposed) issues.push(exposed)
  }
  // The signing key vouches for the log only from outside the data it could be edited beside.
  const keyFile = access.ok ? access.config.logSigningKeyFile : null
  const keyProblem = keyFile ? keyPlacementProblem(keyFile, index.config?.dataDir ?? null) : null
  if (keyProblem) issues.push(keyProblem)
  if (issues.length || !index.config || !access.ok || !watch.config || !alerts.config) return { config: null, issues }
  return { config: { index: index.config, access: access.config, watch: watch.config, alerts: alerts.config }, issues: [] }
}

export interface Rooms {
  db: Db
  index: MessageIndex
  access: Access
  /** The callback watch (proxy/watch/): listings kept as history, endpoint checks, messages at risk. */
  watch: Watch
  /** Alerts out; the callback watch's findings go to `alerts.onWatchFinding`. */
  alerts: Alerts
  routes: RouteSpec[]
  /** The index's refresh of a number whose history was just served. */
  onHistoryServed: OnHistoryServed
  /** The index's message media by number and ordinal (null with the index off): what /api/media may serve. */
  storedMedia: ((number: string, ordinal: number) => Promise<KnownMedia | undefined>) | null
  /** The media of the history pages each sign-in was served, shared by every server on the database. */
  servedMedia: ServedMedia
  gate: AccessGate
  meta: () => MetaPart
  /** The desk's catch-up with what is already indexed, started with the rooms (it never rejects). */
  deskCaughtUp: Promise<void>
  close: () => Promise<void>
}

export async function openRooms(
  cfg: RoomsConfig,
  deps: {
    forwarder: Forwarder
    log?: (line: string) => void
    /** Team access's clock; the e2e stack moves it to expire sessions. */
    now?: () => number
    /** The sync keeps the desk's tables (default); false only to measure what that costs (bench). */
    deskDuringSync?: boolean
    /** The callback watch's findings (a callback changed, an endpoint failing or back, a certificate near expiry). */
    onWatchFinding?: OnFinding
  },
): Promise<Rooms> {
  const log = deps.log ?? ((line: string) => console.error(line))
  // One database for both rooms. Users, sessions and the access log live there even with INDEX=off.
  const db = await openDb({
    dataDir: cfg.index.dataDir,
    databaseUrl: cfg.index.databaseUrl ?? undefined,
    poolSize: cfg.index.databasePoolSize,
    log,
    onOpen: [accessOnOpen],
  })
  let index: MessageIndex | undefined
  try {
    const desk = deps.deskDuringSync ?? true
    // One pace for every request the server makes on its own (a sync's pages and listings, the
    // watch's listings): together they keep to SYNC_RATE.
    const pace = createLimiter(cfg.index.syncRate)
    // Servers on one PostgreSQL share the ledger of the media their pages showed; a PGlite
    // directory has one server, which keeps it in memory (a write per page costs its latency).
    const servedMedia = db.engine === 'postgres' ? servedMediaIn(db) : createServedMedia()
    // A person's forget also takes the media the served pages showed of the number; a re-walk
    // (keepHandled) is not a forget.
    const indexHooks: typeof deskIndexHooks = {
      ...deskIndexHooks,
      forgetting: async (tx, number, opts) => {
        await deskIndexHooks.forgetting(tx, number, opts)
        if (!opts?.keepHandled) await servedMedia.forgetting(tx, number)
      },
    }
    index = await createIndex(cfg.index, { forwarder: deps.forwarder, db, log, deskDuringSync: desk, hooks: indexHooks, pace })
    const access = createAccess(cfg.access, { db, log, now: deps.now })
    const alerts = createAlerts(cfg.alerts, {
      db,
      log,
      now: deps.now,
      verifyLog: access.verifyLog,
      // The access log's signed head for the witness channels (null without LOG_SIGNING_KEY_FILE).
      latestSignedHead: access.latestSignedHead,
      addressProblem,
    })
    const watch = openWatch({
      db,
      forwarder: deps.forwarder,
      config: cfg.watch,
      log,
      pace,
      ...(deps.now ? { now: deps.now } : {}),
      // What the watch finds reaches alerts, its address masked (a token in a query is a secret), and a test's own hook.
      onFinding: (f) => {
        void alerts.onWatchFinding(f.url ? { ...f, url: maskUrl(f.url) } : f)
        deps.onWatchFinding?.(f)
      },
    })
    const idx = index
    // The desk tables catch up with what is already indexed (new tables over an old index, or a stop mid-sync).
    const deskCaughtUp =
      index.db && index.syncer && desk
        ? refreshAllDesk(index.db, log).then(
            () => undefined,
            (err: unknown) => log(`desk: catch-up failed: ${err instanceof Error ? err.message : String(err)}`),
          )
        : Promise.resolve()
    const gate: AccessGate = {
      identify: access.identify,
      routes: access.routes,
      clientAddress: access.clientAddress,
      audit: access.audit,
      recordRead: access.recordRead,
    }
    return {
      db,
      index,
      access,
      watch,
      alerts,
      routes: [
        ...index.routes,
        ...deskRoutes(index.syncer ? index.db : null, index.exportGate, index.exports),
        ...viewsRoutes(db, { search: index.syncer !== null ? { newMatches, dataVersion } : null, now: deps.now }),
        ...watch.routes,
        ...alerts.routes,
      ],
      onHistoryServed: idx.onHistoryViewed,
      storedMedia: index.syncer && index.db ? storedMedia(index.db) : null,
      servedMedia,
      gate,
      meta: () => ({ ...idx.meta(), ...access.meta(), ...alerts.meta() }),
      deskCaughtUp,
      close: async () => {
        await watch.close()
        await alerts.close()
        await idx.close()
        await access.close()
        await db.close()
      },
    }
  } catch (err) {
    await index?.close().catch(() => {})
    await db.close().catch(() => {})
    throw err
  }
}
