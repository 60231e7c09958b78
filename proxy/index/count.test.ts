import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SearchResult } from '../../contract/index-api.ts'
import { createApp } from '../app.ts'
import { parseConfig } from '../config.ts'
import type { OpenedDb } from '../db/open.ts'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { createForwarder, type Forwarder } from '../forward.ts'
import { DEMO_CREDENTIALS } from '../simulator/dataset.ts'
import { createSimulator, type Simulator } from '../simulator/simulator.ts'
import { recordingGate } from '../testing/helpers.ts'
import { parseIndexConfig } from './config.ts'
import { parseFilters, type Filters } from '../kernel/params.ts'
import { countCapped, countMatches, rollUpCount } from './count-queries.ts'
import { whereOf } from './filter-sql.ts'
import { forget } from './queries.ts'
import { createIndex, type MessageIndex } from './routes.ts'
import { createSyncer } from './sync.ts'
import { deskIndexHooks } from '../desk/index-hooks.ts'

/**
 * The search's counts from the roll-ups (index_daily, index_quarter_hours) against a plain
 * COUNT over the messages, on both engines, over histories synced over HTTP: the simulator's
 * numbers and an upstream of awkward records (dates that do not parse, on and off the slot
 * boundaries, several to a second; no status, 1xx, 3xx, 5xx; no direction, odd casing). Random
 * ranges and filters, each checked, after a full sync, a catch-up and a forget. A failure names
 * its seed and the query.
 */

const engines = useEngines()

interface Listed {
  number: string
  tid: string
}

/** mulberry32: small, seeded, the same sequence everywhere. */
function prng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!

const apiDate = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

const STATUSES: ReadonlyArray<string | undefined> = [
  '200 [Possible status and meaning: 200 = success, 400 = error]',
  '200 [Possible status and meaning: 200 = success, 400 = error]',
  '200',
  '204 No content',
  '400 [Possible status and meaning: 200 = success, 400 = error]',
  '503 Carrier busy',
  '302 Found',
  '100 Continue',
  'pending',
  '',
  undefined,
]
const DIRECTIONS: ReadonlyArray<string | undefined> = ['outbound', 'outbound', 'inbound', 'inbound', '', undefined, 'Outbound']

/**
 * An upstream of one number whose records are awkward on purpose, newest first by position.
 * `grow(n)` adds n newer records, as arrivals between two syncs.
 */
function awkwardUpstream(seed: number) {
  const r = prng(seed)
  const oldestFirst: Array<Record<string, unknown>> = []
  let at = Date.UTC(2026, 2, 1, 23, 0, 0)
  const add = (n: number) => {
    for (let k = 0; k < n; k++) {
      const gap = r()
      // Same second, to the next quarter hour exactly, a few minutes, or hours.
      if (gap < 0.1) at += 0
      else if (gap < 0.3) at = (Math.floor(at / 900_000) + 1) * 900_000
      else if (gap < 0.8) at += Math.floor(r() * 600) * 1000
      else at += Math.floor(r() * 6 * 3600) * 1000
      const seq = oldestFirst.length + 1
      const bad = r() < 0.04
      const status = pick(r, STATUSES)
      const direction = pick(r, DIRECTIONS)
      const rec: Record<string, unknown> = {
        system_id: 900_000 + seq,
        message_id: `aw${seq}`,
        GMTdate: bad ? pick(r, ['not a date', '2026-02-31 10:00:00', '', '2026-03-02 25:00:00']) : apiDate(at),
        tid: 'AWK1',
        phone: pick(r, ['15550001111', '15550002222', '+1 (555) 000-3333']),
        body: pick(r, ['hello', 'order shipped', 'STOP']),
        mms: r() < 0.2 ? 'yes' : 'no',
        mms_url: '',
      }
      if (status !== undefined) rec.status = status
      if (direction !== undefined) rec.direction = direction
      oldestFirst.push(rec)
    }
  }
  add(700)
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      const f = new URLSearchParams(body)
      const newestFirst = [...oldestFirst].reverse()
      const start = Number(f.get('history_start'))
      const end = Math.min(Number(f.get('history_end')), newestFirst.length)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          success: '1',
          total_message_count: newestFirst.length,
          most_recent_msg_id: newestFirst[0]?.system_id,
          messages: newestFirst.slice(start - 1, end),
        }),
      )
    })
  })
  return { server, grow: add }
}

