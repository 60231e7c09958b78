/**
 * The callback watch's and the alerts' figures, on PGlite and on a PostgreSQL server in one run:
 *
 *   node --import tsx bench/watch-alerts.mts        (or BENCH_ONLY=watch-alerts npm run bench)
 *
 * The simulator runs in its own process; the server (bench/watch-alerts-server.mts: the server's
 * own composition on the simulator's 10,000-number account) in another; this process drives both
 * over loopback and hosts the callback endpoints (bench/callback-endpoints.mts) and the alerts'
 * webhook receiver. Per engine, the server first syncs the million-message number through the
 * index (the desk kept), then:
 *
 * - a year of the watch (the rooms' clock moved to each listing's date): the big number's webhook
 *   pointed elsewhere for BENCH_WA_BREAK_DAYS every other month, its DLR endpoint failing a day
 *   each month; "messages at risk" for that number read BENCH_WA_READS times (p95 of the route's
 *   server time), and for the whole account;
 * - snapshot diffs: BENCH_WA_CHANGED numbers' webhooks changed in the simulator's listing, then
 *   one listing stored (watch.listNow: the listing fetched, diffed against the stored state, kept);
 * - a listing whose callbacks are BENCH_WA_URLS loopback endpoints, one round of checks of all of
 *   them (default concurrency), while /api/meta is probed; then every rule evaluated
 *   BENCH_WA_EVALS times, and back to back for BENCH_WA_LOAD_S while /api/meta is probed; and
 *   /api/meta probed as long with nothing running, the line it must not move from;
 * - in a second server process on the same data, evaluating every 5 s (ALERT_EVAL_INTERVAL's
 *   floor) on the real clock: BENCH_WA_FIRINGS firings, failure spikes and failing endpoints in
 *   turn, each timed from the condition being met to the notice reaching the webhook.
 *
 * Settings: BENCH_WA_ENGINES (pglite, postgres or both), BENCH_WA_MESSAGES (default 1,000,000;
 * fewer grows number 0 of the account to that size), BENCH_WA_BREAK_DAYS (3), BENCH_WA_URLS
 * (1000), BENCH_WA_HANG (of them, how many never answer: 10), BENCH_WA_ENDPOINT_MS (an endpoint's
 * mean answer time: 100), BENCH_WA_CHANGED (100), BENCH_WA_DIFFS (5), BENCH_WA_READS (20),
 * BENCH_WA_EVALS (10), BENCH_WA_LOAD_S (6), BENCH_WA_FIRINGS (3). Writes .bench/watch-alerts.json;
 * exits 1 when a budget is missed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { call } from '../proxy/testing/access-stack.ts'
import { SECRET, startReceiver, type Receiver } from '../proxy/testing/alert-receivers.ts'
import { LARGE_CREDENTIALS, makeAccount } from '../proxy/simulator/dataset.ts'
import { WATCH_PATHS } from '../contract/watch-api.ts'
import { maskUrl } from '../proxy/watch/mask.ts'
import { startEndpoints, type Endpoints } from './callback-endpoints.mts'
import { engines as enginesFrom, getJson, probeDuring, recorder, startProc, stopProc, whole } from './harness.mts'
import { atMost, median, missed, percentile, writeGroup } from './stats.ts'
import { SERVER_NODE_FLAGS } from '../scripts/server-flags.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SERVER = [...SERVER_NODE_FLAGS, '--import', 'tsx', join(ROOT, 'bench', 'watch-alerts-server.mts')]
const MESSAGES = whole('BENCH_WA_MESSAGES', 1_000_000, 10_000, 1_000_000)
const URLS = whole('BENCH_WA_URLS', 1000, 10, 5000)
const HANG = whole('BENCH_WA_HANG', 10, 0, Math.floor(URLS / 2))
const ENDPOINT_MS = whole('BENCH_WA_ENDPOINT_MS', 100, 0, 2000)
const CHANGED = whole('BENCH_WA_CHANGED', 100, 1, 100)
const DIFFS = whole('BENCH_WA_DIFFS', 5, 1, 50)
const READS = whole('BENCH_WA_READS', 20, 5, 1000)
const EVALS = whole('BENCH_WA_EVALS', 10, 3, 200)
const LOAD_S = whole('BENCH_WA_LOAD_S', 6, 1, 120)
const FIRINGS = whole('BENCH_WA_FIRINGS', 3, 1, 20)
const BREAK_DAYS = whole('BENCH_WA_BREAK_DAYS', 3, 1, 59)
const DAY = 86_400_000
const MIN5 = 5 * 60_000
/** ALERT_EVAL_INTERVAL's floor: the firings' server evaluates this often. */
const EVAL_S = 5
const META = '/api/meta p99 while checks or rules run'
const FIRING = 'a firing reaches the loopback webhook'

