import type { Db } from '../db/types.ts'
import type { Forwarder } from '../forward.ts'
import type { Pace } from '../kernel/pace.ts'
import { ProxyError } from '../errors.ts'
import type { RouteSpec } from '../http-types.ts'
import type { WatchConfig } from './config.ts'
import { readListing } from './listing.ts'
import { maskUrl } from './mask.ts'
import { allowedHostsTest, type ProbeOptions } from './probe.ts'
import { probeAll, type RoundResult } from './probe-all.ts'
import { openProbeThread } from './probe-thread.ts'
import { recordGap } from './record-gap.ts'
import { recordListing, type ListingRecorded } from './record-listing.ts'
import { watchRoutes } from './routes.ts'
import type { OnFinding, WatchFinding } from './types.ts'

/**
 * The callback watch: lists the account's numbers every WATCH_INTERVAL seconds and keeps what
 * changed, checks every callback URL every PROBE_INTERVAL seconds, and answers the Callbacks
 * page. Its timers are unref'd and stop with close(); a listing or round in progress is awaited.
 */

export interface WatchDeps {
  db: Db
  forwarder: Forwarder
  config: WatchConfig
  log?: (line: string) => void
  /** Called with each finding (a callback changed, an endpoint failed or recovered, a certificate nears expiry). */
  onFinding?: OnFinding
  /** The clock changes and checks are stamped with (tests move it). */
  now?: () => number
  /** Certificates the checks trust beside the system's (tests). */
  ca?: ReadonlyArray<string | Buffer>
  /** Name resolution for the checks (tests). */
  lookup?: ProbeOptions['lookup']
  /** The least wait before a scheduled run that is already due (tests shorten it). */
  startDelayMs?: number
  /**
   * The server's upstream pace (kernel/pace.ts), shared with the index's sync: a listing takes its
   * turn within SYNC_RATE. Without it a listing goes at once.
   */
  pace?: Pace
}

export interface Watch {
  routes: RouteSpec[]
  /** One listing now: stored as changes (or the baseline), or as a gap when it fails. */
  listNow: () => Promise<ListingRecorded | { gap: string }>
  /** One round of checks now (joins the round in progress, if any). */
  checkNow: () => Promise<RoundResult>
  meta: () => Record<string, unknown>
  close: () => Promise<void>
}

/** The earliest a scheduled run starts after the server does: start-up has work of its own. */
const START_DELAY_MS = 5_000

