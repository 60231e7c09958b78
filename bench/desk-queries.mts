/**
 * What the support desk costs, on PGlite and on a PostgreSQL server in one run:
 *
 *   node --import tsx bench/desk-queries.mts        (or BENCH_ONLY=desk npm run bench)
 *
 * - The full sync of one large history (BENCH_MESSAGES, default 1,000,000: the simulator's
 *   million-message number; 200000 for a quicker run on demo number 0) with the desk kept during
 *   the sync and without it, in alternating fresh databases (BENCH_DESK_RUNS pairs, default 3). The ratio is taken per pair, so both sides of
 *   it ran minutes apart on the same machine; medians are quoted. Three pairs, not two: the median of
 *   two is their mean, and one pair's neighbours' work moved it (PostgreSQL pairs read 0.85–1.24× on
 *   one quiet day); the median of three leaves out the pair furthest off. The server process's CPU time
 *   is printed beside the wall time: on a shared machine it varies far less.
 * - With that history indexed, the server time of the desk's reads (the needs-reply queue's
 *   first page, the opt-out ledger, one customer's page, quiet hours over a year, and the page of
 *   sends after opt-out): from the route's handler being called to its answer being written,
 *   access-log entry included, p95 of BENCH_DESK_READS runs each (default 25) after two warm-ups.
 *
 * The simulator runs in its own process; each sync runs in a fresh server process (the server's
 * own composition: rooms, team access in local mode, the route table) that prints its figures as
 * one JSON line. BENCH_DESK_ENGINES=pglite (or postgres) runs one engine. Prints a table, writes
 * .bench/desk.json, and exits 1 when a budget is missed: upkeep at most 1.20× the sync without the
 * desk, each read's p95 at most 100 ms.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { engines as enginesFrom, timeRoutes, whole } from './harness.mts'
import { atMost, figure, median, missed, percentile, writeGroup, type Budget, type Figure } from './stats.ts'
import { SERVER_NODE_FLAGS } from '../scripts/server-flags.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SELF = fileURLToPath(import.meta.url)

const MESSAGES = whole('BENCH_MESSAGES', 1_000_000, 10_000, 5_000_000)
const PAIRS = whole('BENCH_DESK_RUNS', 3, 1, 20)
const READS = whole('BENCH_DESK_READS', 25, 5, 1000)

/** What one server process measured. */
interface ChildResult {
  desk: boolean
  syncMs: number
  cpuMs: number
  /** The syncer's own split: waiting for pages, storing (the desk's facts included), vacuum, the desk's recompute. */
  split: { waitMs: number; storeMs: number; vacuumMs: number; deskMs: number }
  indexed: number
  deskMessages: number
  dirty: number
  threads: number
  reads: Record<string, number[]>
}