const { figures, push } = recorder('watch')
const account = makeAccount(LARGE_CREDENTIALS.sysId, LARGE_CREDENTIALS.authToken, 10_000)
// The million-message number when a million is asked for; else number 0 grown to size.
const big = MESSAGES >= 1_000_000 ? account.numbers[6]! : account.numbers[0]!

interface Server {
  child: Awaited<ReturnType<typeof startProc>>['child']
  url: string
  port: number
  door: string
  /** When it said it was ready (its alerts' evaluation timer started just before). */
  readyAt: number
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const s = await startProc(SERVER, env, /ready (\d+) (\d+)/)
  const port = Number(s.match[1])
  return { child: s.child, url: `http://127.0.0.1:${port}`, port, door: `http://127.0.0.1:${s.match[2]!}`, readyAt: Date.now() }
}

/** One step run in the server's process (bench/watch-alerts-server.mts), with its answer. */
const step = <T,>(s: Server, name: string, q: Record<string, string | number> = {}) =>
  getJson<T>(`${s.door}/__bench/${name}?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}`)

async function simulator(simUrl: string, path: string, body: unknown) {
  const r = await fetch(`${simUrl}/__sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!r.ok) throw new Error(`simulator ${path}: ${r.status} ${await r.text()}`)
}

type Listed = { ms: number; baseline: boolean; changes: number }

/**
 * A year of the watch on the big number (the rooms' clock moved to each listing's date): its
 * webhook pointed elsewhere for BREAK_DAYS every other month and pointed back, each change seen
 * between two listings five minutes apart (WATCH_INTERVAL's default), and its DLR (an address of
 * its own) failing for a day each month, as checks a quarter hour before and a day after bound it.
 */
async function yearOfWatch(s: Server, simUrl: string, newest: number): Promise<Listed[]> {
  const t0 = newest - 365 * DAY
  const bigDlr = 'https://hooks.bench-dlr.example/big'
  const listed: Listed[] = []
  const listAt = async (at: number, webhook?: string | null) => {
    if (webhook !== undefined) await simulator(simUrl, 'quirks', { callbacks: { number: big.number, webhook } })
    await step(s, 'clock', { at })
    listed.push(await step<Listed>(s, 'list'))
  }
  await simulator(simUrl, 'quirks', { callbacks: { number: big.number, dlr: bigDlr } })
  await listAt(t0)
  for (let b = 0; b < 6; b++) {
    const broke = t0 + (b * 60 + 30) * DAY
    await listAt(broke - MIN5)
    // A wrong address of its own each time: with one address every time, the mended months
    // between two breaks read as "pointed elsewhere" too (periods.ts compares a value with its
    // neighbours), and the figure would count messages that were never at risk.
    await listAt(broke, `https://hooks.bench-elsewhere.example/${b}/inbound`)
    await listAt(broke + BREAK_DAYS * DAY - MIN5)
    await listAt(broke + BREAK_DAYS * DAY, null)
  }
  for (let m = 0; m < 12; m++) {
    const down = t0 + (m * 30 + 10) * DAY
    for (const [dt, outcome] of [
      [-15, 'up'],
      [0, 'failing'],
      [24 * 60 - 15, 'failing'],
      [24 * 60, 'up'],
    ] as const)
      await step(s, 'check-at', { url: bigDlr, at: down + dt * 60_000, outcome })
  }
  await step(s, 'clock', { at: newest + 3_600_000 })
  return listed
}

