/**
 * Past one number: several large histories in one PostgreSQL index.
 *
 *   node --import tsx bench/scale.mts        (or BENCH_ONLY=scale npm run bench)
 *
 * The simulator serves an account of BENCH_SCALE_NUMBERS numbers (default 10) holding
 * BENCH_SCALE_PER_NUMBER messages each (default 1,000,000: ten million in all). A throwaway
 * PostgreSQL cluster holds the index; the server (its own composition: rooms, the route table,
 * team access in local mode) runs in a child process with SYNC_RATE=0 and syncs every number of
 * the account, desk kept, as the account's first start would. Figures: sync throughput, then
 * with everything indexed the server time of searches (p95 over distinct queries), the round
 * trip of a thread's first page and of a year of daily stats, and the disk the database takes
 * per million messages. Prints a table, writes .bench/scale.json, asserts nothing beyond the
 * sync having stored every message.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { COUNT_CAP } from '../proxy/index/count-queries.ts'
import { whole } from './harness.mts'
import { median, percentile } from './stats.ts'
import { SERVER_NODE_FLAGS } from '../scripts/server-flags.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SELF = fileURLToPath(import.meta.url)

const NUMBERS = whole('BENCH_SCALE_NUMBERS', 10, 1, 50)
const PER_NUMBER = whole('BENCH_SCALE_PER_NUMBER', 1_000_000, 10_000, 5_000_000)
const READS = whole('BENCH_SCALE_READS', 25, 5, 500)
/** The sync gives up after this long, so a stuck run ends. */
const SYNC_LIMIT_S = whole('BENCH_SCALE_SYNC_LIMIT_S', 3600, 60, 4 * 3600)

interface Listed {
  number: string
  tid: string
}

interface ChildResult {
  syncMs: number
  indexed: number
  dbBytes: number
  tableBytes: number
  searches: Record<string, { tookMs: number[]; counts: number[]; capped: number }>
  thread: number[]
  stats: number[]
  failures: string[]
}

