import { describe, expect, it } from 'vitest'
import type { OpenedDb } from '../../db/open.ts'
import { ENGINES, useEngines } from '../../testing/engines.ts'
import { turnCounter } from '../../testing/helpers.ts'
import { record } from '../../testing/sync-records.ts'
import type { Page, PageRecord } from '../parse.ts'
import { LeaseLost } from './leases.ts'
import { forget } from '../queries.ts'
import { STATUS_OF } from '../../kernel/stored-messages.ts'
import { ROWS_PER_TURN, type Placed } from './prepare.ts'
import { storeBatch, wipe } from './store.ts'
import type { Job, SyncContext } from './types.ts'
import { deskIndexHooks } from '../../desk/index-hooks.ts'

const engines = useEngines()
const NUMBER = '15550001234'
const OWNER = 'this-server'
/** The number, its lease held by this server (every store is fenced by it). */
const LEASED = `INSERT INTO index_numbers (number, tid, state, locked_by, locked_at) VALUES ($1, 'TID1', 'syncing', '${OWNER}', now())`

function jobOn(db: OpenedDb): Job {
  const ctx = {
    db,
    owner: OWNER,
    desk: true,
    hooks: deskIndexHooks,
    stats: { requests: 0, waitMs: 0, prepareMs: 0, storeMs: 0, overlappedBatches: 0, vacuumMs: 0, deskMs: 0 },
    progress: { messages: 0, since: null },
  } as unknown as SyncContext // storeBatch and wipe read only these
  return { ctx, number: NUMBER, upstream: NUMBER, tid: 'TID1', signal: new AbortController().signal }
}