async function atRisk(engine: string, s: Server) {
  const read = async (query: string) => {
    await step(s, 'times', { path: WATCH_PATHS.atRisk })
    let body: { counts: Record<string, number>; periods: unknown[] } | null = null
    for (let i = 0; i < READS + 2; i++) body = await getJson(`${s.url}${WATCH_PATHS.atRisk}?${query}`)
    return { ms: (await step<number[]>(s, 'times', { path: WATCH_PATHS.atRisk })).slice(2), body: body! }
  }
  const one = await read(`number=${big.number}&limit=200`)
  const atRiskCount = one.body.counts[big.number] ?? 0
  if (atRiskCount === 0) throw new Error('no message of the big number is at risk: the year of the watch did not take')
  push({
    engine,
    name: `messages at risk, a year of the ${MESSAGES.toLocaleString('en-US')}-message number: p95 (server)`,
    value: percentile(one.ms, 95),
    unit: 'ms',
    budget: atMost(100),
    note: `median ${median(one.ms).toFixed(1)} ms over ${one.ms.length}; ${atRiskCount.toLocaleString('en-US')} messages at risk in ${one.body.periods.length} periods`,
  })
  const all = await read('limit=200')
  push({
    engine,
    name: 'messages at risk, the whole 10,000-number account: p95 (server)',
    value: percentile(all.ms, 95),
    unit: 'ms',
    note: `median ${median(all.ms).toFixed(1)} ms; ${all.body.periods.length} periods`,
  })
}

/** `CHANGED` numbers' webhooks changed in the simulator's listing, then one listing stored; `DIFFS` times. */
async function snapshotDiffs(engine: string, s: Server, simUrl: string, year: Listed[], from: number): Promise<number> {
  const changed = account.numbers.filter((n) => n !== big).slice(0, CHANGED)
  const runs: Listed[] = []
  let at = from
  // The big number's own DLR given back first (the simulator changes at most 100 numbers), in a listing not timed.
  await fetch(`${simUrl}/__sim/quirks`, { method: 'DELETE' })
  await step(s, 'clock', { at })
  await step(s, 'list')
  for (let run = 1; run <= DIFFS; run++) {
    for (const n of changed)
      // One new address for all of them, as an admin moves numbers to a new endpoint: one alert per address.
      await simulator(simUrl, 'quirks', { callbacks: { number: n.number, webhook: `https://hooks.bench.example/run-${run}/inbound` } })
    at += MIN5
    await step(s, 'clock', { at })
    const r = await step<Listed>(s, 'list')
    if (r.changes !== CHANGED) throw new Error(`a snapshot diff found ${r.changes} changes where ${CHANGED} were made`)
    runs.push(r)
  }
  const baseline = year[0]!
  push({
    engine,
    name: `snapshot diff of the 10,000-number account, ${CHANGED} changed (server)`,
    samples: runs.map((r) => r.ms),
    unit: 'ms',
    budget: atMost(1000),
    note:
      `the listing fetched from the simulator, diffed, stored; the baseline listing ${baseline.ms.toFixed(0)} ms; ` +
      `the year's ${year.length - 1} listings (0 or 1 change): median ${median(year.slice(1).map((r) => r.ms)).toFixed(0)} ms`,
  })
  return at
}

type Round = { ms: number; checked: number; outcomes: Record<string, number>; findings: number }
type Probed<T> = Awaited<ReturnType<typeof probeDuring<T>>>