describe.each(ENGINES)('search counts from the roll-ups on %s', (engine) => {
  const SEED = Number(process.env.COUNT_SEED ?? 20261124)
  let sim: Simulator
  let simServer: Server
  let fw: Forwarder
  let awkward: ReturnType<typeof awkwardUpstream>
  let awkFw: Forwarder
  let numbers: Listed[]
  let db: OpenedDb
  let index: MessageIndex
  let api: Server
  let apiUrl: string
  const AWK = { number: '15550007777', tid: 'AWK1' }

  const syncNow = async (forwarder: Forwarder, n: Listed) => {
    const s = createSyncer({ hooks: deskIndexHooks, db, forwarder, pageCap: 97, concurrency: 1, rate: 0, backoffMs: 10, maxRetries: 1 })
    await s.request(n)
    await s.idle()
    await s.close()
  }
  const plainCount = async (f: Filters) => {
    const params: unknown[] = []
    const w = whereOf(f, params)
    const r = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM index_messages m WHERE ${w.length ? w.join(' AND ') : 'true'}`,
      params,
    )
    return r.rows[0]!.n
  }

  /** A bound near a stored message's date: on it, a second either side, whole quarter hours or days, odd minutes, offsets. */
  const bound = (r: () => number, dates: number[]): string => {
    const base = pick(r, dates)
    const shape = r()
    if (shape < 0.15) return new Date(base).toISOString().slice(0, 10)
    if (shape < 0.3) return new Date(base).toISOString().replace('.000Z', 'Z')
    if (shape < 0.4) return new Date(base + pick(r, [-1000, 1000, -1, 1])).toISOString()
    if (shape < 0.55) return new Date(Math.round(base / 900_000) * 900_000 + pick(r, [0, 0, 900_000, -900_000])).toISOString()
    if (shape < 0.7) return new Date(base + Math.floor((r() - 0.5) * 4 * 86_400_000)).toISOString()
    if (shape < 0.85) {
      // The same instant written with an offset: +05:30 (a half-hour zone), -03:00.
      const off = pick(r, [330, -180])
      const local = new Date(base + Math.floor((r() - 0.5) * 3 * 3_600_000) + off * 60_000).toISOString().slice(0, 19)
      return `${local}${off > 0 ? '+' : '-'}${String(Math.floor(Math.abs(off) / 60)).padStart(2, '0')}:${String(Math.abs(off) % 60).padStart(2, '0')}`
    }
    return new Date(base + Math.floor((r() - 0.5) * 40 * 86_400_000)).toISOString()
  }

  /**
   * `rounds` random filters of numbers, dates, direction and status: each counted by the
   * roll-ups and by a COUNT. Returns how many the roll-ups answered (the test wants most).
   */
  const compareRandom = async (seed: number, rounds: number): Promise<number> => {
    const r = prng(seed)
    const dates = (await db.query<{ d: Date }>('SELECT date AS d FROM index_messages')).rows.map((x) => new Date(x.d).getTime())
    const known = (await db.query<{ number: string }>('SELECT number FROM index_numbers WHERE indexed > 0 ORDER BY number')).rows.map(
      (x) => x.number,
    )
    expect(dates.length).toBeGreaterThan(0)
    let answered = 0
    for (let k = 0; k < rounds; k++) {
      const p = new Map<string, string>()
      const which = r()
      if (which < 0.3) p.set('numbers', pick(r, known))
      else if (which < 0.45) p.set('numbers', [pick(r, known), pick(r, known)].join(','))
      const d = r()
      if (d < 0.35) p.set('direction', d < 0.2 ? 'outbound' : 'inbound')
      const st = r()
      if (st < 0.3) p.set('status', 'success')
      else if (st < 0.6) p.set('status', 'error')
      else if (st < 0.65) p.set('status', 'other')
      const media = r()
      if (media < 0.15) p.set('media', media < 0.1 ? 'yes' : 'no')
      const span = r()
      let from = span < 0.85 ? bound(r, dates) : null
      let to = span > 0.15 ? bound(r, dates) : null
      if (from && to && Date.parse(from.length === 10 ? `${from}T00:00:00Z` : from) > Date.parse(to.length === 10 ? `${to}T00:00:00Z` : to))
        [from, to] = [to, from]
      if (from) p.set('from', from)
      if (to) p.set('to', to)
      let f: Filters
      try {
        f = parseFilters(p)
      } catch {
        // A day `to` before a same-day instant `from` is refused (400): nothing to count.
        continue
      }
      const what = `seed ${seed} round ${k}: ${new URLSearchParams([...p]).toString()}`
      const expected = await plainCount(f)
      const rolled = await rollUpCount(db, { ...f })
      if (rolled !== null) answered++
      expect(rolled ?? expected, what).toBe(expected)
      expect(await countMatches(db, { ...f }), what).toBe(expected)
      expect(await countCapped(db, { ...f }), what).toEqual({ total: expected, capped: false })
    }
    return answered
  }

  beforeAll(async () => {
    sim = createSimulator({ control: true })
    let simUrl: string
    ;({ server: simServer, url: simUrl } = await sim.listen(0, '127.0.0.1'))
    fw = createForwarder({ baseUrl: simUrl, ...DEMO_CREDENTIALS }, 10_000)
    numbers = (JSON.parse((await fw.forward('allownednumbers', [])).body.toString()) as { data: Listed[] }).data
    awkward = awkwardUpstream(SEED)
    await new Promise<void>((ok) => awkward.server.listen(0, '127.0.0.1', ok))
    awkFw = createForwarder(
      { baseUrl: `http://127.0.0.1:${(awkward.server.address() as AddressInfo).port}`, sysId: 'x', authToken: 'y' },
      5000,
    )
    db = await engines.open(engine)
    index = await createIndex(parseIndexConfig({ SYNC_RATE: '0', INDEX_AUTO_SYNC: 'off' }), { hooks: deskIndexHooks, forwarder: fw, db })
    const app = createApp(parseConfig({ API_BASE_URL: simUrl, API_SYS_ID: 'x', API_AUTH_TOKEN: 'y' }), {
      forwarder: fw,
      routes: index.routes,
      gate: recordingGate([]),
    })
    api = createServer((req: IncomingMessage, res: ServerResponse) => app(req, res))
    await new Promise<void>((ok) => api.listen(0, '127.0.0.1', ok))
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`
    // The simulator's small and mid-sized histories (a 503, a pending, thousands of rows) and the awkward one.
    for (const i of [0, 3, 4]) await syncNow(fw, numbers[i]!)
    await syncNow(awkFw, AWK)
  }, 120_000)

  afterAll(async () => {
    await index?.close()
    api?.closeAllConnections()
    await new Promise<void>((ok) => (api ? api.close(() => ok()) : ok()))
    await fw?.close()
    await awkFw?.close()
    awkward?.server.closeAllConnections()
    await new Promise<void>((ok) => (awkward ? awkward.server.close(() => ok()) : ok()))
    simServer?.closeAllConnections()
    await new Promise<void>((ok) => (simServer ? simServer.close(() => ok()) : ok()))
  })

  it('holds rows whose dates did not parse, with every kind of status and direction', async () => {
    const r = await db.query<{ raw: number; nostatus: number; other: number; nodir: number; n: number }>(
      `SELECT count(*) FILTER (WHERE date_raw IS NOT NULL)::int AS raw, count(*) FILTER (WHERE status_code IS NULL)::int AS nostatus,
              count(*) FILTER (WHERE status_code BETWEEN 100 AND 399 AND status_code NOT BETWEEN 200 AND 299)::int AS other,
              count(*) FILTER (WHERE direction IS NULL OR direction NOT IN ('inbound', 'outbound'))::int AS nodir, count(*)::int AS n
       FROM index_messages WHERE number = $1`,
      [AWK.number],
    )
    expect(r.rows[0]!.n).toBe(700)
    for (const k of ['raw', 'nostatus', 'other', 'nodir'] as const) expect(r.rows[0]![k], k).toBeGreaterThan(5)
  })

  it('counts what a COUNT counts, for random ranges and filters, after a sync, a catch-up and a forget', async () => {
    // Most of the filters are the roll-ups' to answer; the rest (status "other", media with a direction or a status) fall to the COUNT.
    expect(await compareRandom(SEED, 400)).toBeGreaterThan(200)
    // Arrivals, then a catch-up adds them to the rows and the roll-ups.
    awkward.grow(150)
    await syncNow(awkFw, AWK)
    expect(
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_messages WHERE number = $1', [AWK.number])).rows[0]!.n,
    ).toBe(850)
    expect(await compareRandom(SEED + 1, 200)).toBeGreaterThan(100)
    // A forgotten number leaves nothing in the roll-ups; synced again, it counts as before.
    await forget(db, numbers[3]!.number, deskIndexHooks)
    expect(await compareRandom(SEED + 2, 150)).toBeGreaterThan(75)
    await syncNow(fw, numbers[3]!)
    expect(await compareRandom(SEED + 3, 150)).toBeGreaterThan(75)
  }, 120_000)

  it('fills the outbound-failed and media counts of rows indexed before migration 340, as the sync keeps them', async () => {
    const kept = async () =>
      (
        await db.query<{ d: string; q: string }>(
          `SELECT (SELECT json_agg(json_build_array(number, day, failed_out, mms) ORDER BY number, day) FROM index_daily)::text AS d,
                  (SELECT json_agg(json_build_array(number, slot, failed_out, mms) ORDER BY number, slot) FROM index_quarter_hours)::text AS q`,
        )
      ).rows[0]!
    const bySync = await kept()
    expect(bySync.d).toMatch(/[1-9]/)
    // The index as it stood before the migration: the new columns at their default.
    await db.query('UPDATE index_daily SET failed_out = 0, mms = 0')
    await db.query('UPDATE index_quarter_hours SET failed_out = 0, mms = 0')
    const migration = readFileSync(fileURLToPath(new URL('../db/migrations/340-rollups-failed-out-mms.sql', import.meta.url)), 'utf8')
    const fills = migration
      .replace(/^--.*$/gm, '')
      .split(';')
      .map((x) => x.trim())
      .filter((x) => x.startsWith('UPDATE'))
    expect(fills).toHaveLength(2)
    for (const sql of fills) await db.query(sql)
    expect(await kept()).toEqual(bySync)
  })

  it('answers a status within a range from the roll-ups, edges off the quarter hours included', async () => {
    // The quarter hour with the most outbound messages of the awkward history: two whole slots from it.
    const busy = (
      await db.query<{ slot: Date }>('SELECT slot FROM index_quarter_hours WHERE number = $1 ORDER BY outbound DESC, slot LIMIT 1', [
        AWK.number,
      ])
    ).rows[0]!.slot
    const cases = [
      { status: 'success', from: '2026-03-02', to: '2026-03-05' },
      { status: 'error', from: '2026-03-02T07:13:29Z', to: '2026-03-09T18:44:01.5Z' },
      { status: 'success', numbers: AWK.number, from: '2026-03-01T23:59:59+05:30', to: '2026-03-06' },
      { direction: 'outbound', from: new Date(busy).toISOString(), to: new Date(new Date(busy).getTime() + 30 * 60_000).toISOString() },
      // A direction with a status, and media: from the outbound-failed and media counts.
      { direction: 'outbound', status: 'error', from: '2026-03-02T07:13:29Z', to: '2026-03-09T18:44:01.5Z' },
      { direction: 'inbound', status: 'success', from: '2026-03-01', to: '2026-03-09' },
      { media: 'yes', from: '2026-03-01T23:59:59+05:30', to: '2026-03-09' },
      { media: 'no', numbers: AWK.number },
    ]
    for (const c of cases) {
      const f = parseFilters(new Map(Object.entries(c)))
      const rolled = await rollUpCount(db, { ...f })
      expect(rolled, JSON.stringify(c)).not.toBeNull()
      expect(rolled, JSON.stringify(c)).toBe(await plainCount(f))
      expect(rolled, JSON.stringify(c)).toBeGreaterThan(0)
    }
    // Over HTTP: the same exact total, not capped.
    const r = await fetch(`${apiUrl}/api/index/search?status=success&from=2026-03-02T07:13:29Z&to=2026-03-09&limit=5`)
    expect(r.status).toBe(200)
    const body = (await r.json()) as SearchResult
    expect(body.totalCapped).toBe(false)
    expect(body.total).toBe(
      await plainCount(
        parseFilters(
          new Map([
            ['status', 'success'],
            ['from', '2026-03-02T07:13:29Z'],
            ['to', '2026-03-09'],
          ]),
        ),
      ),
    )
    expect(body.rows.length).toBe(5)
  })

  it('caps the count where no roll-up answers, and says it did', async () => {
    // Media with a direction is not in the roll-ups: a COUNT, stopped after the cap.
    const f = parseFilters(
      new Map([
        ['media', 'yes'],
        ['direction', 'outbound'],
      ]),
    )
    expect(await rollUpCount(db, { ...f })).toBeNull()
    const exact = await plainCount(f)
    expect(exact).toBeGreaterThan(50)
    expect(await countCapped(db, { ...f }, 50)).toEqual({ total: 50, capped: true })
    expect(await countCapped(db, { ...f }, exact)).toEqual({ total: exact, capped: false })
    expect(await countCapped(db, { ...f }, exact - 1)).toEqual({ total: exact - 1, capped: true })
    // With a range, the count walks the date index (the planner told so, in a transaction or a batch): the same answers.
    const ranged = parseFilters(
      new Map([
        ['media', 'yes'],
        ['direction', 'outbound'],
        ['from', '2026-03-01T23:59:59Z'],
      ]),
    )
    const inRange = await plainCount(ranged)
    expect(inRange).toBeGreaterThan(10)
    expect(await countCapped(db, { ...ranged })).toEqual({ total: inRange, capped: false })
    expect(await countCapped(db, { ...ranged }, 10)).toEqual({ total: 10, capped: true })
    // The same filter through the route: under the server's cap, exact.
    const r = (await (await fetch(`${apiUrl}/api/index/search?media=yes&direction=outbound&limit=1`)).json()) as SearchResult
    expect(r).toMatchObject({ total: exact, totalCapped: false })
  })
})