// ── the server process: compose the app, sync every number, time the reads ─────────────────
async function child() {
  const { parseConfig } = await import('../proxy/config.ts')
  const { openRooms, roomsConfigIssues } = await import('../proxy/rooms.ts')
  const { start } = await import('../proxy/server.ts')
  const { call } = await import('../proxy/testing/access-stack.ts')
  const { SCALE_CREDENTIALS } = await import('../proxy/simulator/dataset.ts')
  const listed = JSON.parse(process.env.BENCH_LISTED!) as Listed[]
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_REQUESTS: '0',
    ACCESS: 'local',
    API_BASE_URL: process.env.SIM_URL!,
    API_SYS_ID: SCALE_CREDENTIALS.sysId,
    API_AUTH_TOKEN: SCALE_CREDENTIALS.authToken,
    DATA_DIR: process.env.BENCH_DATA_DIR!,
    DATABASE_URL: process.env.BENCH_DATABASE_URL!,
    SYNC_RATE: '0',
    INDEX_AUTO_SYNC: 'off',
  }
  const config = parseConfig(env)
  const cfg = roomsConfigIssues(env, config)
  if (!cfg.config) throw new Error(cfg.issues.join('\n'))
  const roomsCfg = cfg.config
  let rooms!: Awaited<ReturnType<typeof openRooms>>
  const running = await start(config, {
    log: () => {},
    rooms: async (forwarder) => {
      rooms = await openRooms(roomsCfg, { forwarder, log: () => {} })
      return rooms
    },
  })
  try {
    const db = rooms.db
    const syncer = rooms.index.syncer!
    const total = async () =>
      Number((await db.query<{ n: string }>('SELECT coalesce(sum(indexed), 0)::bigint AS n FROM index_numbers')).rows[0]?.n ?? 0)
    const t0 = performance.now()
    await Promise.all(listed.map((n) => syncer.request({ number: n.number, tid: n.tid })))
    // Progress on stderr every 30 s, so a long run shows it is moving.
    const progress = setInterval(() => {
      void total().then((n) =>
        console.error(`  … ${n.toLocaleString('en-US')} messages indexed after ${((performance.now() - t0) / 1000).toFixed(0)} s`),
      )
    }, 30_000)
    const limit = setTimeout(() => {
      console.error(`the sync did not finish within ${SYNC_LIMIT_S} s`)
      process.exit(1)
    }, SYNC_LIMIT_S * 1000)
    await syncer.idle()
    clearInterval(progress)
    clearTimeout(limit)
    const syncMs = performance.now() - t0
    console.error(`  synced ${(await total()).toLocaleString('en-US')} messages in ${(syncMs / 1000).toFixed(0)} s`)
    const size = (
      await db.query<{ db: string; tables: string }>(
        `SELECT pg_database_size(current_database())::bigint AS db,
                (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
                   JOIN pg_namespace s ON s.oid = c.relnamespace
                  WHERE s.nspname = 'public' AND c.relkind = 'r')::bigint AS tables`,
      )
    ).rows[0]!
    const port = Number(new URL(running.url).port)
    // A read that fails (a statement timeout, say) is a finding to print, not the end of the run.
    const failures: string[] = []
    const getJson = async <T,>(path: string): Promise<T | null> => {
      const r = await call(port, 'GET', path)
      if (r.status === 200) return r.json() as T
      failures.push(`${path}: ${r.status} ${r.text.slice(0, 200)}`)
      return null
    }
    const newest = (await db.query<{ d: Date }>('SELECT max(date) AS d FROM index_messages')).rows[0]!.d
    const newestDay = new Date(newest).toISOString().slice(0, 10)
    const yearAgo = new Date(new Date(newest).getTime() - 364 * 86_400_000).toISOString().slice(0, 10)
    const parties = (
      await db.query<{ number: string; party: string }>(
        // The desk's thread table has one row per party of each number: no scan of the messages.
        `SELECT number, party FROM desk_threads ORDER BY md5(number || party) LIMIT $1`,
        [READS],
      )
    ).rows
    // Distinct queries, so no answer is served from a cache the first time it is asked.
    const words = ['appointment', 'shipped', 'Sunday', 'code', 'call me', 'cancel', 'Track', 'confirmed', 'blank line', 'STOP']
    /** 30 days ending `k` half-months before the newest day, with the query `of(k)`. */
    const within30 = (of: (k: number) => string, shift = 0) =>
      Array.from({ length: Math.min(READS, 20) }, (_, k) => {
        const to = new Date(Date.parse(`${newestDay}T00:00:00Z`) - (k * 15 + shift) * 86_400_000).toISOString().slice(0, 10)
        const from = new Date(Date.parse(`${to}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10)
        return `${of(k)}&from=${from}&to=${to}`
      })
    const searchSets: Array<[string, string[]]> = [
      ['search: a word, every number', words.slice(0, READS).map((w) => `q=${encodeURIComponent(w)}`)],
      [
        'search: a word within one number',
        Array.from({ length: Math.min(READS, listed.length * 2) }, (_, k) => {
          const n = listed[k % listed.length]!
          return `q=${encodeURIComponent(words[k % words.length]!)}&numbers=${n.number}`
        }),
      ],
      ['search: one party, every number', parties.slice(0, READS).map((p) => `party=${p.party}`)],
      ['search: status within 30 days', within30((k) => `status=${k % 2 ? 'success' : 'error'}`)],
      // Filters the roll-ups do not count (failures are not kept per direction; media not at all):
      // counted among the messages, up to COUNT_CAP.
      ['search: outbound with a status, 30 days', within30((k) => `direction=outbound&status=${k % 2 ? 'success' : 'error'}`, 7)],
      ['search: with media within 30 days', within30(() => 'media=yes', 3)],
    ]
    const searches: ChildResult['searches'] = {}
    for (const [name, qs] of searchSets) {
      const tookMs: number[] = []
      const counts: number[] = []
      let capped = 0
      for (const q of qs) {
        const r = await getJson<{ tookMs: number; total: number; totalCapped: boolean }>(`/api/index/search?${q}&limit=100`)
        if (!r) continue
        tookMs.push(r.tookMs)
        counts.push(r.total)
        if (r.totalCapped) capped++
      }
      searches[name] = { tookMs, counts, capped }
    }
    const wall = async (paths: string[]) => {
      const ms: number[] = []
      for (let k = 0; k < READS + 2; k++) {
        const t = performance.now()
        const ok = await getJson(paths[k % paths.length]!)
        if (ok && k >= 2) ms.push(performance.now() - t)
      }
      return ms
    }
    const result: ChildResult = {
      syncMs,
      indexed: await total(),
      dbBytes: Number(size.db),
      tableBytes: Number(size.tables),
      searches,
      thread: await wall(parties.map((p) => `/api/index/thread?number=${p.number}&party=${p.party}&limit=100`)),
      stats: await wall(listed.map((n) => `/api/index/stats?number=${n.number}&bucket=day&from=${yearAgo}&to=${newestDay}`)),
      failures,
    }
    console.log(`result ${JSON.stringify(result)}`)
  } finally {
    await running.close()
  }
}

// ── the driver ───────────────────────────────────────────────────────────────────────────────
function run(args: string[], env: Record<string, string>, until: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    c.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const m = until.exec(out)
      if (m) resolve({ child: c, match: m })
    })
    c.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before printing what was expected`)))
  })
}

async function stop(p: ChildProcess) {
  if (p.exitCode !== null || p.signalCode !== null) return
  const gone = new Promise<void>((ok) => p.once('exit', () => ok()))
  p.kill('SIGTERM')
  await gone
}