/** /api/meta's p99 while `what` ran, against the same probe with nothing running. */
function metaRow(engine: string, group: string, what: string, d: Probed<unknown>, idle: number[]) {
  const p99 = percentile(d.probes, 99)
  push({
    engine,
    group,
    name: `/api/meta p99 while ${what}`,
    value: p99,
    unit: 'ms',
    budget: atMost(20),
    family: META,
    note:
      `${d.probes.length} probes; ${(p99 / percentile(idle, 99)).toFixed(2)}× the idle p99 (${percentile(idle, 99).toFixed(1)} ms); ` +
      `event-loop delay max ${d.loop.maxMs.toFixed(0)} ms`,
  })
}

/**
 * A listing whose callbacks are the loopback endpoints, then: /api/meta with nothing running, one
 * round of checks of every URL, every rule evaluated EVALS times, and back to back for LOAD_S.
 */
async function checksAndRules(engine: string, s: Server, ep: Endpoints, at: number, rounds: number[]) {
  await step(s, 'clock', { at: at + 3_600_000 })
  const relisted = await step<{ ms: number; changes: number }>(s, 'relist', { count: URLS, http: ep.bases[0], https: ep.bases[1] })
  // An endpoint's first failed check fires (default: three in a row), so a firing needs one round.
  const rule = await call(s.port, 'POST', '/api/alerts/rules/endpoint-failing', { json: { params: { failures: 1 } } })
  if (rule.status !== 200) throw new Error(`the endpoint-failing rule was not changed: ${rule.status} ${rule.text.slice(0, 200)}`)
  const idle = await probeDuring(s.url, () => sleep(LOAD_S * 1000), s.door)
  push({
    engine,
    name: '/api/meta p99 with nothing running',
    value: percentile(idle.probes, 99),
    unit: 'ms',
    note: `${idle.probes.length} probes; median ${median(idle.probes).toFixed(1)} ms`,
  })
  const round = await probeDuring(s.url, () => step<Round>(s, 'check'), s.door)
  if (round.result.checked !== URLS) throw new Error(`a round checked ${round.result.checked} URLs, not ${URLS}`)
  rounds.push(round.result.ms)
  const outcomes = Object.entries(round.result.outcomes)
    .map(([o, n]) => `${n} ${o}`)
    .join(', ')
  console.log(`    the listing of ${URLS} endpoints stored in ${relisted.ms.toFixed(0)} ms; the first round: ${outcomes}`)
  metaRow(engine, 'watch', `${URLS.toLocaleString('en-US')} URLs are checked`, round, idle.probes)
  const evals: number[] = []
  let first: unknown = null
  for (let i = 0; i < EVALS; i++) {
    const r = await step<{ ms: number[]; decided: unknown }>(s, 'evaluate')
    evals.push(...r.ms)
    first ??= r.decided
  }
  const load = await probeDuring(s.url, () => step<{ ms: number[] }>(s, 'evaluate', { s: LOAD_S }), s.door)
  push({
    engine,
    group: 'alerts',
    name: 'one evaluation of every rule (server)',
    samples: evals,
    unit: 'ms',
    budget: atMost(200),
    note:
      `the first ${evals[0]!.toFixed(0)} ms (${JSON.stringify(first)}); back to back for ${LOAD_S} s: ` +
      `${load.result.ms.length}, median ${median(load.result.ms).toFixed(0)} ms, p95 ${percentile(load.result.ms, 95).toFixed(0)} ms`,
  })
  metaRow(engine, 'alerts', 'every rule is evaluated back to back', load, idle.probes)
}

/** When each notice reached the receiver (polled every 2 ms), and a wait for the first that `match`es. */
function arrivals(receiver: Receiver) {
  const times: number[] = []
  const timer = setInterval(() => {
    while (times.length < receiver.got.length) times.push(Date.now())
  }, 2)
  type Notice = { type: string; rule: string; alerts: Array<{ subject: string }> }
  const wait = async (from: number, match: (n: Notice) => boolean, timeoutMs = 30_000): Promise<number> => {
    const end = Date.now() + timeoutMs
    for (let i = from; Date.now() < end;) {
      if (i < times.length) {
        const n = (JSON.parse(receiver.got[i]!.body) as { data: Notice }).data
        if (match(n)) return times[i]!
        i++
      } else await sleep(5)
    }
    return Number.NaN
  }
  return { wait, mark: () => receiver.got.length, stop: () => clearInterval(timer) }
}

