import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { partyKey } from '../../contract/desk/messages.ts'
import { needsReplyQueue } from '../../contract/desk/needs-reply.ts'
import { optOutLedger } from '../../contract/desk/opt-out-ledger.ts'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { statusCode } from '../index/parse.ts'
import { DEMO_CREDENTIALS, END_MS, makeAccount, messageAt } from '../simulator/dataset.ts'
import { DESK_INDEX } from '../simulator/desk-cases.ts'
import type { Db, Queryable } from '../db/types.ts'
import { BODY_IDS_SQL } from '../index/sync/sql.ts'
import { deskFacts, storedLocalDay } from '../../contract/desk/facts.ts'
import { flushDesk, OPT_RULES_VERSION, reclassifyOptOuts, refreshAllDesk, refreshDesk } from './refresh.ts'
import { storeDeskFacts } from './refresh-facts.ts'
import { sentAfterBatch, sentAfterCount, sentAfterPage, type SentRow } from './sent-after.ts'

/**
 * The desk's SQL on both engines (PGlite and a real PostgreSQL): the desk number's messages,
 * stored newest batch first as a full walk stores them, must leave the thread states and the
 * sends after opt-out that contract/desk computes over the same messages, whether the facts come
 * from refreshDesk reading the index back or are written with the rows by the sync's store step
 * (then storeDeskFacts); and the store step's tables must equal a catch-up from messages stored
 * without facts, row for row.
 */

const engines = useEngines()
const DESK = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60).numbers[DESK_INDEX]!

const messages = Array.from({ length: DESK.baseTotal }, (_, i) => {
  const r = messageAt(DESK, i + 1, DESK.baseTotal, 'http://sim.invalid', 0)
  return {
    number: DESK.number,
    // The key the parse step stores (proxy/index/parse.ts): a party written both ways is one party.
    party: partyKey(r.phone),
    direction: r.direction,
    date: `${r.GMTdate.replace(' ', 'T')}Z`,
    ordinal: i + 1,
    body: r.body,
    statusCode: statusCode(r.status),
  }
})

const INSERT_MESSAGES = `INSERT INTO index_messages (number, ordinal, fetched_tid, date, party_digits, direction, body, status_code)
  SELECT $1, u.o, 'T', u.d, u.p, u.dir, u.b, u.s FROM unnest($2::int[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::int[]) AS u(o, d, p, dir, b, s)
  ON CONFLICT (number, ordinal) DO NOTHING`

/** As storeBatch writes rows: each with its desk facts; returns the ordinals that went in (a stored one is skipped). */
const INSERT_WITH_FACTS = `INSERT INTO index_messages (number, ordinal, fetched_tid, date, party_digits, direction, body, status_code,
    desk_inbound, desk_opt, desk_segments, desk_forcing, desk_extra, desk_local_day, desk_quiet)
  SELECT $1, u.o, 'T', u.d, u.p, u.dir, u.b, u.s, u.i, u.k, u.sg, string_to_array(u.fc, E'\\x1f'), u.x, u.ld, u.q
    FROM unnest($2::int[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::int[],
                $8::bool[], $9::text[], $10::int[], $11::text[], $12::int[], $13::date[], $14::bool[])
      AS u(o, d, p, dir, b, s, i, k, sg, fc, x, ld, q)
  ON CONFLICT (number, ordinal) DO NOTHING RETURNING ordinal`

async function insertWithFacts(q: Queryable, batch: typeof messages, number = DESK.number): Promise<Set<number>> {
  const facts = batch.map(deskFacts())
  const r = await q.query<{ ordinal: number }>(INSERT_WITH_FACTS, [
    number,
    batch.map((m) => m.ordinal),
    batch.map((m) => m.date),
    batch.map((m) => m.party),
    batch.map((m) => m.direction),
    batch.map((m) => m.body),
    batch.map((m) => m.statusCode),
    facts.map((f) => f.inbound),
    facts.map((f) => f.opt),
    facts.map((f) => f.segments),
    facts.map((f) => f.forcing?.join('\x1f') ?? null),
    facts.map((f) => f.extra),
    facts.map(storedLocalDay),
    facts.map((f) => f.quiet),
  ])
  const got = new Set(r.rows.map((x) => x.ordinal))
  await storeDeskFacts(
    q,
    number,
    batch.flatMap((m, i) =>
      got.has(m.ordinal)
        ? [{ ordinal: m.ordinal, party: m.party, date: m.date, failed: (m.statusCode ?? 0) >= 400, facts: facts[i]! }]
        : [],
    ),
  )
  return got
}

async function insertMessages(q: Queryable, batch: typeof messages) {
  await q.query(INSERT_MESSAGES, [
    DESK.number,
    batch.map((m) => m.ordinal),
    batch.map((m) => m.date),
    batch.map((m) => m.party),
    batch.map((m) => m.direction),
    batch.map((m) => m.body),
    batch.map((m) => m.statusCode),
  ])
}

/** The index as the desk left it off: messages stored without facts. */
const CLEAR_FACTS = `UPDATE index_messages SET desk_inbound = NULL, desk_opt = NULL, desk_segments = NULL, desk_forcing = NULL,
  desk_extra = NULL, desk_local_day = NULL, desk_quiet = NULL`

/** Every desk table in a stable order, dates as ISO text (what a row-for-row comparison needs). */
async function deskTables(q: Queryable) {
  const rows = async (sql: string) => JSON.parse(JSON.stringify((await q.query(sql)).rows)) as unknown[]
  return {
    messages: await rows('SELECT * FROM desk_messages ORDER BY number, ordinal'),
    threads: await rows('SELECT * FROM desk_threads ORDER BY number, party'),
    periods: await rows('SELECT * FROM desk_opt_periods ORDER BY number, party, opt_ordinal'),
    optMessages: await rows('SELECT * FROM desk_opt_messages ORDER BY number, party, date, ordinal'),
    quietDays: await rows(
      `SELECT number, to_char(day, 'YYYY-MM-DD') AS day, to_char(local_day, 'YYYY-MM-DD') AS local_day, outbound, unknown, quiet
         FROM desk_quiet_days ORDER BY number, day, local_day`,
    ),
    segmentDays: await rows(
      `SELECT number, to_char(day, 'YYYY-MM-DD') AS day, messages, segments, ucs2, extra FROM desk_segment_days ORDER BY number, day`,
    ),
    dirty: await rows('SELECT * FROM desk_dirty ORDER BY number, party'),
  }
}

