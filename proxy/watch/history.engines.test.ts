import type { Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngines } from '../testing/engines.ts'
import type { OpenedDb } from '../db/open.ts'
import { createForwarder, type Forwarder } from '../forward.ts'
import { DEMO_CREDENTIALS } from '../simulator/dataset.ts'
import { createSimulator } from '../simulator/simulator.ts'
import { messagesAtRisk } from './at-risk.ts'
import type { WatchConfig } from './config.ts'
import type { ListingRecorded } from './record-listing.ts'
import type { WatchFinding } from './types.ts'
import { openWatch, type Watch } from './watch.ts'
import { createLimiter } from '../kernel/pace.ts'

/**
 * The listing history on both engines, fed by the simulator over real HTTP: the baseline, one
 * change with its window, a failed listing as a gap, repair, listed twice and removed, the
 * history refusing to be edited, and the messages at risk between a change and its repair.
 */

const engines = useEngines()
const CONFIG: WatchConfig = { intervalS: 0, probeIntervalS: 0, allowedHosts: [], concurrency: 4, timeoutMs: 2_000 }
const T0 = Date.parse('2026-03-02T14:00:00Z')
const MIN = 60_000

describe.each(ENGINES)('callback history on %s', (engine) => {
  let sim: Server
  let simUrl = ''
  let forwarder: Forwarder
  let db: OpenedDb
  let clock = T0
  const findings: WatchFinding[] = []
  let watch: Watch
  let number = ''
  let other = ''
  let webhook = ''

  const control = async (path: string, body: unknown, method = 'POST') => {
    const r = await fetch(`${simUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    expect(r.status, await r.clone().text()).toBe(200)
  }
  const listAt = async (at: number) => {
    clock = at
    return watch.listNow()
  }

  beforeAll(async () => {
    const s = await createSimulator({ control: true }).listen(0, '127.0.0.1')
    sim = s.server
    simUrl = s.url
    forwarder = createForwarder({ baseUrl: simUrl, ...DEMO_CREDENTIALS }, 5_000)
    db = await engines.open(engine)
    watch = openWatch({ db, forwarder, config: CONFIG, log: () => {}, now: () => clock, onFinding: (f) => findings.push(f) })
    const listing = (await (await forwarder.forward('allownednumbers', [])).json) as { data: Array<{ number: string; webhook: string }> }
    const good = listing.data.filter((n) => n.webhook.startsWith('https://hooks.'))
    number = good[0]!.number
    other = good[1]!.number
    webhook = good[0]!.webhook
  }, 60_000)

  afterAll(async () => {
    await watch?.close()
    await forwarder?.close()
    sim?.closeAllConnections()
    await new Promise<void>((ok) => (sim ? sim.close(() => ok()) : ok()))
  })

  it('takes the first listing as the baseline, not as changes', async () => {
    const r = (await listAt(T0)) as ListingRecorded
    expect(r.baseline).toBe(true)
    expect(r.changes).toEqual([])
    const n = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM watch_changes`)
    expect(n.rows[0]!.n).toBe(0)
    const state = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM watch_state`)
    expect(state.rows[0]!.n).toBe(60)
  })

  it('keeps a change once, with the window between the two listings', async () => {
    await control('/__sim/quirks', { callbacks: { number, webhook: 'https://elsewhere.example/in' } })
    const r = (await listAt(T0 + 5 * MIN)) as ListingRecorded
    expect(r.changes).toEqual([{ number, kind: 'webhook', from: webhook, to: 'https://elsewhere.example/in' }])
    await listAt(T0 + 10 * MIN)
    const rows = await db.query<{ kind: string; window_start: Date; window_end: Date }>(
      `SELECT kind, window_start, window_end FROM watch_changes WHERE number = $1`,
      [number],
    )
    expect(rows.rows).toHaveLength(1)
    expect(new Date(rows.rows[0]!.window_start).getTime()).toBe(T0)
    expect(new Date(rows.rows[0]!.window_end).getTime()).toBe(T0 + 5 * MIN)
    expect(findings.map((f) => [f.kind, f.number])).toEqual([['callback.changed', number]])
  })

  it('records a failed listing as a gap, never as every number removed', async () => {
    await control('/__sim/faults', { kind: 'status', status: 503, op: 'allownednumbers', times: 1 })
    const r = await listAt(T0 + 15 * MIN)
    expect('gap' in r).toBe(true)
    const gaps = await db.query<{ ok: boolean; error: string }>(`SELECT ok, error FROM watch_listings WHERE NOT ok`)
    expect(gaps.rows).toHaveLength(1)
    const removed = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM watch_changes WHERE kind = 'removed'`)
    expect(removed.rows[0]!.n).toBe(0)
  })

  it('gives the change after a gap a window across it, from the last listing that worked', async () => {
    await control('/__sim/quirks', { callbacks: { number, webhook: null } })
    const r = (await listAt(T0 + 20 * MIN)) as ListingRecorded
    expect(r.changes).toEqual([{ number, kind: 'webhook', from: 'https://elsewhere.example/in', to: webhook }])
    expect(r.prevAt?.getTime()).toBe(T0 + 10 * MIN)
  })

  it('sees a number listed twice and a number removed', async () => {
    await control('/__sim/quirks', { listedTwice: [other] })
    const r = (await listAt(T0 + 25 * MIN)) as ListingRecorded
    expect(r.changes.map((c) => [c.number, c.kind])).toEqual([[other, 'listed-twice']])
    await control('/__sim/quirks', { listedTwice: [], removed: [other] })
    const r2 = (await listAt(T0 + 30 * MIN)) as ListingRecorded
    expect(r2.changes.map((c) => [c.number, c.kind])).toEqual([[other, 'removed']])
    await control('/__sim/quirks', { removed: [] })
    const r3 = (await listAt(T0 + 35 * MIN)) as ListingRecorded
    expect(r3.changes.map((c) => [c.number, c.kind])).toEqual([[other, 'added']])
  })

  it('refuses to change or delete the history', async () => {
    for (const sql of [
      `UPDATE watch_changes SET to_value = 'x'`,
      `DELETE FROM watch_changes`,
      `UPDATE watch_listings SET ok = true`,
      `DELETE FROM watch_listings`,
    ])
      await expect(db.query(sql), sql).rejects.toThrow(/append-only/)
  })

  it('goes on from the stored history after a restart (no second baseline)', async () => {
    await watch.close()
    const again = engine === 'postgres' ? await engines.reopen(db) : db
    watch = openWatch({ db: again, forwarder, config: CONFIG, log: () => {}, now: () => clock })
    const r = (await listAt(T0 + 40 * MIN)) as ListingRecorded
    expect(r.baseline).toBe(false)
    expect(r.changes).toEqual([])
    expect(r.prevAt?.getTime()).toBe(T0 + 35 * MIN)
  })

  it('lists on its schedule when a listing is due, from the stored history', async () => {
    await watch.close()
    const before = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM watch_listings`)
    // The last listing was at T0 + 40 min; with the clock 10 minutes on, one is due at once.
    clock = T0 + 50 * MIN
    watch = openWatch({ db, forwarder, config: { ...CONFIG, intervalS: 300 }, log: () => {}, now: () => clock, startDelayMs: 20 })
    await expect
      .poll(async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM watch_listings`)).rows[0]!.n, { timeout: 10_000 })
      .toBe(before.rows[0]!.n + 1)
    await watch.close()
    watch = openWatch({ db, forwarder, config: CONFIG, log: () => {}, now: () => clock })
  })

  it('lists as at risk the inbound messages between a change and its repair, and not those before or after', async () => {
    // The webhook pointed elsewhere from a change in (T0, T0+5) until a repair in (T0+10, T0+20).
    const at = (m: number) => new Date(T0 + m * MIN)
    const rows: Array<[number, Date, string]> = [
      [1, at(-30), 'inbound'], // before the baseline's window
      [2, at(3), 'inbound'], // inside the change's window: possibly at risk
      [3, at(8), 'inbound'], // surely at risk
      [4, at(8), 'outbound'], // outbound: its dlr was never failing
      [5, at(15), 'inbound'], // during the gap: still before the repair
      [6, at(25), 'inbound'], // after the repair's window
    ]
    await db.query(
      `INSERT INTO index_messages (number, ordinal, fetched_tid, date, party_digits, direction)
       SELECT $1, o, 'T', d, '15550001111', dir FROM unnest($2::int[], $3::timestamptz[], $4::text[]) AS u(o, d, dir)`,
      [number, rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
    )
    const r = await messagesAtRisk(db, { number, limit: 100, now: at(60) })
    expect(r.periods.map((p) => [p.callback, p.reason])).toEqual([['webhook', 'elsewhere']])
    expect(r.periods[0]!.start).toEqual({ earliest: at(0).toISOString(), latest: at(5).toISOString() })
    expect(r.periods[0]!.end).toEqual({ earliest: at(10).toISOString(), latest: at(20).toISOString() })
    expect(r.messages.map((m) => m.ordinal).sort()).toEqual([2, 3, 5])
    expect(r.counts).toEqual({ [number]: 3 })
  })

  it('lists as at risk the outbound messages sent while the dlr endpoint was failing, bounded by the checks around it', async () => {
    const at = (m: number) => new Date(T0 + m * MIN)
    const dlr = (await db.query<{ dlr: string }>(`SELECT dlr FROM watch_state WHERE number = $1`, [number])).rows[0]!.dlr
    for (const [m, outcome] of [
      [60, 'up'],
      [70, 'failing'],
      [80, 'failing'],
      [90, 'up'],
    ] as const)
      await db.query(`INSERT INTO watch_checks (url, at, outcome, failure, detail) VALUES ($1, $2, $3, $4, 'test')`, [
        dlr,
        at(m),
        outcome,
        outcome === 'failing' ? 'http' : null,
      ])
    const rows: Array<[number, Date, string]> = [
      [10, at(55), 'outbound'], // before the last good check
      [11, at(65), 'outbound'], // between the last good check and the first failing one: possibly
      [12, at(75), 'outbound'], // surely
      [13, at(75), 'inbound'], // inbound: the dlr carries no incoming message
      [14, at(95), 'outbound'], // after the next good check
    ]
    await db.query(
      `INSERT INTO index_messages (number, ordinal, fetched_tid, date, party_digits, direction)
       SELECT $1, o, 'T', d, '15550002222', dir FROM unnest($2::int[], $3::timestamptz[], $4::text[]) AS u(o, d, dir)`,
      [number, rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
    )
    const r = await messagesAtRisk(db, { number, limit: 100, now: at(120) })
    const i = r.periods.findIndex((p) => p.callback === 'dlr')
    expect(r.periods[i]).toMatchObject({
      reason: 'failing',
      start: { earliest: at(60).toISOString(), latest: at(70).toISOString() },
      end: { earliest: at(80).toISOString(), latest: at(90).toISOString() },
      count: 2,
    })
    expect(r.messages.filter((m) => m.period === i).map((m) => m.ordinal)).toEqual([12, 11])
  })
  it("takes its turn within the server's upstream pace (SYNC_RATE), which the sync shares, and a close stops the wait", async () => {
    // Four requests a second, four turns already taken by the sync: the listing's turn is a second away.
    const pace = createLimiter(4)
    const held = new AbortController()
    for (let i = 0; i < 4; i++) void pace(held.signal)
    const asked: number[] = []
    const counting: Forwarder = {
      ...forwarder,
      forward: (...args) => {
        asked.push(Date.now())
        return forwarder.forward(...args)
      },
    }
    const paced = openWatch({ db, forwarder: counting, config: CONFIG, log: () => {}, now: () => clock, pace })
    const t0 = Date.now()
    const r = await paced.listNow()
    expect('gap' in r).toBe(false)
    expect(asked).toHaveLength(1)
    expect(asked[0]! - t0).toBeGreaterThanOrEqual(900)
    // Its turn taken, the next request waits a quarter of a second more; a watch that closes meanwhile does not ask at all.
    for (let i = 0; i < 8; i++) void pace(held.signal)
    const waiting = paced.listNow()
    await paced.close()
    expect(await waiting).toEqual({ gap: 'the server is stopping' })
    expect(asked).toHaveLength(1)
    held.abort()
  })
})