/**
 * In a server evaluating every 5 s on the real clock: failure spikes (as a sync stores one) and
 * failing endpoints (one failed check, found by a round) in turn, each from the condition being
 * met to its firing notice reaching the webhook.
 */
async function firings(engine: string, s: Server, ep: Endpoints, receiver: Receiver, rounds: number[]) {
  const got = arrivals(receiver)
  const spikes: number[] = []
  const failing: number[] = []
  // Each spike is made at its own moment of the evaluation interval (an evaluation and its notice
  // come just after a tick): met just after an evaluation, a condition waits the whole interval.
  let tick = s.readyAt
  const spikeCount = Math.ceil(FIRINGS / 2)
  try {
    for (let i = 0; i < FIRINGS; i++) {
      const from = got.mark()
      if (i % 2 === 0) {
        await sleep(Math.max(0, tick + ((i / 2 + 0.5) / spikeCount) * EVAL_S * 1000 - Date.now()))
        const number = account.numbers[200 + i]!.number
        const { at } = await step<{ at: number }>(s, 'spike', { number })
        const t = await got.wait(
          from,
          (n) => n.type === 'alert.firing' && n.rule === 'failure-spike' && n.alerts.some((a) => a.subject === number),
        )
        spikes.push((t - at) / 1000)
        tick = t
        continue
      }
      ep.fail(i, true)
      await step(s, 'findings')
      const round = await step<Round>(s, 'check')
      rounds.push(round.ms)
      const found = (await step<Array<{ kind: string; url: string | null; at: number }>>(s, 'findings')).find(
        (f) => f.kind === 'endpoint.failing' && f.url === ep.urls[i],
      )
      if (!found) throw new Error(`the round did not find ${ep.urls[i]!} failing`)
      const subject = maskUrl(ep.urls[i]!)
      const t = await got.wait(
        from,
        (n) => n.type === 'alert.firing' && n.rule === 'endpoint-failing' && n.alerts.some((a) => a.subject === subject),
      )
      failing.push((t - found.at) / 1000)
      tick = t
      ep.fail(i, false)
    }
  } finally {
    got.stop()
  }
  const note = (xs: number[], from: string) => `${from}; each ${xs.map((x) => x.toFixed(2)).join(', ')} s; evaluations every ${EVAL_S} s`
  push({
    engine,
    group: 'alerts',
    name: 'failure spike → firing notice at the webhook',
    samples: spikes,
    unit: 's',
    budget: atMost(5),
    family: FIRING,
    note: note(spikes, 'from the spike stored'),
  })
  if (failing.length)
    push({
      engine,
      group: 'alerts',
      name: 'endpoint failing → firing notice at the webhook',
      samples: failing,
      unit: 's',
      budget: atMost(5),
      family: FIRING,
      note: note(failing, 'from the round handing the failed check to alerts'),
    })
}

interface Shared {
  simUrl: string
  ep: Endpoints
  receiver: Receiver
}