describe.each(ENGINES)('the store step on %s', (engine) => {
  it('keeps the facts with each stored batch and, after one recompute, equals a catch-up from empty tables', async () => {
    const db = await engines.open(engine)
    const BATCH = 40
    for (let hi = messages.length; hi > 0; hi -= BATCH) {
      const batch = messages.slice(Math.max(0, hi - BATCH), hi)
      // As storeBatch does: the rows with their facts, then the batch's counts, in one transaction.
      expect((await db.transaction((tx) => insertWithFacts(tx, batch))).size).toBe(batch.length)
    }
    // A batch stored again (a catch-up overlapping what is stored) inserts nothing and changes nothing.
    expect((await db.transaction((tx) => insertWithFacts(tx, messages.slice(0, BATCH)))).size).toBe(0)
    const dirty = await db.query<{ n: number }>('SELECT count(DISTINCT party)::int AS n FROM desk_dirty')
    expect(dirty.rows[0]!.n).toBe(new Set(messages.map((m) => m.party)).size)
    expect(await flushDesk(db, [DESK.number])).toBe(dirty.rows[0]!.n)
    await expectRules(db)
    const kept = await deskTables(db)
    expect(kept.messages).toHaveLength(messages.length)

    await db.query(
      `INSERT INTO index_numbers (number, tid, indexed, top_ordinal, state, full_done) VALUES ($1, 'T', $2, $2, 'idle', true)`,
      [DESK.number, messages.length],
    )
    expect(kept.quietDays.length).toBeGreaterThan(0)
    await db.query(CLEAR_FACTS)
    await db.query('UPDATE index_numbers SET desk_behind = true')
    expect(kept.segmentDays.length).toBeGreaterThan(0)
    await db.query('TRUNCATE desk_quiet_days, desk_segment_days, desk_threads, desk_opt_periods, desk_opt_messages, desk_dirty')
    expect(await deskTables(db)).toMatchObject({ messages: [], threads: [], quietDays: [], segmentDays: [] })
    expect(await refreshAllDesk(db)).toMatchObject({ messages: messages.length })
    expect(await deskTables(db)).toEqual(kept)
  }, 120_000)
})

describe.each(ENGINES)('the recompute after a catch-up on %s', (engine) => {
  it('lists the new sends after opt-out with the ones before, and keeps one period row per opt-out', async () => {
    const db = await engines.open(engine)
    // The last sends (up to two a party) after opt-outs arrive later, as a catch-up would bring them.
    const late = new Set(
      optOutLedger(messages).flatMap((e) => e.sentAfter.slice(-2).map((x) => (x.message as (typeof messages)[number]).ordinal)),
    )
    expect(late.size).toBeGreaterThanOrEqual(2)
    const fresh = messages.filter((m) => late.has(m.ordinal))
    await db.transaction((tx) =>
      insertWithFacts(
        tx,
        messages.filter((m) => !late.has(m.ordinal)),
      ),
    )
    await flushDesk(db, [DESK.number])
    const before = (await sentList(db, DESK.number)).map((r) => r.ordinal)
    for (const o of late) expect(before).not.toContain(o)
    const periods = await db.query('SELECT party, opt_ordinal FROM desk_opt_periods WHERE number = $1 ORDER BY party, opt_ordinal', [
      DESK.number,
    ])
    // They arrive; until their thread is recomputed (a sync running on the number leaves it to its
    // own end) the list is what the periods count, every page and batch alike (sentList checks).
    await db.transaction((tx) => insertWithFacts(tx, fresh))
    expect((await sentList(db, DESK.number)).map((r) => r.ordinal)).toEqual(before)
    expect(await flushDesk(db, [DESK.number])).toBeGreaterThan(0)
    await expectRules(db)
    const after = (await sentList(db, DESK.number)).map((r) => r.ordinal)
    expect([...after].sort((x, y) => x - y)).toEqual([...before, ...late].sort((x, y) => x - y))
    // The periods were written again, not added to.
    expect(
      (await db.query('SELECT party, opt_ordinal FROM desk_opt_periods WHERE number = $1 ORDER BY party, opt_ordinal', [DESK.number])).rows,
    ).toEqual(periods.rows)
  }, 60_000)
})