async function main() {
  const { SCALE_CREDENTIALS } = await import('../proxy/simulator/dataset.ts')
  const all = NUMBERS * PER_NUMBER
  console.log(
    `scale: ${NUMBERS} numbers × ${PER_NUMBER.toLocaleString('en-US')} messages = ${all.toLocaleString('en-US')} on PostgreSQL, SYNC_RATE=0`,
  )
  const sim = await run(['proxy/simulator/main.ts', '0'], { SIM_SCALE: `${NUMBERS}x${PER_NUMBER}` }, /listening on (http:\/\/[\d.:]+)/)
  const simUrl = sim.match[1]!
  const { startCluster } = await import('../scripts/pg-cluster.mjs')
  const cluster = await startCluster()
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-scale-'))
  try {
    const listing = await fetch(`${simUrl}/api/allownednumbers`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ sys_id: SCALE_CREDENTIALS.sysId, auth_token: SCALE_CREDENTIALS.authToken }),
    })
    const listed = ((await listing.json()) as { data: Listed[] }).data.map((n) => ({ number: n.number, tid: n.tid }))
    const admin = new pg.Client({ connectionString: cluster.url })
    await admin.connect()
    await admin.query('CREATE DATABASE switchboard_scale')
    await admin.end()
    const c = await run(
      [SELF, '--child'],
      {
        SIM_URL: simUrl,
        BENCH_LISTED: JSON.stringify(listed),
        BENCH_DATA_DIR: join(dir, 'data'),
        BENCH_DATABASE_URL: cluster.url.replace(/\/postgres$/, '/switchboard_scale'),
      },
      /result (\{.*\})\n/,
    )
    const r = JSON.parse(c.match[1]!) as ChildResult
    await stop(c.child)
    if (r.indexed !== all) throw new Error(`the sync stored ${r.indexed} of ${all} messages`)

    const rows: Array<{ name: string; value: number; unit: string; budget?: string; note?: string }> = []
    const push = (row: (typeof rows)[number]) => {
      rows.push(row)
      console.log(
        `  ${row.name.padEnd(46)} ${row.value.toFixed(row.value < 10 ? 2 : 0).padStart(10)} ${row.unit.padEnd(9)} ${row.budget ?? ''} ${row.note ?? ''}`,
      )
    }
    console.log('')
    push({ name: `full sync of ${all.toLocaleString('en-US')}`, value: r.syncMs / 1000, unit: 's', note: 'desk kept, all numbers at once' })
    push({ name: 'sync throughput', value: all / (r.syncMs / 1000), unit: 'msgs/s' })
    for (const [name, s] of Object.entries(r.searches))
      push({
        name: `${name}: p95 (server)`,
        value: percentile(s.tookMs, 95),
        unit: 'ms',
        budget: '≤ 100 ms',
        note: `median ${median(s.tookMs).toFixed(1)} ms over ${s.tookMs.length} distinct queries; matches ${Math.min(...s.counts).toLocaleString('en-US')}–${Math.max(...s.counts).toLocaleString('en-US')}${s.capped ? ` (${s.capped} counted only to ${COUNT_CAP.toLocaleString('en-US')}: "more than")` : ''}`,
      })
    push({
      name: 'thread: first 100 with one party (round trip)',
      value: percentile(r.thread, 95),
      unit: 'ms p95',
      budget: '≤ 50 ms',
      note: `median ${median(r.thread).toFixed(1)} ms, ${r.thread.length} reads`,
    })
    push({
      name: 'stats: a year of days (round trip)',
      value: percentile(r.stats, 95),
      unit: 'ms p95',
      budget: '≤ 100 ms',
      note: `median ${median(r.stats).toFixed(1)} ms, ${r.stats.length} reads`,
    })
    const perMillion = (bytes: number) => bytes / (all / 1_000_000) / 2 ** 20
    push({
      name: 'disk per million messages (database)',
      value: perMillion(r.dbBytes),
      unit: 'MiB',
      note: `${(r.dbBytes / 2 ** 30).toFixed(2)} GiB in all`,
    })
    push({ name: 'disk per million messages (tables + indexes)', value: perMillion(r.tableBytes), unit: 'MiB' })
    console.log(`\n${r.failures.length} reads failed${r.failures.length ? ':' : ''}`)
    for (const f of r.failures.slice(0, 10)) console.log(`  ${f}`)
    mkdirSync(join(ROOT, '.bench'), { recursive: true })
    writeFileSync(
      join(ROOT, '.bench', 'scale.json'),
      `${JSON.stringify({ when: new Date().toISOString(), numbers: NUMBERS, perNumber: PER_NUMBER, figures: rows }, null, 2)}\n`,
    )
    console.log('\nwritten to .bench/scale.json')
  } finally {
    cluster.stop()
    await stop(sim.child)
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv.includes('--child'))
  await child().catch((err: unknown) => {
    console.error(err)
    process.exit(1)
  })
else
  await main().catch((err: unknown) => {
    console.error(err)
    process.exit(1)
  })