async function oneEngine(engine: string, { simUrl, ep, receiver }: Shared) {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-wa-'))
  let env: Record<string, string> = {
    SIM_URL: simUrl,
    DATA_DIR: join(dataDir, 'data'),
    WATCH_ALLOWED_HOSTS: ep.allowed.join(','),
    // The endpoints' CA, trusted as an operator's own CA would be.
    NODE_EXTRA_CA_CERTS: ep.caFile,
    ALERT_WEBHOOK_URL: receiver.url,
    ALERT_WEBHOOK_SECRET: SECRET,
    ALERT_ALLOWED_HOSTS: new URL(receiver.url).host,
  }
  let cluster: { url: string; stop: () => void } | null = null
  let s: Server | null = null
  try {
    if (engine === 'postgres') {
      const { startCluster } = await import('../scripts/pg-cluster.mjs')
      cluster = await startCluster()
      env = { ...env, DATABASE_URL: cluster.url }
    }
    await fetch(`${simUrl}/__sim/quirks`, { method: 'DELETE' })
    // Evaluations only when the bench asks, on a clock it moves: the idle line has nothing running.
    s = await startServer({ ...env, BENCH_WA_CLOCK: 'movable', ALERT_EVAL_INTERVAL: '86400' })
    const synced = await step<{ ms: number; indexed: number; newest: number; numbers: number }>(s, 'sync', {
      number: big.number,
      tid: big.tid,
    })
    if (synced.indexed !== MESSAGES) throw new Error(`the sync indexed ${synced.indexed} of ${MESSAGES} messages`)
    push({
      engine,
      name: `full sync of the ${MESSAGES.toLocaleString('en-US')}-message number (set-up)`,
      value: synced.ms / 1000,
      unit: 's',
      note: `the desk kept; ${synced.numbers.toLocaleString('en-US')} numbers in the index`,
    })
    const year = await yearOfWatch(s, simUrl, synced.newest)
    await atRisk(engine, s)
    const at = await snapshotDiffs(engine, s, simUrl, year, synced.newest + 3_600_000)
    const rounds: number[] = []
    await checksAndRules(engine, s, ep, at, rounds)
    await stopProc(s.child)
    s = null
    s = await startServer({ ...env, ALERT_EVAL_INTERVAL: String(EVAL_S) })
    await firings(engine, s, ep, receiver, rounds)
    push({
      engine,
      name: `a round of checks of ${URLS.toLocaleString('en-US')} distinct callback URLs`,
      samples: rounds.map((ms) => ms / 1000),
      unit: 's',
      budget: atMost(60, 'max'),
      note: `default concurrency; ${HANG} never answer (each waits out the check's timeout), the rest answer in 0–${2 * ENDPOINT_MS} ms; half HTTPS`,
    })
  } finally {
    if (s) await stopProc(s.child)
    cluster?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function main() {
  const engines = enginesFrom('BENCH_WA_ENGINES')
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-wa-endpoints-'))
  const ep = await startEndpoints({ count: URLS, delayMs: ENDPOINT_MS, hang: HANG, dir })
  const receiver = await startReceiver()
  const sim = await startProc(
    ['--import', 'tsx', 'proxy/simulator/main.ts', '0'],
    { SIMULATOR_CONTROL: '1' },
    /listening on (http:\/\/[\d.:]+)/,
  )
  const simUrl = sim.match[1]!
  console.log(`watch-alerts: ${MESSAGES.toLocaleString('en-US')} messages on ${big.number}, 10,000 numbers, ${URLS} callback URLs`)
  try {
    if (MESSAGES > big.baseTotal) await simulator(simUrl, 'messages', { number: big.number, add: MESSAGES - big.baseTotal })
    for (const engine of engines) {
      console.log(`\n${engine}:`)
      const t0 = performance.now()
      await oneEngine(engine, { simUrl, ep, receiver })
      console.log(`    ${engine} took ${((performance.now() - t0) / 1000).toFixed(0)} s`)
    }
  } finally {
    await stopProc(sim.child)
    await receiver.close()
    await ep.close()
    rmSync(dir, { recursive: true, force: true })
  }
  console.log(`\nwritten to ${writeGroup(ROOT, 'watch-alerts', figures, settings())}`)
  const miss = missed(figures)
  if (miss.length) {
    console.log(`\n${miss.length} budget(s) missed: ${miss.join('; ')}`)
    process.exitCode = 1
  }
}

const settings = () => ({ messages: MESSAGES, urls: URLS, hang: HANG, endpointMs: ENDPOINT_MS, changed: CHANGED })

await main().catch((err: unknown) => {
  // The figures taken before the failure still go to the summary, beside the error.
  console.error(err)
  writeGroup(ROOT, 'watch-alerts', figures, settings(), err)
  process.exit(1)
})