// ── one server process: open the rooms, sync the number, time the desk's reads ──────────────
async function child() {
  const { parseConfig } = await import('../proxy/config.ts')
  const { openRooms, roomsConfigIssues } = await import('../proxy/rooms.ts')
  const { start } = await import('../proxy/server.ts')
  const { call } = await import('../proxy/testing/access-stack.ts')
  const { DEMO_CREDENTIALS } = await import('../proxy/simulator/dataset.ts')
  const desk = process.env.BENCH_DESK === 'on'
  const number = process.env.BENCH_NUMBER!
  const tid = process.env.BENCH_TID!
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_REQUESTS: '0',
    ACCESS: 'local',
    API_BASE_URL: process.env.SIM_URL!,
    API_SYS_ID: DEMO_CREDENTIALS.sysId,
    API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
    DATA_DIR: process.env.BENCH_DATA_DIR!,
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
    SYNC_RATE: '0',
    INDEX_AUTO_SYNC: 'off',
  }
  const config = parseConfig(env)
  const cfg = roomsConfigIssues(env, config)
  if (!cfg.config) throw new Error(cfg.issues.join('\n'))
  const roomsCfg = cfg.config
  // Server time of each desk read: the route's handler, from its call to its answer.
  const times = new Map<string, number[]>()
  let rooms!: Awaited<ReturnType<typeof openRooms>>
  // BENCH_VERBOSE=1: the server's log lines (index builds, syncs) on standard error.
  const log = process.env.BENCH_VERBOSE ? (line: string) => console.error(`[${desk ? 'desk on' : 'desk off'}] ${line}`) : () => {}
  const running = await start(config, {
    log,
    rooms: async (forwarder) => {
      rooms = await openRooms(roomsCfg, { forwarder, log, deskDuringSync: desk })
      return {
        ...rooms,
        routes: timeRoutes(rooms.routes, (r) => r.path.startsWith('/api/desk/'), times),
      }
    },
  })
  try {
    const db = rooms.db
    const syncer = rooms.index.syncer!
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    await syncer.request({ number, tid })
    await syncer.idle()
    const syncMs = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    const one = async (sql: string, args: unknown[] = []) => (await db.query<{ n: number }>(sql, args)).rows[0]?.n ?? 0
    const result: ChildResult = {
      desk,
      syncMs,
      cpuMs: (cpu.user + cpu.system) / 1000,
      split: { waitMs: syncer.stats.waitMs, storeMs: syncer.stats.storeMs, vacuumMs: syncer.stats.vacuumMs, deskMs: syncer.stats.deskMs },
      indexed: await one('SELECT indexed AS n FROM index_numbers WHERE number = $1', [number]),
      deskMessages: await one('SELECT count(*)::int AS n FROM desk_messages'),
      dirty: await one('SELECT count(*)::int AS n FROM desk_dirty'),
      threads: await one('SELECT count(*)::int AS n FROM desk_threads'),
      reads: {},
    }
    if (desk) {
      const party = (
        await db.query<{ party: string }>('SELECT party FROM desk_threads WHERE number = $1 ORDER BY inbound + outbound DESC LIMIT 1', [
          number,
        ])
      ).rows[0]!.party
      const newest = (await db.query<{ d: Date }>('SELECT max(date) AS d FROM index_messages WHERE number = $1', [number])).rows[0]!.d
      const to = new Date(newest).toISOString().slice(0, 10)
      const from = new Date(new Date(newest).getTime() - 364 * 86_400_000).toISOString().slice(0, 10)
      const port = Number(new URL(running.url).port)
      const reads: Array<[string, string, string]> = [
        ['needs-reply, first page', '/api/desk/needs-reply', '/api/desk/needs-reply?limit=100'],
        ['opt-out ledger, first page', '/api/desk/opt-outs', '/api/desk/opt-outs?limit=100'],
        ['one customer', '/api/desk/customer', `/api/desk/customer?party=${party}`],
        ['quiet hours over a year', '/api/desk/quiet-hours', `/api/desk/quiet-hours?number=${number}&from=${from}&to=${to}`],
        // Not one of the issue's four: the page's 500 newest sends after opt-out, read from the
        // thread index between each period's ends (proxy/desk/sent-after.ts), held to the same line.
        ['sent after opt-out, the page (500)', '/api/desk/sent-after-opt-out', '/api/desk/sent-after-opt-out?limit=500'],
      ]
      for (const [label, route, path] of reads) {
        times.delete(route)
        for (let i = 0; i < READS + 2; i++) {
          const r = await call(port, 'GET', path)
          if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 200)}`)
        }
        result.reads[label] = (times.get(route) ?? []).slice(2)
      }
    }
    console.log(`result ${JSON.stringify(result)}`)
  } finally {
    await running.close()
  }
}

// ── the driver ───────────────────────────────────────────────────────────────────────────────
function run(args: string[], env: Record<string, string>, until: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
      const m = until.exec(out)
      if (m) resolve({ child, match: m })
    })
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before printing what was expected`)))
  })
}

async function stop(p: ChildProcess) {
  if (p.exitCode !== null || p.signalCode !== null) return
  const gone = new Promise<void>((ok) => p.once('exit', () => ok()))
  p.kill('SIGTERM')
  await gone
}

interface Row {
  engine: string
  name: string
  /** Each run's value (the median quoted), or the one value. */
  samples: number[]
  unit: string
  budget?: Budget
  family?: string
  note?: string
}

const figures: Figure[] = []

function push(r: Row) {
  const { engine, name, unit, budget, family, note } = r
  const f = figure('desk', name, unit, r.samples, {
    engine,
    ...(budget ? { budget } : {}),
    ...(family ? { family } : {}),
    ...(note ? { note } : {}),
  })
  figures.push(f)
  const b = budget ? `${budget.op} ${budget.limit}${f.pass ? '' : ' MISSED'}` : ''
  console.log(
    `  ${engine.padEnd(8)} ${name.padEnd(50)} ${f.value.toFixed(f.value < 10 ? 2 : 0).padStart(9)} ${unit.padEnd(3)} ${b} ${note ?? ''}`,
  )
}

