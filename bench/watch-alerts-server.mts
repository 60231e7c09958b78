/**
 * The watch-alerts group's server (bench/watch-alerts.mts starts it, once per engine and phase):
 * the server as production composes it (proxy/server.ts start() with proxy/rooms.ts openRooms),
 * on the simulator's 10,000-number account, and beside it a door of the bench's own on another
 * loopback port whose paths run one step each in this process and answer with its server time:
 *
 *   /__bench/loop                the event loop's delay since the last read (then restarted)
 *   /__bench/sync?number=&tid=   the index's full sync of the number; the other listed numbers in the index
 *   /__bench/clock?at=ms         the rooms' clock (BENCH_WA_CLOCK=movable only)
 *   /__bench/list                one listing of the account, stored as a snapshot diff (watch.listNow)
 *   /__bench/check-at            one check of `url` stored as found at `at` (the watch's own store)
 *   /__bench/relist              a listing whose callbacks are the bench's loopback endpoints
 *   /__bench/check               one round of checks of every callback URL (watch.checkNow)
 *   /__bench/evaluate            one evaluation of every rule (alerts.evaluate); with `s`, back to back for s seconds
 *   /__bench/spike?number=       a failure spike in the roll-ups, as a sync stores one
 *   /__bench/findings            the watch's findings as its hook saw them, with when
 *   /__bench/times?path=         the handler times of a route (then forgotten)
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseConfig } from '../proxy/config.ts'
import { openRooms, roomsConfigIssues, type Rooms } from '../proxy/rooms.ts'
import { start } from '../proxy/server.ts'
import { LARGE_CREDENTIALS } from '../proxy/simulator/dataset.ts'
import { readListing } from '../proxy/watch/listing.ts'
import { recordCheck } from '../proxy/watch/record-check.ts'
import { recordListing } from '../proxy/watch/record-listing.ts'
import { WATCH_PATHS } from '../contract/watch-api.ts'
import { endpointUrl } from './callback-endpoints.mts'
import { timeRoutes } from './harness.mts'

/** The variables the driver sets for the server, passed on as the server would read them. */
const PASSED = [
  'WATCH_ALLOWED_HOSTS',
  'ALERT_EVAL_INTERVAL',
  'ALERT_ALLOWED_HOSTS',
  'ALERT_WEBHOOK_URL',
  'ALERT_WEBHOOK_SECRET',
  'DATA_DIR',
  'DATABASE_URL',
] as const

const env: Record<string, string | undefined> = {
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_REQUESTS: '0',
  ACCESS: 'local',
  API_BASE_URL: process.env.SIM_URL,
  API_SYS_ID: LARGE_CREDENTIALS.sysId,
  API_AUTH_TOKEN: LARGE_CREDENTIALS.authToken,
  SYNC_RATE: '0',
  INDEX_AUTO_SYNC: 'off',
  // The bench lists and checks when it measures: the schedules would run on their own between.
  WATCH_INTERVAL: '0',
  PROBE_INTERVAL: '0',
  ...Object.fromEntries(PASSED.map((k) => [k, process.env[k]])),
}

const config = parseConfig(env)
const cfg = roomsConfigIssues(env, config)
if (!cfg.config) throw new Error(cfg.issues.join('\n'))
const roomsCfg = cfg.config
/** Movable: the watch's year of listings is stamped with the dates it stands for. */
let clock = Date.now()
const movable = process.env.BENCH_WA_CLOCK === 'movable'
const times = new Map<string, number[]>()
const findings: Array<{ kind: string; url: string | null; at: number }> = []
const log = process.env.BENCH_VERBOSE ? (line: string) => console.error(`[server] ${line}`) : () => {}
let rooms!: Rooms
const running = await start(config, {
  log,
  rooms: async (forwarder) => {
    rooms = await openRooms(roomsCfg, {
      forwarder,
      log,
      ...(movable ? { now: () => clock } : {}),
      onWatchFinding: (f) => findings.push({ kind: f.kind, url: f.url ?? null, at: Date.now() }),
    })
    return { ...rooms, routes: timeRoutes(rooms.routes, (r) => r.path === WATCH_PATHS.atRisk, times) }
  },
})
const db = rooms.db

const timed = async <T,>(work: () => Promise<T>) => {
  const t0 = performance.now()
  const result = await work()
  return { ms: performance.now() - t0, result }
}

async function listed() {
  const res = await running.forwarder.forward('allownednumbers', [])
  const entries = readListing(res.json ?? JSON.parse(res.body.toString('utf8')))
  if (!entries?.length) throw new Error('the simulator listed no numbers')
  return entries
}

