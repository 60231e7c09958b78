import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OpenedDb } from '../db/open.ts'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { createForwarder, type Forwarder } from '../forward.ts'
import { DEMO_CREDENTIALS, END_MS, GOOD_WEBHOOK, makeAccount } from '../simulator/dataset.ts'
import { BROKEN_WEBHOOK, makeScenario } from '../simulator/scenario.ts'
import { createSimulator } from '../simulator/simulator.ts'
import type { Server } from 'node:http'
import type { ListingRecorded } from './record-listing.ts'
import { openWatch, type Watch } from './watch.ts'

/**
 * The simulator's opt-in scenario seen by the watch, on both engines: listings every five minutes
 * across a scheduled break record the webhook's change to the broken address and its repair, each
 * once with its window, and nothing else changes.
 */

const engines = useEngines()
const MIN = 60_000
const SEED = 7
const scenario = makeScenario(SEED, makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60).numbers, END_MS)

describe.each(ENGINES)('the watch over the simulator’s scenario on %s', (engine) => {
  let server: Server
  let forwarder: Forwarder
  let db: OpenedDb
  let watch: Watch
  const clock = { now: END_MS }

  beforeAll(async () => {
    const s = await createSimulator({ clock: { endMs: END_MS, now: () => clock.now }, scenario: { seed: SEED } }).listen(0, '127.0.0.1')
    server = s.server
    forwarder = createForwarder({ baseUrl: s.url, ...DEMO_CREDENTIALS }, 5_000)
    db = await engines.open(engine)
    const config = { intervalS: 0, probeIntervalS: 0, allowedHosts: [], concurrency: 4, timeoutMs: 2_000 }
    watch = openWatch({ db, forwarder, config, log: () => {}, now: () => clock.now })
  }, 60_000)
  afterAll(async () => {
    await watch?.close()
    await forwarder?.close()
    server?.closeAllConnections()
    await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()))
  })

  it('records the scheduled break and its repair, each once with its window', async () => {
    const { fromMs, forMs } = scenario.breaks
    const times: number[] = []
    for (let t = END_MS + fromMs - 10 * MIN; t <= END_MS + fromMs + forMs + 10 * MIN; t += 5 * MIN) times.push(t)
    for (const t of times) {
      clock.now = t
      const r = await watch.listNow()
      expect('gap' in r, JSON.stringify(r)).toBe(false)
      expect((r as ListingRecorded).skipped).toBeFalsy()
    }
    const changes = await db.query<{
      number: string
      kind: string
      from_value: string
      to_value: string
      window_start: Date
      window_end: Date
    }>(`SELECT number, kind, from_value, to_value, window_start, window_end FROM watch_changes ORDER BY id`)
    expect(changes.rows.map((c) => [c.number, c.kind, c.from_value, c.to_value])).toEqual([
      [scenario.breaks.number, 'webhook', GOOD_WEBHOOK, BROKEN_WEBHOOK],
      [scenario.breaks.number, 'webhook', BROKEN_WEBHOOK, GOOD_WEBHOOK],
    ])
    const [broke, repaired] = changes.rows.map((c) => [new Date(c.window_start).getTime(), new Date(c.window_end).getTime()])
    // Each window is the five minutes between two listings, and holds the scheduled moment.
    expect(broke![1]! - broke![0]!).toBe(5 * MIN)
    expect(broke![0]!).toBeLessThan(END_MS + fromMs)
    expect(broke![1]!).toBeGreaterThanOrEqual(END_MS + fromMs)
    expect(repaired![0]!).toBeLessThan(END_MS + fromMs + forMs)
    expect(repaired![1]!).toBeGreaterThanOrEqual(END_MS + fromMs + forMs)
  }, 120_000)
})