async function main() {
  const engines = enginesFrom('BENCH_DESK_ENGINES')
  const { DEMO_CREDENTIALS, makeAccount } = await import('../proxy/simulator/dataset.ts')
  const account = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60)
  // The million-message number when a million or more is asked for; else number 0 grown to size.
  const profile = MESSAGES >= 1_000_000 ? account.numbers[6]! : account.numbers[0]!
  const sim = await run(['proxy/simulator/main.ts', '0'], { SIMULATOR_CONTROL: '1' }, /listening on (http:\/\/[\d.:]+)/)
  const simUrl = sim.match[1]!
  console.log(`desk: ${MESSAGES.toLocaleString('en-US')} messages on ${profile.number}, ${PAIRS} pairs of syncs per engine`)
  let cluster: { url: string; stop: () => void } | null = null
  try {
    for (let left = MESSAGES - profile.baseTotal; left > 0; left -= 1_000_000) {
      const r = await fetch(`${simUrl}/__sim/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ number: profile.number, add: Math.min(left, 1_000_000) }),
      })
      if (!r.ok) throw new Error(`simulator: ${r.status} ${await r.text()}`)
    }
    for (const engine of engines) {
      console.log(`\n${engine}:`)
      if (engine === 'postgres') {
        const { startCluster } = await import('../scripts/pg-cluster.mjs')
        cluster = await startCluster()
      }
      const results: ChildResult[] = []
      const pairs: Array<{ on: ChildResult; off: ChildResult }> = []
      for (let i = 0; i < PAIRS; i++) {
        // Alternate which side goes first, so a drift in the machine's load favours neither.
        const order = i % 2 === 0 ? [false, true] : [true, false]
        const pair: Partial<Record<'on' | 'off', ChildResult>> = {}
        for (const desk of order) {
          const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-desk-'))
          let databaseUrl = ''
          if (cluster) {
            const name = `desk_${process.pid}_${i}_${desk ? 'on' : 'off'}`
            const admin = new pg.Client({ connectionString: cluster.url })
            await admin.connect()
            await admin.query(`CREATE DATABASE ${name}`)
            await admin.end()
            databaseUrl = cluster.url.replace(/\/postgres$/, `/${name}`)
          }
          try {
            const c = await run(
              [SELF, '--child'],
              {
                SIM_URL: simUrl,
                BENCH_DESK: desk ? 'on' : 'off',
                BENCH_NUMBER: profile.number,
                BENCH_TID: profile.tid,
                BENCH_DATA_DIR: join(dir, 'data'),
                BENCH_DATABASE_URL: databaseUrl,
              },
              /result (\{.*\})\n/,
            )
            const r = JSON.parse(c.match[1]!) as ChildResult
            await stop(c.child)
            if (r.indexed !== MESSAGES) throw new Error(`the sync indexed ${r.indexed} of ${MESSAGES} messages`)
            if (desk && (r.deskMessages !== MESSAGES || r.dirty !== 0))
              throw new Error(`the desk holds ${r.deskMessages} messages and ${r.dirty} threads left to recompute after the sync`)
            console.log(
              `    run ${i + 1}, desk ${desk ? 'on ' : 'off'}: sync ${(r.syncMs / 1000).toFixed(1)} s (CPU ${(r.cpuMs / 1000).toFixed(1)} s; ` +
                `waiting for pages ${(r.split.waitMs / 1000).toFixed(1)} s, storing ${(r.split.storeMs / 1000).toFixed(1)} s, ` +
                `vacuum ${(r.split.vacuumMs / 1000).toFixed(1)} s, desk recompute ${(r.split.deskMs / 1000).toFixed(1)} s, the rest building indexes)`,
            )
            pair[desk ? 'on' : 'off'] = r
            results.push(r)
          } finally {
            rmSync(dir, { recursive: true, force: true })
          }
        }
        pairs.push({ on: pair.on!, off: pair.off! })
      }
      const ratios = pairs.map((p) => p.on.syncMs / p.off.syncMs)
      const cpuRatios = pairs.map((p) => p.on.cpuMs / p.off.cpuMs)
      const n = MESSAGES.toLocaleString('en-US')
      push({
        engine,
        name: `full sync of ${n}, desk off`,
        samples: pairs.map((p) => p.off.syncMs / 1000),
        unit: 's',
        note: `median of ${PAIRS}`,
      })
      push({
        engine,
        name: `full sync of ${n}, desk kept`,
        samples: pairs.map((p) => p.on.syncMs / 1000),
        unit: 's',
        note: `median of ${PAIRS}; ${pairs[0]!.on.threads} threads`,
      })
      push({
        engine,
        name: 'upkeep: sync with the desk ÷ without (per pair)',
        samples: ratios,
        unit: '×',
        budget: atMost(1.2),
        note: `pairs ${ratios.map((x) => x.toFixed(3)).join(', ')}; server process CPU ratio ${median(cpuRatios).toFixed(3)}${engine === 'postgres' ? ' (the PostgreSQL server’s own CPU not counted)' : ' (PGlite included)'}`,
      })
      const reads = new Map<string, number[]>()
      for (const r of results) for (const [k, v] of Object.entries(r.reads)) reads.set(k, [...(reads.get(k) ?? []), ...v])
      for (const [label, ms] of reads)
        push({
          engine,
          name: `${label}: p95 (server)`,
          samples: [percentile(ms, 95)],
          unit: 'ms',
          budget: atMost(100),
          family: 'five reads: p95 (server)',
          note: `median ${median(ms).toFixed(1)} ms, ${ms.length} reads`,
        })
      cluster?.stop()
      cluster = null
    }
  } finally {
    cluster?.stop()
    await stop(sim.child)
  }
  console.log(`\nwritten to ${writeGroup(ROOT, 'desk', figures, { messages: MESSAGES, pairs: PAIRS })}`)
  const miss = missed(figures)
  if (miss.length) {
    console.log(`\n${miss.length} budget(s) missed: ${miss.join('; ')}`)
    process.exitCode = 1
  }
}

if (process.argv.includes('--child'))
  await child().catch((err: unknown) => {
    console.error(err)
    process.exit(1)
  })
else
  await main().catch((err: unknown) => {
    // The figures taken before the failure still go to the summary, beside the error.
    console.error(err)
    writeGroup(ROOT, 'desk', figures, { messages: MESSAGES, pairs: PAIRS }, err)
    process.exit(1)
  })