const placed = (ordinals: number[]): Placed[] => ordinals.map((ordinal) => ({ ordinal, r: record(ordinal) }))
const page = (total: number): Page => ({ total, newestId: null, newestAt: null, createdRaw: null, optin: null, records: [] })
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe.each(ENGINES)('storeBatch on %s', (engine) => {
  it('stores a batch of several slices, counting only the rows that were not there yet, in the roll-ups too', async () => {
    const db = await engines.open(engine)
    await db.query(LEASED, [NUMBER])
    const job = jobOn(db)
    const N = 2 * ROWS_PER_TURN + 500
    // Already stored: none in the first slice, one in the second and one in the last.
    const before = [ROWS_PER_TURN + 17, 2 * ROWS_PER_TURN + 3]
    expect(await storeBatch(job, page(N), placed(before), null)).toBe(2)
    expect(await storeBatch(job, page(N), placed(range(1, N)), null)).toBe(N - 2)
    const counts = await db.query<{ messages: number; daily: number; parties: number; threads: number }>(
      `SELECT (SELECT count(*)::int FROM index_messages WHERE number = $1) AS messages,
              (SELECT sum(inbound + outbound)::int FROM index_daily WHERE number = $1) AS daily,
              (SELECT sum(count)::int FROM index_parties WHERE number = $1) AS parties,
              (SELECT sum(inbound + outbound)::int FROM desk_threads WHERE number = $1) AS threads`,
      [NUMBER],
    )
    expect(counts.rows[0]).toEqual({ messages: N, daily: N, parties: N, threads: N })
    // Stored again whole: nothing goes in and no count moves.
    expect(await storeBatch(job, page(N), placed(range(1, N)), null)).toBe(0)
    const again = await db.query<{ daily: number }>('SELECT sum(inbound + outbound)::int AS daily FROM index_daily WHERE number = $1', [
      NUMBER,
    ])
    expect(again.rows[0]!.daily).toBe(N)
  }, 60_000)

  it("writes a walk's batch (newest first, as pages come) in descending ordinals (as the key runs), with each record's own values", async () => {
    const db = await engines.open(engine)
    await db.query(LEASED, [NUMBER])
    const job = jobOn(db)
    const n = 1200
    const walkOrder = range(1, n).reverse()
    expect(await storeBatch(job, page(n), placed(walkOrder), { next: 0, total: n, check: null }, true)).toBe(n)
    // Physical order (ctid) of a fresh table is the order the rows went in.
    const r = await db.query<{ ordinal: number; system_id: string; date: Date }>(
      'SELECT ordinal, system_id, date FROM index_messages WHERE number = $1 ORDER BY ctid',
      [NUMBER],
    )
    expect(r.rows.map((x) => x.ordinal)).toEqual(walkOrder)
    expect(r.rows.every((x) => x.system_id === `S${x.ordinal}` && x.date.toISOString() === record(x.ordinal).date)).toBe(true)
  }, 60_000)

  it('keeps every text exactly by COPY as by INSERT: quotes, commas, line breaks, backslashes, spaces, empty and missing', async () => {
    // COPY's CSV quotes a field only when it must (columns.ts); these values are what it must tell apart.
    const awkward = [
      '',
      ' ',
      ' lead',
      'trail ',
      'a,b',
      'say "hi"',
      '"',
      '""',
      'two\nlines',
      'cr\rlf\r\n',
      '\\.',
      'back\\slash',
      '\\N',
      'NULL',
      'ünï 😀',
      '\t tab',
    ]
    const tricky = (ordinal: number): PageRecord => {
      const v = (k: number) => awkward[(ordinal + k) % awkward.length]!
      return {
        ...record(ordinal),
        tid: v(0),
        systemId: v(1),
        messageId: ordinal % 4 ? v(2) : null,
        dateRaw: ordinal % 3 ? null : v(3),
        phone: v(4),
        direction: v(5),
        mediaUrl: ordinal % 2 ? v(6) : null,
        status: v(7),
      }
    }
    const db = await engines.open(engine)
    await db.query(LEASED, [NUMBER])
    const job = jobOn(db)
    const n = 2 * awkward.length
    const rows = range(1, n)
      .reverse()
      .map((ordinal) => ({ ordinal, r: tricky(ordinal) }))
    // The first half by COPY (a walk's fresh batch), the second by INSERT (a catch-up's).
    expect(await storeBatch(job, page(n), rows.slice(awkward.length), { next: awkward.length, total: n, check: null }, true)).toBe(
      awkward.length,
    )
    expect(await storeBatch(job, page(n), rows.slice(0, awkward.length), null)).toBe(awkward.length)
    const got = await db.query<Record<string, string | boolean | null> & { ordinal: number }>(
      `SELECT ordinal, tid, system_id, message_id, date_raw, phone, direction, media_url, ${STATUS_OF('m')} AS status, m.status IS NULL AS by_id
         FROM index_messages m WHERE number = $1 ORDER BY ordinal`,
      [NUMBER],
    )
    expect(got.rows).toEqual(
      range(1, n).map((ordinal) => {
        const r = tricky(ordinal)
        return {
          ordinal,
          tid: r.tid,
          system_id: r.systemId,
          message_id: r.messageId,
          date_raw: r.dateRaw,
          phone: r.phone,
          direction: r.direction,
          media_url: r.mediaUrl,
          status: r.status,
          // Kept once in index_statuses (migration 410): the row holds its id, not the text.
          by_id: true,
        }
      }),
    )
  }, 60_000)

  it('writes nothing once another server holds the lease: the batch, its checkpoint and a wipe are refused whole', async () => {
    const db = await engines.open(engine)
    await db.query(LEASED, [NUMBER])
    const job = jobOn(db)
    const n = 3 * ROWS_PER_TURN
    const held = () =>
      db.query(
        `SELECT (SELECT count(*)::int FROM index_messages WHERE number = $1) AS messages,
                (SELECT COALESCE(sum(inbound + outbound), 0)::int FROM index_daily WHERE number = $1) AS daily,
                (SELECT COALESCE(sum(inbound + outbound), 0)::int FROM desk_threads WHERE number = $1) AS threads,
                (SELECT count(*)::int FROM index_bodies) AS bodies,
                n.indexed, n.top_ordinal, n.cp_next, n.upstream_total, n.locked_by
         FROM index_numbers n WHERE n.number = $1`,
        [NUMBER],
      )
    // The newest half stored under the lease, then another server takes the number over.
    expect(await storeBatch(job, page(n), placed(range(n / 2 + 1, n).reverse()), { next: n / 2, total: n, check: 'S' }, true)).toBe(n / 2)
    await db.query(`UPDATE index_numbers SET locked_by = 'other-server', locked_at = now() WHERE number = $1`, [NUMBER])
    const before = (await held()).rows[0]
    expect(before).toMatchObject({ messages: n / 2, indexed: n / 2, cp_next: n / 2, locked_by: 'other-server' })
    // By COPY (a walk's batch), by INSERT (a catch-up's), with no rows (an envelope), and a re-walk's wipe.
    const refused = [
      () => storeBatch(job, page(n + 5), placed(range(1, n / 2).reverse()), { next: 0, total: n + 5, check: null }, true),
      () => storeBatch(job, page(n + 5), placed(range(n + 1, n + 5)), null),
      () => storeBatch(job, page(n + 5), [], null),
      () => wipe(job),
    ]
    for (const write of refused) await expect(write()).rejects.toBeInstanceOf(LeaseLost)
    expect((await held()).rows[0]).toEqual(before)
  }, 60_000)

  it('refuses the next batch of a sync whose number was forgotten meanwhile (forget takes the lease away)', async () => {
    const db = await engines.open(engine)
    await db.query(LEASED, [NUMBER])
    const job = jobOn(db)
    expect(await storeBatch(job, page(20), placed(range(11, 20).reverse()), { next: 10, total: 20, check: 'S' }, true)).toBe(10)
    expect(await forget(db, NUMBER, deskIndexHooks)).toBe(10)
    await expect(
      storeBatch(job, page(20), placed(range(1, 10).reverse()), { next: 0, total: 20, check: null }, true),
    ).rejects.toBeInstanceOf(LeaseLost)
    const left = await db.query(
      'SELECT (SELECT count(*)::int FROM index_messages WHERE number = $1) AS messages, n.indexed, n.locked_by FROM index_numbers n WHERE n.number = $1',
      [NUMBER],
    )
    expect(left.rows[0]).toEqual({ messages: 0, indexed: 0, locked_by: null })
  }, 60_000)

  it('lets the event loop turn while it prepares a batch, before its transaction starts', async () => {
    const db = await engines.open(engine)
    await db.query(LEASED, [NUMBER])
    const job = jobOn(db)
    const counter = turnCounter()
    let turnsAtTransaction = -1
    const transaction = db.transaction.bind(db)
    job.ctx.db = Object.assign(Object.create(db) as OpenedDb, {
      transaction: ((fn: Parameters<OpenedDb['transaction']>[0]) => {
        turnsAtTransaction = counter.turns()
        return transaction(fn)
      }) as OpenedDb['transaction'],
    })
    const n = 5 * ROWS_PER_TURN
    try {
      expect(await storeBatch(job, page(n), placed(range(1, n)), { next: 0, total: n, check: null }, true)).toBe(n)
    } finally {
      counter.stop()
    }
    // One slice of rows per turn: the four slices after the first each waited for a turn.
    expect(turnsAtTransaction).toBeGreaterThanOrEqual(4)
  }, 60_000)
})