describe.each(ENGINES)('the recompute after catch-ups of threads with hundreds of sends after opt-out on %s', (engine) => {
  it('equals a recompute from scratch and the rules after opt-outs, re-opt-ins, sends and messages dated before stored ones', async () => {
    const db = await engines.open(engine)
    const number = '15550004444'
    const start = Date.parse('2033-01-01T00:00:00Z')
    const MAX = 200
    // Party t's k-th minute (its own second within the minute, so no two messages share a date);
    // +30 s puts a message between two stored ones of its thread.
    const at = (t: number, k: number, skew = 0) => start + k * 60_000 + t * 7_000 + skew
    // With a body: an inbound message with that text; without: a send.
    type Plan = { t: number; k: number; skew?: number; body?: string }
    const party = (t: number) => `1212555020${t}`
    const all: typeof messages = []
    const add = (plan: Plan[]) => {
      const batch = plan
        .map((p) => ({ ...p, ms: at(p.t, p.k, p.skew) }))
        .sort((a, b) => a.ms - b.ms)
        .map((p, i) => ({
          number,
          party: party(p.t),
          direction: p.body ? 'inbound' : 'outbound',
          date: new Date(p.ms).toISOString(),
          // New messages take the next ordinals, whatever their dates.
          ordinal: all.length + i + 1,
          body: p.body ?? `Reminder ${p.k}`,
          statusCode: p.k % 97 === 0 ? 500 : 200,
        }))
      all.push(...batch)
      return batch
    }
    const sends = (t: number, from: number, to: number): Plan[] => Array.from({ length: to - from + 1 }, (_, i) => ({ t, k: from + i }))
    // Each thread but D has hundreds of sends after its opt-out. A, C and F's first send
    // is within the confirmation window (not evidence), B and E's is not.
    const base = add([
      { t: 0, k: 0, body: 'hi' },
      { t: 0, k: 1, body: 'STOP' },
      ...sends(0, 2, MAX + 61),
      { t: 1, k: 0, body: 'STOP' },
      ...sends(1, 10, MAX + 30),
      { t: 2, k: 0, body: 'STOP' },
      ...sends(2, 1, MAX + 10),
      { t: 3, k: 0, body: 'hi' },
      ...sends(3, 1, 20),
      { t: 4, k: 0, body: 'Stop texting me' },
      ...sends(4, 10, MAX + 11),
      { t: 5, k: 0, body: 'STOP' },
      ...sends(5, 3, MAX + 10),
      // Two sends short of a full list.
      { t: 6, k: 0, body: 'STOP' },
      ...sends(6, 10, MAX + 7),
    ])
    for (let i = 0; i < base.length; i += 5_000) await db.transaction((tx) => insertWithFacts(tx, base.slice(i, i + 5_000), number))
    await db.query(
      `INSERT INTO index_numbers (number, tid, indexed, top_ordinal, state, full_done) VALUES ($1, 'T4', $2, $2, 'idle', true)`,
      [number, base.length],
    )
    await flushDesk(db, [number])
    await expectSame(db, number, all)

    // Catch-up 1, everything dated after what is stored: sends after A's opt-out, its re-opt-in
    // and a new opt-out (with its confirmation and sends), sends to B and F, and three
    // to G.
    const first = add([
      ...sends(0, MAX + 70, MAX + 72),
      { t: 0, k: MAX + 80, body: 'START' },
      { t: 0, k: MAX + 81 },
      { t: 0, k: MAX + 90, body: 'UNSUBSCRIBE' },
      ...sends(0, MAX + 91, MAX + 93),
      { t: 1, k: MAX + 40 },
      ...sends(5, MAX + 20, MAX + 24),
      ...sends(6, MAX + 20, MAX + 22),
    ])
    await db.transaction((tx) => insertWithFacts(tx, first, number))
    // Each thread marked with the earliest date of its new messages.
    const dirty = await db.query<{ party: string; since: Date }>('SELECT party, since FROM desk_dirty WHERE number = $1 ORDER BY party', [
      number,
    ])
    const earliest = new Map<string, string>()
    for (const m of first) if (!earliest.has(m.party) || m.date < earliest.get(m.party)!) earliest.set(m.party, m.date)
    expect(dirty.rows.map((d) => [d.party, new Date(d.since).toISOString()])).toEqual([...earliest].sort())
    await flushDesk(db, [number])
    await expectSame(db, number, all)

    // Catch-up 2, with messages dated before stored ones (skewed clocks): a send inside B's period,
    // an opt-in inside C's period (it ends there), an
    // opt-out in the middle of D's thread (its later sends become evidence), a send just after E's
    // opt-out (the new first send, within the confirmation window) and a repeated STOP while out.
    const second = add([
      { t: 1, k: MAX / 20, skew: 30_000 },
      { t: 1, k: MAX + 41 },
      { t: 2, k: MAX / 2, skew: 30_000, body: 'START' },
      { t: 2, k: MAX + 20 },
      { t: 3, k: 5, skew: 30_000, body: 'STOP' },
      { t: 4, k: 2 },
      { t: 4, k: MAX + 30, body: 'STOP' },
    ])
    await db.transaction((tx) => insertWithFacts(tx, second, number))
    await flushDesk(db, [number])
    await expectSame(db, number, all)

    // Catch-up 3: sends at the end again, to A's new period and to B and F.
    const third = add([...sends(0, MAX + 100, MAX + 102), { t: 1, k: MAX + 50 }, ...sends(5, MAX + 30, MAX + 31)])
    await db.transaction((tx) => insertWithFacts(tx, third, number))
    await flushDesk(db, [number])
    await expectSame(db, number, all)
  }, 240_000)
})

describe.each(ENGINES)('threads marked for recompute on %s', (engine) => {
  it('keep the earliest date of the messages that marked them, and none once marked without one', async () => {
    const db = await engines.open(engine)
    const number = '15550004445'
    const of = deskFacts()
    const mark = (party: string, date: string) =>
      db.transaction((tx) =>
        storeDeskFacts(tx, number, [
          { ordinal: 1, party, date, failed: false, facts: of({ party, date, direction: 'outbound', body: 'Reminder' }) },
        ]),
      )
    const since = async () =>
      (
        await db.query<{ party: string; since: Date | null }>('SELECT party, since FROM desk_dirty WHERE number = $1 ORDER BY party', [
          number,
        ])
      ).rows.map((d) => [d.party, d.since && new Date(d.since).toISOString()])
    await mark('12125550301', '2033-02-01T10:00:00.000Z')
    await mark('12125550302', '2033-02-01T10:00:00.000Z')
    await mark('12125550303', '2033-02-01T10:00:00.000Z')
    // Later: kept. Earlier: lowered. Marked without a date (as refreshDesk marks the parties it is given): none from then on.
    await mark('12125550301', '2033-02-02T10:00:00.000Z')
    await mark('12125550302', '2033-01-31T10:00:00.000Z')
    await db.query(
      `INSERT INTO index_numbers (number, tid, indexed, top_ordinal, state, full_done) VALUES ($1, 'T5', 1, 1, 'idle', true)`,
      [number],
    )
    // Within THREAD_REFRESH_MS of a refresh with a range, a refresh defers its threads to desk_dirty.
    let deferred = false
    for (let attempt = 0; attempt < 3 && !deferred; attempt++) {
      await refreshDesk(db, number, [], { min: 1, max: 0 })
      await mark('12125550301', '2033-02-02T10:00:00.000Z')
      await mark('12125550302', '2033-01-31T10:00:00.000Z')
      await mark('12125550303', '2033-02-01T10:00:00.000Z')
      deferred = (await refreshDesk(db, number, ['12125550303'], { min: 1, max: 0 })).threads === 0
    }
    expect(deferred).toBe(true)
    await mark('12125550303', '2033-01-01T10:00:00.000Z')
    expect(await since()).toEqual([
      ['12125550301', '2033-02-02T10:00:00.000Z'],
      ['12125550302', '2033-01-31T10:00:00.000Z'],
      ['12125550303', null],
    ])
  }, 60_000)
})