export function openWatch(deps: WatchDeps): Watch {
  const log = deps.log ?? ((line: string) => console.error(line))
  const now = deps.now ?? Date.now
  const cfg = deps.config
  const probeOptions: ProbeOptions = {
    timeoutMs: cfg.timeoutMs,
    allowed: allowedHostsTest(cfg.allowedHosts),
    ...(deps.ca ? { ca: deps.ca } : {}),
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
    now,
  }
  // The checks run on a thread of their own, unless a test answers their name lookups (a
  // function, which cannot cross to a thread).
  const thread = deps.lookup ? null : openProbeThread(log)
  const check = thread
    ? (url: string) =>
        thread.check(url, {
          at: now(),
          timeoutMs: cfg.timeoutMs,
          allowedHosts: [...cfg.allowedHosts],
          ...(deps.ca ? { ca: [...deps.ca] } : {}),
        })
    : undefined
  let closed = false
  const stopping = new AbortController()
  const running = new Set<Promise<unknown>>()
  const track = <T>(p: Promise<T>): Promise<T> => {
    running.add(p)
    void p.finally(() => running.delete(p)).catch(() => {})
    return p
  }
  const emit = (findings: WatchFinding[]) => {
    for (const f of findings)
      try {
        deps.onFinding?.(f)
      } catch (err) {
        log(`watch: a finding's hook failed: ${err instanceof Error ? err.message : String(err)}`)
      }
  }

  let listing: Promise<ListingRecorded | { gap: string }> | null = null
  const listOnce = async (minGapMs = 0): Promise<ListingRecorded | { gap: string }> => {
    const at = new Date(now())
    let entries
    try {
      if (deps.pace && !(await deps.pace(stopping.signal))) return { gap: 'the server is stopping' }
      const res = await deps.forwarder.forward('allownednumbers', [])
      entries = readListing(res.json ?? JSON.parse(res.body.toString('utf8')))
    } catch (err) {
      const why = err instanceof ProxyError ? err.body.message : err instanceof Error ? err.message : String(err)
      await recordGap(deps.db, at, why)
      log(`watch: the listing failed (${why}); recorded as a gap`)
      return { gap: why }
    }
    // No `data`, or no numbers at all, is taken for a bad answer (the index does the same), not
    // for an account emptied: a gap rather than "removed" for every number.
    if (!entries || entries.length === 0) {
      const why = entries ? 'the listing named no numbers' : 'the listing answer had no data'
      await recordGap(deps.db, at, why)
      return { gap: why }
    }
    const recorded = await recordListing(deps.db, entries, at, minGapMs)
    const changed = recorded.changes.filter((c) => c.kind === 'webhook' || c.kind === 'dlr')
    emit(
      changed.map((c) => ({
        kind: 'callback.changed' as const,
        number: c.number,
        url: c.to ?? undefined,
        detail: `The ${c.kind} of ${c.number} changed from ${c.from ? maskUrl(c.from) : '(none)'} to ${c.to ? maskUrl(c.to) : '(none)'} between ${recorded.prevAt?.toISOString()} and ${recorded.at.toISOString()}.`,
        at: recorded.at.toISOString(),
      })),
    )
    return recorded
  }
  const listNow = () => (listing ??= track(listOnce().finally(() => (listing = null))))
  // Servers sharing one PostgreSQL each keep the schedule: a listing another stored within half an
  // interval is not stored again (the history would only repeat it).
  const listScheduled = () => (listing ??= track(listOnce((cfg.intervalS * 1000) / 2).finally(() => (listing = null))))

  let round: Promise<RoundResult> | null = null
  const checkNow = () =>
    (round ??= track(
      probeAll(deps.db, { ...probeOptions, concurrency: cfg.concurrency, ...(check ? { check } : {}) })
        .then((r) => {
          emit(r.findings)
          return r
        })
        .finally(() => (round = null)),
    ))

  const timers: NodeJS.Timeout[] = []
  /** Runs `fn` every `everyS` seconds, the first time when the stored history says it is due. */
  const schedule = (everyS: number, lastAt: () => Promise<Date | null>, fn: () => Promise<unknown>, what: string) => {
    if (everyS === 0) return
    const loop = (delay: number) => {
      if (closed) return
      const t = setTimeout(() => {
        fn()
          .catch((err: unknown) => log(`watch: ${what} failed: ${err instanceof Error ? err.message : String(err)}`))
          .finally(() => loop(everyS * 1000))
      }, delay)
      t.unref()
      timers.push(t)
    }
    // With a history, the next run is one interval after the last; a fresh server waits one
    // interval too (an admin's "Check now" takes the baseline at once), so a server started
    // only for a moment never lists or checks.
    lastAt()
      .then((last) =>
        loop(Math.max(deps.startDelayMs ?? START_DELAY_MS, last ? new Date(last).getTime() + everyS * 1000 - now() : everyS * 1000)),
      )
      .catch(() => loop(everyS * 1000))
  }
  schedule(
    cfg.intervalS,
    async () => (await deps.db.query<{ at: Date }>(`SELECT max(at) AS at FROM watch_listings`)).rows[0]?.at ?? null,
    listScheduled,
    'the scheduled listing',
  )
  schedule(
    cfg.probeIntervalS,
    async () => (await deps.db.query<{ at: Date }>(`SELECT max(at) AS at FROM watch_checks`)).rows[0]?.at ?? null,
    checkNow,
    'the scheduled checks',
  )

  return {
    routes: watchRoutes({ db: deps.db, listNow, checkNow, now }),
    listNow,
    checkNow,
    meta: () => ({ watch: { intervalS: cfg.intervalS, probeIntervalS: cfg.probeIntervalS } }),
    close: async () => {
      closed = true
      stopping.abort()
      for (const t of timers) clearTimeout(t)
      await Promise.allSettled([...running])
      await thread?.close()
    },
  }
}

export type { WatchFinding, OnFinding, FindingKind } from './types.ts'