const steps: Record<string, (q: URLSearchParams) => Promise<unknown>> = {
  sync: async (q) => {
    const number = q.get('number')!
    const syncer = rooms.index.syncer
    if (!syncer) throw new Error('the index is off')
    // The index's own full sync (the desk kept during it, as a server keeps it): the million rows, their roll-ups and threads.
    const sync = await timed(async () => {
      await syncer.request({ number, tid: q.get('tid')! })
      await syncer.idle()
    })
    const row = (
      await db.query<{ indexed: number; newest: Date }>(
        'SELECT indexed, (SELECT max(date) FROM index_messages WHERE number = $1) AS newest FROM index_numbers WHERE number = $1',
        [number],
      )
    ).rows[0]
    // The account's other numbers as an index that has listed and synced them holds them (their
    // few messages are not fetched: the rules read these rows, not those messages).
    const others = (await listed()).filter((e) => e.number !== number)
    await db.query(
      `INSERT INTO index_numbers (number, tid, listed, state, full_done) SELECT n, t, true, 'idle', true
         FROM unnest($1::text[], $2::text[]) AS u(n, t) ON CONFLICT (number) DO NOTHING`,
      [others.map((e) => e.number), others.map((e) => e.tid)],
    )
    const numbers = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_numbers')).rows[0]!.n
    return { ms: sync.ms, indexed: row?.indexed ?? 0, newest: row ? new Date(row.newest).getTime() : 0, numbers }
  },
  clock: async (q) => {
    if (!movable) throw new Error('the clock moves with BENCH_WA_CLOCK=movable only')
    clock = Number(q.get('at'))
    return { at: clock }
  },
  list: async () => {
    const r = await timed(() => rooms.watch.listNow())
    if ('gap' in r.result) throw new Error(`the listing was a gap: ${r.result.gap}`)
    return { ms: r.ms, baseline: r.result.baseline, changes: r.result.changes.length }
  },
  'check-at': async (q) => {
    const up = q.get('outcome') === 'up'
    const url = q.get('url')!
    await recordCheck(db, {
      url,
      at: new Date(Number(q.get('at'))),
      outcome: up ? 'up' : 'failing',
      failure: up ? null : 'http',
      detail: up ? 'Up: answered 200 in 80 ms.' : 'Failing: answered 503 in 80 ms.',
      status: up ? 200 : 503,
      latencyMs: 80,
      addresses: ['192.0.2.10'],
      tls: null,
      location: null,
    })
    return {}
  },
  relist: async (q) => {
    const count = Number(q.get('count'))
    const [http, https] = [q.get('http')!, q.get('https')!]
    const half = Math.ceil(count / 2)
    // Numbers share endpoints, as an account's do: webhooks on one half of the URLs, DLRs on the other.
    const entries = (await listed()).map((e, i) => ({
      ...e,
      webhook: endpointUrl(i % half, count, http, https),
      dlr: endpointUrl(half + (i % (count - half)), count, http, https),
    }))
    const r = await timed(() => recordListing(db, entries, new Date(movable ? clock : Date.now())))
    return { ms: r.ms, changes: r.result.changes.length }
  },
  check: async () => {
    const r = await timed(() => rooms.watch.checkNow())
    const outcomes: Record<string, number> = {}
    for (const c of r.result.results) outcomes[c.outcome] = (outcomes[c.outcome] ?? 0) + 1
    return { ms: r.ms, checked: r.result.checked, outcomes, findings: r.result.findings.length }
  },
  evaluate: async (q) => {
    const until = performance.now() + Number(q.get('s') ?? 0) * 1000
    const ms: number[] = []
    let last: unknown
    // Bounded: at most one evaluation, or as many as the seconds asked for hold.
    for (let i = 0; i < 100_000 && (i === 0 || performance.now() < until); i++) {
      const r = await timed(() => rooms.alerts.evaluate())
      ms.push(r.ms)
      last = r.result
    }
    return { ms, decided: last }
  },
  spike: async (q) => {
    const at = Date.now()
    // As the lifecycle tests make one: 40 of 100 outbound sends refused in this quarter hour.
    await db.query(
      `INSERT INTO index_quarter_hours (number, slot, inbound, outbound, failed, failed_out) VALUES ($1, $2, 0, 100, 40, 40)
       ON CONFLICT (number, slot) DO UPDATE SET outbound = 100, failed = 40, failed_out = 40`,
      [q.get('number'), new Date(Math.floor(at / 900_000) * 900_000)],
    )
    return { at }
  },
  findings: async () => findings.splice(0),
  times: async (q) => {
    const path = q.get('path')!
    const out = times.get(path) ?? []
    times.delete(path)
    return out
  },
}

const loop = monitorEventLoopDelay({ resolution: 10 })
loop.enable()
const door = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1')
  const name = url.pathname.replace(/^\/__bench\//, '')
  const answer = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  if (name === 'loop') {
    answer(200, { maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6 })
    loop.reset()
    return
  }
  const step = Object.hasOwn(steps, name) ? steps[name] : undefined
  if (!step) return answer(404, { error: `no step ${name}` })
  step(url.searchParams).then(
    (body) => answer(200, body),
    (err: unknown) => answer(500, { error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  )
})
await new Promise<void>((ok) => door.listen(0, '127.0.0.1', ok))
console.log(`ready ${new URL(running.url).port} ${(door.address() as AddressInfo).port}`)
process.on('SIGTERM', () => {
  door.closeAllConnections()
  door.close()
  void running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
})