/**
 * Every send after opt-out the report lists for a number (or all), read as the export reads it:
 * keyset batches of `size` (fewer than the periods with sends, each batch reads only some of them:
 * see AFTER in sent-after.ts).
 */
async function sentList(q: Queryable, number: string | null, size = 37): Promise<SentRow[]> {
  const out: SentRow[] = []
  for (let after: SentRow | null = null; ;) {
    const batch: SentRow[] = await sentAfterBatch(q, { number, keys: null }, after, size)
    out.push(...batch)
    if (batch.length < size) break
    after = batch[batch.length - 1]!
  }
  // Newest first (date, then number, then ordinal newest first), each send once; the page is a slice of the same order.
  const key = (r: SentRow) => `${new Date(r.date).toISOString()} ${r.number} ${String(1e9 - r.ordinal).padStart(10, '0')}`
  for (let i = 1; i < out.length; i++) expect(key(out[i - 1]!) < key(out[i]!) || key(out[i - 1]!) > key(out[i]!)).toBe(true)
  const dates = out.map((r) => new Date(r.date).getTime())
  expect(dates).toEqual([...dates].sort((x, y) => y - x))
  expect(new Set(out.map((r) => `${r.number} ${r.ordinal}`)).size).toBe(out.length)
  expect(await sentAfterCount(q, { number, keys: null })).toBe(out.length)
  for (const [limit, offset] of [
    [25, 0],
    [50, 20],
    [10, Math.max(0, out.length - 5)],
    [1, 0],
    [2, 3],
  ] as const)
    expect((await sentAfterPage(q, { number, keys: null }, limit, offset)).map((r) => `${r.number} ${r.ordinal}`)).toEqual(
      out.slice(offset, offset + limit).map((r) => `${r.number} ${r.ordinal}`),
    )
  return out
}

/**
 * The number's threads and sends after opt-out against the rules (every send of each period, the
 * confirmation left out, counted and listed) and against a recompute of every thread from scratch,
 * row for row.
 */
async function expectSame(db: Db, number: string, all: typeof messages) {
  const ledger = optOutLedger(all)
  const evidence: number[] = []
  for (const e of ledger) {
    const thread = all.filter((m) => m.party === e.party)
    for (let h = 0; h < e.history.length; h++) {
      if (e.history[h]!.state !== 'opted-out') continue
      const from = e.history[h]!.message as (typeof all)[number]
      const to = e.history[h + 1]?.message as (typeof all)[number] | undefined
      const key = (m: (typeof all)[number]) => [Date.parse(m.date), m.ordinal] as const
      const after = (a: readonly [number, number], b: readonly [number, number]) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1])
      const inPeriod = thread.filter((m) => m.direction === 'outbound' && after(key(m), key(from)) && (!to || after(key(to), key(m))))
      const listed = e.sentAfter.filter((x) => x.optOut === from).map((x) => (x.message as (typeof all)[number]).ordinal)
      // The period's sends, less the one confirmation the rules leave out.
      expect(inPeriod.length - listed.length).toBeLessThanOrEqual(1)
      evidence.push(...listed)
    }
  }
  const threads = async () =>
    JSON.parse(JSON.stringify((await db.query('SELECT * FROM desk_threads WHERE number = $1 ORDER BY party', [number])).rows)) as Array<{
      party: string
      opted_out: boolean
      sent_after: number
    }>
  const periods = async () =>
    JSON.parse(
      JSON.stringify((await db.query('SELECT * FROM desk_opt_periods WHERE number = $1 ORDER BY party, opt_ordinal', [number])).rows),
    )
  const rows = async () => (await sentList(db, number)).map((r) => r.ordinal).sort((a, b) => a - b)
  const kept = { threads: await threads(), periods: await periods(), rows: await rows() }
  expect(kept.threads.filter((t) => t.sent_after > 0 || t.opted_out).map((t) => [t.party, t.opted_out, t.sent_after])).toEqual(
    ledger
      .filter((e) => e.optedOut || e.sentAfter.length > 0)
      .map((e) => [e.party, e.optedOut, e.sentAfter.length])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  )
  expect(kept.rows).toEqual(evidence.sort((a, b) => a - b))
  // From scratch: no periods, every thread marked without a date.
  await db.query('DELETE FROM desk_opt_periods WHERE number = $1', [number])
  await db.query('INSERT INTO desk_dirty (number, party) SELECT number, party FROM desk_threads WHERE number = $1 ON CONFLICT DO NOTHING', [
    number,
  ])
  await flushDesk(db, [number])
  expect({ threads: await threads(), periods: await periods(), rows: await rows() }).toEqual(kept)
}

