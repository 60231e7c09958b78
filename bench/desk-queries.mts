/**
 * What the support desk costs: the sync of the demo account (every number but the million-message
 * one) with and without keeping the desk tables, and the server time of the desk's reads.
 *
 *   node --import tsx bench/desk-queries.mts
 *
 * "with": refreshDesk after each stored range of BATCH ordinals, as the sync's store step calls it;
 * the ratio is against the sync alone measured in the same run. Prints figures; asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { call } from '../proxy/access/test-stack.ts'
import { parseConfig } from '../proxy/config.ts'
import { flushDesk, refreshAllDesk, refreshDesk } from '../proxy/desk/refresh.ts'
import { openRooms, roomsConfigIssues, type Rooms } from '../proxy/rooms.ts'
import { start } from '../proxy/server.ts'
import { DEMO_CREDENTIALS, END_MS, makeAccount } from '../proxy/simulator/dataset.ts'
import { DESK_INDEX } from '../proxy/simulator/desk-cases.ts'

const BATCH = 500
const RUNS = 30

const dir = mkdtempSync(join(tmpdir(), 'sb-desk-bench-'))
const env = {
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_REQUESTS: '0',
  ACCESS: 'local',
  DATA_DIR: join(dir, 'data'),
  SYNC_RATE: '0',
  INDEX_AUTO_SYNC: 'off',
}
const config = parseConfig(env)
const cfg = roomsConfigIssues(env, config).config!
let rooms!: Rooms
const running = await start(config, {
  rooms: async (forwarder) => {
    rooms = await openRooms(cfg, { forwarder, log: () => {} })
    return rooms
  },
})
const db = rooms.db
const numbers = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60).numbers.filter((n) => n.baseTotal < 100_000)

try {
  let t = performance.now()
  for (const n of numbers) await rooms.index.syncer!.request({ number: n.number, tid: n.tid })
  await rooms.index.syncer!.idle()
  const syncMs = performance.now() - t
  const total = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_messages')).rows[0]!.n

  await db.query('TRUNCATE desk_messages, desk_threads, desk_sent_after, desk_dirty')
  t = performance.now()
  await refreshAllDesk(db)
  const allMs = performance.now() - t

  await db.query('TRUNCATE desk_messages, desk_threads, desk_sent_after, desk_dirty')
  // Per batch, as the sync would call it: each number's ordinals in ranges of BATCH.
  t = performance.now()
  let batches = 0
  for (const n of numbers) {
    const top = (await db.query<{ t: number }>('SELECT top_ordinal AS t FROM index_numbers WHERE number = $1', [n.number])).rows[0]?.t ?? 0
    for (let hi = top; hi > 0; hi -= BATCH) {
      await refreshDesk(db, n.number, undefined, { min: Math.max(1, hi - BATCH + 1), max: hi })
      batches++
    }
  }
  // The threads deferred during the walk are recomputed by the first read: counted here.
  await flushDesk(db)
  const batchedMs = performance.now() - t

  // A refresh with nothing new (the cost of a sync batch that stored nothing, or a "mark handled").
  t = performance.now()
  for (const n of numbers) await refreshDesk(db, n.number)
  const idleMs = (performance.now() - t) / numbers.length

  console.log(`demo account: ${numbers.length} numbers, ${total} messages`)
  console.log(`sync alone:                 ${syncMs.toFixed(0)} ms`)
  console.log(
    `desk, per ${BATCH}-ordinal batch: ${batchedMs.toFixed(0)} ms over ${batches} batches (${((batchedMs / syncMs) * 100).toFixed(1)} % of the sync)`,
  )
  console.log(`desk, refreshAllDesk:       ${allMs.toFixed(0)} ms (${((allMs / syncMs) * 100).toFixed(1)} % of the sync)`)
  console.log(`desk, refresh with nothing new: ${idleMs.toFixed(1)} ms per number`)

  const port = Number(new URL(running.url).port)
  const desk = numbers[DESK_INDEX]!.number
  const at = new Date(END_MS).toISOString()
  const reads: Array<[string, string]> = [
    ['needs-reply, first page', `/api/desk/needs-reply?at=${at}`],
    ['opt-out ledger', '/api/desk/opt-outs'],
    ['sent after opt-out', '/api/desk/sent-after-opt-out'],
    ['one customer', '/api/desk/customer?party=14695550104'],
    ['quiet hours', `/api/desk/quiet-hours?number=${desk}`],
    ['segments', `/api/desk/segments?number=${numbers[0]!.number}`],
  ]
  for (const [label, path] of reads) {
    const ms: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now()
      const r = await call(port, 'GET', path)
      ms.push(performance.now() - s)
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 200)}`)
    }
    ms.sort((a, b) => a - b)
    console.log(
      `${label.padEnd(26)} p50 ${ms[Math.floor(RUNS / 2)]!.toFixed(1)} ms, p95 ${ms[Math.floor(RUNS * 0.95)]!.toFixed(1)} ms (round trip on loopback)`,
    )
  }
} finally {
  await running.close()
  rmSync(dir, { recursive: true, force: true })
}