/** The desk tables against contract/desk's pure rules over the same messages. */
async function expectRules(db: Queryable) {
  const queue = needsReplyQueue(messages, 15 * 60_000, END_MS)
  const waiting = await db.query<{ party: string; since: Date; n: number }>(
    `SELECT party, waiting_since AS since, unanswered AS n FROM desk_threads
      WHERE waiting_since <= $1 ORDER BY waiting_since, party`,
    [new Date(END_MS - 15 * 60_000)],
  )
  expect(waiting.rows.map((w) => [w.party, new Date(w.since).toISOString(), w.n])).toEqual(
    queue.map((q) => [q.party, q.since, q.unanswered]),
  )

  const ledger = optOutLedger(messages)
  const threads = await db.query<{ party: string; opted_out: boolean; sent_after: number }>(
    `SELECT party, opted_out, sent_after FROM desk_threads WHERE opt_history <> '[]' ORDER BY party`,
  )
  expect(threads.rows.map((t) => [t.party, t.opted_out, t.sent_after])).toEqual(
    ledger.map((e) => [e.party, e.optedOut, e.sentAfter.length]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  )
  // Batches of 2, fewer than the periods with sends: each batch reads only the periods that can reach it.
  const periods = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM desk_opt_periods WHERE sends > 0')
  expect(periods.rows[0]!.n).toBeGreaterThan(2)
  const sent = (await sentList(db, null, 2)).sort((a, b) => a.ordinal - b.ordinal)
  expect(sent.map((s) => [s.ordinal, Number(s.after_ms), s.failed])).toEqual(
    ledger
      .flatMap((e) => e.sentAfter.map((s) => [(s.message as (typeof messages)[number]).ordinal, s.afterMs, s.failed]))
      .sort((a, b) => Number(a[0]) - Number(b[0])),
  )
}

describe.each(ENGINES)('a thread marked handled on %s', (engine) => {
  it('up to the message shown keeps one indexed later, though dated before the click, unanswered; by time alone it did not', async () => {
    const db = await engines.open(engine)
    const number = '15550004447'
    const party = '12125550501'
    const t0 = Date.parse('2033-04-01T12:00:00Z')
    const msg = (ordinal: number, minutes: number, body: string) => ({
      number,
      party,
      direction: 'inbound' as const,
      date: new Date(t0 + minutes * 60_000).toISOString(),
      ordinal,
      body,
      statusCode: 200,
    })
    const shown = msg(1, 0, 'Is my order ready?')
    await db.transaction((tx) => insertWithFacts(tx, [shown], number))
    await db.query(
      `INSERT INTO index_numbers (number, tid, indexed, top_ordinal, state, full_done) VALUES ($1, 'T7', 1, 1, 'idle', true)`,
      [number],
    )
    await flushDesk(db, [number])
    const waiting = async () =>
      (
        await db.query<{ since: Date | null; n: number }>(
          'SELECT waiting_since AS since, unanswered AS n FROM desk_threads WHERE number = $1',
          [number],
        )
      ).rows.map((r) => [r.since && new Date(r.since).toISOString(), r.n])
    expect(await waiting()).toEqual([[shown.date, 1]])
    // Marked handled 3 minutes after the question, up to it. Then the sync brings a message sent
    // at minute 2, before the click, that nobody saw.
    const clicked = new Date(t0 + 3 * 60_000)
    const mark = (through: { date: string; ordinal: number } | null) =>
      db.query(
        `INSERT INTO desk_handled (number, party, handled_at, handled_by, through_date, through_ordinal) VALUES ($1, $2, $3, 'ann', $4, $5)
         ON CONFLICT (number, party) DO UPDATE SET handled_at = $3, through_date = $4, through_ordinal = $5`,
        [number, party, clicked, through?.date ?? null, through?.ordinal ?? null],
      )
    await mark(shown)
    await refreshDesk(db, number, [party])
    expect(await waiting()).toEqual([[null, 0]])
    const late = msg(2, 2, 'Hello? Also, can I change the address?')
    await db.transaction((tx) => insertWithFacts(tx, [late], number))
    await flushDesk(db, [number])
    expect(await waiting()).toEqual([[late.date, 1]])
    // Marked by the time alone (no message named): the late message counts as handled.
    await mark(null)
    await refreshDesk(db, number, [party])
    expect(await waiting()).toEqual([[null, 0]])
  }, 120_000)
})

describe.each(ENGINES)('facts stored under older opt-out rules on %s', (engine) => {
  it('are classified again at the next start: the threads follow, and a start after that reads nothing', async () => {
    const db = await engines.open(engine)
    const number = '15550004446'
    const t0 = Date.parse('2033-03-01T10:00:00Z')
    const plan: Array<[party: string, direction: 'inbound' | 'outbound', body: string]> = [
      // A: a STOP above a signature, which rules version 1 read as none; then two sends.
      ['12125550401', 'inbound', 'STOP\nSent from my iPhone'],
      ['12125550401', 'outbound', 'Your order shipped'],
      ['12125550401', 'outbound', 'Rate your delivery'],
      // B: CANCEL APPOINTMENT, which version 1 read as CANCEL and a sender's name; then a send.
      ['12125550402', 'inbound', 'CANCEL APPOINTMENT'],
      ['12125550402', 'outbound', 'Your appointment is cancelled'],
      // C: a plain STOP, the same under every version; then a send.
      ['12125550403', 'inbound', 'STOP'],
      ['12125550403', 'outbound', 'Last reminder'],
      // D: STOP set off by a comma, which versions 1 and 2 read as none; then a send.
      ['12125550404', 'inbound', 'Stop, who is this?'],
      ['12125550404', 'outbound', 'This is Acme Dental'],
      // E: a question with a comma and no keyword: read again (every inbound message is, once), still none.
      ['12125550405', 'inbound', 'Hi, is the office open?'],
    ]
    const all = plan.map(([party, direction, body], i) => ({
      number,
      party,
      direction,
      date: new Date(t0 + i * 3_600_000).toISOString(),
      ordinal: i + 1,
      body,
      statusCode: 200,
    }))
    await db.transaction((tx) => insertWithFacts(tx, all, number))
    await db.query(
      `INSERT INTO index_numbers (number, tid, indexed, top_ordinal, state, full_done) VALUES ($1, 'T6', $2, $2, 'idle', true)`,
      [number, all.length],
    )
    // The facts as version 1 stored them, and the threads recomputed from those.
    await db.query(`UPDATE index_messages SET desk_opt = NULL WHERE number = $1 AND ordinal = 1`, [number])
    await db.query(`UPDATE index_messages SET desk_opt = 'opt-out' WHERE number = $1 AND ordinal = 4`, [number])
    await db.query(`UPDATE index_messages SET desk_opt = NULL WHERE number = $1 AND ordinal = 8`, [number])
    // desk_opt_messages as the store step wrote it with those facts.
    await db.query('DELETE FROM desk_opt_messages WHERE number = $1', [number])
    await db.query(
      `INSERT INTO desk_opt_messages (number, party, date, ordinal, kind)
       SELECT number, party_digits, date, ordinal, desk_opt FROM index_messages WHERE number = $1 AND desk_opt IS NOT NULL`,
      [number],
    )
    await db.query('UPDATE desk_rules SET opt_version = 1')
    await flushDesk(db, [number])
    const threads = async () =>
      (
        await db.query<{ party: string; opted_out: boolean; sent_after: number }>(
          'SELECT party, opted_out, sent_after FROM desk_threads WHERE number = $1 ORDER BY party',
          [number],
        )
      ).rows.map((t) => [t.party, t.opted_out, t.sent_after])
    expect(await threads()).toEqual([
      ['12125550401', false, 0],
      ['12125550402', true, 1],
      ['12125550403', true, 1],
      ['12125550404', false, 0],
      ['12125550405', false, 0],
    ])

    const lines: string[] = []
    await refreshAllDesk(db, (l) => lines.push(l))
    // As the rules say over the same messages now.
    const ledger = optOutLedger(all)
    expect(await threads()).toEqual(
      [...new Set(all.map((m) => m.party))].sort().map((party) => {
        const e = ledger.find((x) => x.party === party)
        return [party, e?.optedOut ?? false, e?.sentAfter.length ?? 0]
      }),
    )
    expect(await threads()).toEqual([
      ['12125550401', true, 2],
      ['12125550402', false, 0],
      ['12125550403', true, 1],
      ['12125550404', true, 1],
      ['12125550405', false, 0],
    ])
    // Read again: every inbound message (A's, B's, C's, D's, E's); changed: A's, B's and D's.
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(
            `^desk: opt-out rules version ${OPT_RULES_VERSION}: 5 stored messages read again, 3 classified differently, in \\d+ ms$`,
          ),
        ),
      ]),
    )
    expect((await db.query<{ opt_version: number }>('SELECT opt_version FROM desk_rules')).rows).toEqual([
      { opt_version: OPT_RULES_VERSION },
    ])
    // Recorded: the next start classifies nothing again.
    expect(await reclassifyOptOuts(db)).toBe(0)
  }, 120_000)
})

describe.each(ENGINES)('refreshDesk on %s', (engine) => {
  it('keeps the desk tables equal to the pure rules, batch by batch', async () => {
    const db = await engines.open(engine)
    const BATCH = 9
    for (let hi = messages.length; hi > 0; hi -= BATCH) {
      const batch = messages.slice(Math.max(0, hi - BATCH), hi)
      await insertMessages(db, batch)
      await refreshDesk(db, DESK.number, undefined, { min: batch[0]!.ordinal, max: batch[batch.length - 1]!.ordinal })
    }
    await flushDesk(db)
    await expectRules(db)
    expect(partyKey(DESK.number)).toBe(DESK.number)
  }, 120_000)
})

describe.each(ENGINES)('sends after opt-out on %s', { tags: ['long'] }, (engine) => {
  it('counts and lists every one however many follow one opt-out', async () => {
    const db = await engines.open(engine)
    const number = '15550009999'
    const party = '15550001111'
    const start = Date.parse('2030-01-01T00:00:00Z')
    // An opt-out, then more sends than any page or batch holds, one a minute.
    const SENDS = 12_345
    const thread = Array.from({ length: SENDS + 1 }, (_, i) => ({
      number,
      party,
      direction: i === 0 ? 'inbound' : 'outbound',
      date: new Date(start + i * 60_000).toISOString(),
      ordinal: i + 1,
      body: i === 0 ? 'STOP' : `Reminder ${i}`,
      statusCode: 200,
    }))
    await db.query(INSERT_MESSAGES.replace("'T'", "'T2'"), [
      number,
      thread.map((m) => m.ordinal),
      thread.map((m) => m.date),
      thread.map((m) => m.party),
      thread.map((m) => m.direction),
      thread.map((m) => m.body),
      thread.map((m) => m.statusCode),
    ])
    // As the sync does after storing the rows; the thread itself is refreshed now or by the flush.
    await refreshDesk(db, number, undefined, { min: 1, max: SENDS + 1 })
    await flushDesk(db, [number])
    const [entry] = optOutLedger(thread)
    // The rules' own count: every send but one inside the confirmation window.
    expect(entry!.sentAfter.length).toBeGreaterThan(10_000)
    const t = await db.query<{ sent_after: number }>('SELECT sent_after FROM desk_threads WHERE number = $1 AND party = $2', [
      number,
      party,
    ])
    expect(t.rows[0]!.sent_after).toBe(entry!.sentAfter.length)
    // Listed: every one of the rules' sends (the 10,000 a period once kept are long past), newest first.
    const expected = entry!.sentAfter.map((x) => (x.message as (typeof thread)[number]).ordinal).sort((a, b) => b - a)
    const listed = await sentList(db, number)
    expect(listed.map((r) => r.ordinal)).toEqual(expected)
    expect(listed[0]).toMatchObject({ ordinal: SENDS + 1, party, opt_ordinal: 1, failed: false })
    expect(Number(listed[0]!.after_ms)).toBe(SENDS * 60_000)
  }, 120_000)
})

describe.each(ENGINES)('the quiet-day counts on %s', (engine) => {
  it('count a send to a party without a zone under its UTC day, beside sends whose local day is that day', async () => {
    const db = await engines.open(engine)
    const number = '15550008888'
    const sends = [
      // New York, 15:00 local on 2 June: same local day as the UTC day, not quiet.
      { party: '12125550123', date: '2030-06-02T19:00:00Z' },
      // Los Angeles, 22:30 local on 1 June: the day before, quiet.
      { party: '13105550123', date: '2030-06-02T05:30:00Z' },
      // Not North American: no zone, counted under the UTC day.
      { party: '447700900123', date: '2030-06-02T10:00:00Z' },
      { party: '447700900124', date: '2030-06-02T11:00:00Z' },
    ]
    const of = deskFacts()
    await db.transaction((tx) =>
      storeDeskFacts(
        tx,
        number,
        sends.map((s, i) => ({ ...s, ordinal: i + 1, failed: false, facts: of({ ...s, direction: 'outbound', body: 'Reminder' }) })),
      ),
    )
    const days = await db.query<{ day: string; local_day: string; outbound: number; unknown: number; quiet: number }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, to_char(local_day, 'YYYY-MM-DD') AS local_day, outbound, unknown, quiet
         FROM desk_quiet_days WHERE number = $1 ORDER BY day, local_day`,
      [number],
    )
    expect(days.rows).toEqual([
      { day: '2030-06-02', local_day: '2030-06-01', outbound: 1, unknown: 0, quiet: 1 },
      { day: '2030-06-02', local_day: '2030-06-02', outbound: 3, unknown: 2, quiet: 0 },
    ])
  }, 60_000)
})

describe.each(ENGINES)('sends after opt-out in long threads on %s', (engine) => {
  it('counts them as the rules do whether the opt-out is near the start or the end of a thread, or a period is closed', async () => {
    const db = await engines.open(engine)
    const number = '15550007777'
    const start = Date.parse('2031-03-01T00:00:00Z')
    // Three threads, their messages interleaved a minute apart: an opt-out near the start of a long
    // thread, one near its end, and a short thread whose first opt-out period an opt-in closes.
    const plan: Array<{ party: string; size: number; opt: Record<number, string> }> = [
      { party: '12125550101', size: 3000, opt: { 9: 'STOP' } },
      { party: '12125550102', size: 3000, opt: { 2990: 'Stop texting me' } },
      { party: '12125550103', size: 240, opt: { 40: 'STOP', 90: 'START', 150: 'UNSUBSCRIBE' } },
    ]
    const thread = plan.flatMap((p, t) =>
      Array.from({ length: p.size }, (_, k) => ({
        party: p.party,
        at: start + (k * plan.length + t) * 60_000,
        opt: p.opt[k] ?? null,
        direction: p.opt[k] || k % 3 === 0 ? 'inbound' : 'outbound',
      })),
    )
    thread.sort((a, b) => a.at - b.at)
    const messages = thread.map((m, i) => ({
      number,
      party: m.party,
      direction: m.direction,
      date: new Date(m.at).toISOString(),
      ordinal: i + 1,
      body: m.opt ?? (m.direction === 'inbound' ? 'ok' : `Reminder ${i}`),
      statusCode: 200,
    }))
    await db.query(INSERT_MESSAGES.replace("'T'", "'T3'"), [
      number,
      messages.map((m) => m.ordinal),
      messages.map((m) => m.date),
      messages.map((m) => m.party),
      messages.map((m) => m.direction),
      messages.map((m) => m.body),
      messages.map((m) => m.statusCode),
    ])
    await db.query(
      `INSERT INTO index_numbers (number, tid, indexed, top_ordinal, state, full_done) VALUES ($1, 'T3', $2, $2, 'idle', true)`,
      [number, messages.length],
    )
    await refreshDesk(db, number, undefined, { min: 1, max: messages.length })
    await flushDesk(db, [number])
    const ledger = optOutLedger(messages)
    expect(ledger.map((e) => e.sentAfter.length).every((n) => n > 0)).toBe(true)
    const t = await db.query<{ party: string; sent_after: number }>(
      `SELECT party, sent_after FROM desk_threads WHERE number = $1 AND opt_history <> '[]' ORDER BY party`,
      [number],
    )
    expect(t.rows.map((r) => [r.party, r.sent_after])).toEqual(
      ledger.map((e) => [e.party, e.sentAfter.length]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    )
  }, 120_000)
})

/** The statements of a migration file (its comments left out) that begin with `head`. */
function migrationStatements(file: string, head: string): string[] {
  return readFileSync(fileURLToPath(new URL(`../db/migrations/${file}`, import.meta.url)), 'utf8')
    .replace(/^--.*$/gm, '')
    .split(';')
    .map((x) => x.trim())
    .filter((x) => x.startsWith(head))
}

describe.each(ENGINES)('migration 500 on %s', (engine) => {
  it('marks every thread with an opt-out history for a full recompute, which writes its periods', async () => {
    const db = await engines.open(engine)
    await db.transaction((tx) => insertWithFacts(tx, messages))
    await flushDesk(db, [DESK.number])
    const periods = await db.query('SELECT * FROM desk_opt_periods ORDER BY number, party, opt_ordinal')
    expect(periods.rows.length).toBeGreaterThan(0)
    // As a database from before the migration stands: threads recomputed, no periods kept.
    await db.query('DELETE FROM desk_opt_periods')
    await db.query(`INSERT INTO desk_dirty (number, party, since) VALUES ($1, $2, now())`, [DESK.number, messages[0]!.party])
    const mark = migrationStatements('500-desk-opt-periods.sql', 'INSERT INTO desk_dirty')
    expect(mark).toHaveLength(1)
    await db.query(mark[0]!)
    const marked = await db.query<{ party: string; since: Date | null }>('SELECT party, since FROM desk_dirty WHERE number = $1', [
      DESK.number,
    ])
    const withHistory = await db.query<{ party: string }>(`SELECT party FROM desk_threads WHERE opt_history <> '[]'`)
    expect(
      marked.rows
        .filter((r) => r.since === null)
        .map((r) => r.party)
        .sort(),
    ).toEqual(withHistory.rows.map((r) => r.party).sort())
    await flushDesk(db, [DESK.number])
    expect((await db.query('SELECT * FROM desk_opt_periods ORDER BY number, party, opt_ordinal')).rows).toEqual(periods.rows)
  }, 60_000)
})

describe.each(ENGINES)('migration 510 on %s', (engine) => {
  it("fills desk_opt_messages from the messages' stored opt facts, as the store step writes it", async () => {
    const db = await engines.open(engine)
    await db.transaction((tx) => insertWithFacts(tx, messages))
    const stored = async () => (await db.query('SELECT * FROM desk_opt_messages ORDER BY number, party, date, ordinal')).rows
    const written = await stored()
    expect(written.length).toBeGreaterThan(0)
    await db.query('DELETE FROM desk_opt_messages')
    const fill = migrationStatements('510-desk-opt-messages.sql', 'INSERT INTO desk_opt_messages')
    expect(fill).toHaveLength(1)
    await db.query(fill[0]!)
    expect(await stored()).toEqual(written)
  }, 60_000)
})

describe.each(ENGINES)('body facts (migration 360) on %s', (engine) => {
  it("desk_messages reads a body's forcing characters and extra segments from index_bodies, a row's own copy first", async () => {
    const db = await engines.open(engine)
    const number = '15550005555'
    const body = (text: string, forcing: string[] | null, extra: number | null) =>
      db
        .query<{ id: number }>('INSERT INTO index_bodies (body, desk_forcing, desk_extra) VALUES ($1, $2, $3) RETURNING id', [
          text,
          forcing,
          extra,
        ])
        .then((r) => r.rows[0]!.id)
    const curly = await body('It\u2019s ready', ['\u2019'], 0)
    const emoji = await body('\u{1F44D}'.repeat(40), ['\u{1F44D}'], 1)
    const plain = await body('ok', null, 0)
    const unknown = await body('not classified yet', null, null)
    const rows: Array<[number, number | null, string[] | null, number | null]> = [
      [1, curly, null, null], // written by a sync since migration 360: the body's facts
      [2, emoji, null, null],
      [3, plain, null, null],
      [4, emoji, ['x'], 2], // written before it (or by a catch-up): the row's own
      [5, unknown, null, null],
      [6, null, null, null], // no body
    ]
    for (const [o, id, forcing, extra] of rows)
      await db.query(
        `INSERT INTO index_messages (number, ordinal, fetched_tid, date, party_digits, direction, body_id, desk_inbound, desk_segments, desk_forcing, desk_extra)
         VALUES ($1, $2, 'T', '2031-01-01T00:00:00Z', '12125550100', 'outbound', $3, false, 1, $4, $5)`,
        [number, o, id, forcing, extra],
      )
    const view = await db.query<{ ordinal: number; encoding: string; forcing: string[] | null; extra_segments: number }>(
      'SELECT ordinal, encoding, forcing, extra_segments FROM desk_messages WHERE number = $1 ORDER BY ordinal',
      [number],
    )
    expect(view.rows).toEqual([
      { ordinal: 1, encoding: 'UCS-2', forcing: ['\u2019'], extra_segments: 0 },
      { ordinal: 2, encoding: 'UCS-2', forcing: ['\u{1F44D}'], extra_segments: 1 },
      { ordinal: 3, encoding: 'GSM-7', forcing: null, extra_segments: 0 },
      { ordinal: 4, encoding: 'UCS-2', forcing: ['x'], extra_segments: 2 },
      { ordinal: 5, encoding: 'GSM-7', forcing: null, extra_segments: 0 },
      { ordinal: 6, encoding: 'GSM-7', forcing: null, extra_segments: 0 },
    ])
  }, 60_000)

  it('gives a body its facts when a sync with the desk stores it, and one stored while the desk was off when it comes again', async () => {
    const db = await engines.open(engine)
    const texts = ['Caf\u00e9 \u201cspecial\u201d', 'desk test plain']
    const facts = () => texts.map((t) => deskFacts()({ party: '', date: 0, direction: 'outbound', body: t }))
    const ids = async (desk: boolean) =>
      (
        await db.transaction((tx) =>
          tx.query<{ k: number; id: number }>(BODY_IDS_SQL, [
            texts,
            desk ? facts().map((f) => f.forcing?.join('\x1f') ?? null) : null,
            desk ? facts().map((f) => f.extra ?? 0) : null,
          ]),
        )
      ).rows
    const kept = () =>
      db.query<{ body: string; desk_forcing: string[] | null; desk_extra: number | null }>(
        'SELECT body, desk_forcing, desk_extra FROM index_bodies WHERE body = ANY($1::text[]) ORDER BY id',
        [texts],
      )
    // Stored while the desk was off: no facts yet.
    const first = await ids(false)
    expect((await kept()).rows).toEqual(texts.map((body) => ({ body, desk_forcing: null, desk_extra: null })))
    // Stored again with the desk: the same ids, now with the facts.
    expect(await ids(true)).toEqual(first)
    const [curly, plain] = facts()
    expect(curly!.forcing).toEqual(['\u201c', '\u201d'])
    expect((await kept()).rows).toEqual([
      { body: texts[0], desk_forcing: curly!.forcing, desk_extra: curly!.extra ?? 0 },
      { body: texts[1], desk_forcing: null, desk_extra: plain!.extra ?? 0 },
    ])
  }, 60_000)
})

describe('a recompute beside a store of the same number on postgres', () => {
  it("locks the number's row after the threads, as the store does: neither waits on the other for ever", async () => {
    const db = await engines.open('postgres', { poolSize: 4 })
    const number = '15550004446'
    const party = '12125550311'
    const of = deskFacts()
    const row = (date: string) => ({
      ordinal: 1,
      party,
      date,
      failed: false,
      facts: of({ party, date, direction: 'inbound', body: 'Hello?' }),
    })
    // A number whose messages went in while the desk was off (desk_behind), with a thread marked.
    await db.query(
      `INSERT INTO index_numbers (number, tid, indexed, top_ordinal, state, full_done, desk_behind) VALUES ($1, 'T6', 1, 1, 'idle', true, true)`,
      [number],
    )
    await db.transaction((tx) => storeDeskFacts(tx, number, [row('2033-03-01T10:00:00.000Z')]))
    // The store step: its thread marks first, the number's row in its closing fence; held open between the two.
    let marked!: () => void
    let fence!: () => void
    const isMarked = new Promise<void>((ok) => (marked = ok))
    const toFence = new Promise<void>((ok) => (fence = ok))
    const store = db.transaction(async (tx) => {
      await storeDeskFacts(tx, number, [row('2033-03-02T10:00:00.000Z')])
      marked()
      await toFence
      await tx.query('UPDATE index_numbers SET indexed = indexed + 1 WHERE number = $1', [number])
    })
    await isMarked
    const recompute = refreshDesk(db, number)
    // The recompute waits on the store's locks (the thread mark) before going on.
    const waiting = async () =>
      (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`)).rows[0]!.n
    const until = Date.now() + 10_000
    while ((await waiting()) === 0 && Date.now() < until) await new Promise((ok) => setTimeout(ok, 20))
    expect(await waiting()).toBe(1)
    fence()
    // In the other order PostgreSQL found a deadlock and failed one of the two ("deadlock detected").
    const [s, r] = await Promise.allSettled([store, recompute])
    expect(s.status).toBe('fulfilled')
    expect(r.status).toBe('fulfilled')
    const after = await db.query('SELECT indexed, desk_behind FROM index_numbers WHERE number = $1', [number])
    expect(after.rows[0]).toEqual({ indexed: 2, desk_behind: false })
  }, 60_000)
})
