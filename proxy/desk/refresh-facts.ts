import { deskCounts, deskFacts, storedLocalDay, type DeskCounts, type DeskStored } from '../../contract/desk/facts.ts'
import { AREA_CODES } from '../../contract/desk/area-codes.ts'
import type { Queryable } from '../db/types.ts'

/**
 * The desk's per-message facts: computed from each record before it is stored (written by the
 * sync's own COPY or INSERT), or filled in afterwards for messages stored without them, and the
 * per-day counts that move with each batch.
 */

/** A stretch of a number's ordinals (a stored batch's). */
export interface OrdinalRange {
  min: number
  max: number
}

/** Messages without facts are read and classified this many at a time (memory stays bounded on a 1M number). */
const CHUNK = 5_000

/**
 * Runs deskFacts over a few made-up messages, one zone per turn of the event loop, so that a
 * sync's first batch prepared on the server's thread (a long history's first page, before the page
 * worker takes over) does not pay the desk's first-use costs there: each zone's Intl formatter
 * made and every opt-out pattern compiled. Cold, that batch held the thread 25–43 ms at the start
 * of each million-message sync, the sync's longest event-loop delay against a 50 ms budget.
 */
export async function warmDeskFacts(): Promise<void> {
  const facts = deskFacts()
  const zones = new Map<string, string>()
  for (const [code, { zone }] of AREA_CODES) if (!zones.has(zone)) zones.set(zone, code)
  const bodies = ['See you Tuesday at 3.', 'Please stop texting me', 'STOP', 'Thanks. Cancel', 'Don’t stop — “great” news 😊']
  const now = Date.now()
  let k = 0
  for (const code of zones.values()) {
    const party = `1${code}5550100`
    for (const direction of ['inbound', 'outbound']) facts({ party, date: now, direction, body: bodies[k++ % bodies.length]! })
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
}

/**
 * Marks threads for recompute ($2 parties, each once) with the earliest date of the messages that
 * marked them ($3; NULL: unknown, the recompute reads the thread in full). A thread marked again
 * keeps the earlier date, and NULL once either is NULL; the row is written only when that moves it.
 */
export const MARK_DIRTY = `INSERT INTO desk_dirty AS x (number, party, since) SELECT $1, u.p, u.s FROM unnest($2::text[], $3::timestamptz[]) AS u(p, s)
ON CONFLICT (number, party) DO UPDATE SET since = EXCLUDED.since
 WHERE x.since IS NOT NULL AND (EXCLUDED.since IS NULL OR EXCLUDED.since < x.since)`

/**
 * Adds a batch's per-party counts to desk_threads (a thread's first message creates its row), its
 * sends to desk_quiet_days ($8 to $12), its messages' segments per UTC day to desk_segment_days
 * ($13 to $17) and its opt-out and opt-in messages to desk_opt_messages ($18 to $21), in one
 * statement: one round trip per stored batch.
 */
const BATCH_COUNTS = `
WITH o AS (
  INSERT INTO desk_opt_messages (number, party, date, ordinal, kind)
  SELECT $1, u.* FROM unnest($18::text[], $19::timestamptz[], $20::int[], $21::text[]) AS u(party, date, ordinal, kind)
  ON CONFLICT DO NOTHING
  RETURNING 1
), q AS (
  INSERT INTO desk_quiet_days AS t (number, day, local_day, outbound, unknown, quiet)
  SELECT $1, u.day, u.ld, u.o, u.n, u.q FROM unnest($8::date[], $9::date[], $10::int[], $11::int[], $12::int[]) AS u(day, ld, o, n, q)
  ON CONFLICT (number, day, local_day) DO UPDATE SET outbound = t.outbound + EXCLUDED.outbound, unknown = t.unknown + EXCLUDED.unknown,
    quiet = t.quiet + EXCLUDED.quiet
  RETURNING 1
), s AS (
  INSERT INTO desk_segment_days AS t (number, day, messages, segments, ucs2, extra)
  SELECT $1, u.* FROM unnest($13::date[], $14::int[], $15::int[], $16::int[], $17::int[]) AS u(day, messages, segments, ucs2, extra)
  ON CONFLICT (number, day) DO UPDATE SET messages = t.messages + EXCLUDED.messages, segments = t.segments + EXCLUDED.segments,
    ucs2 = t.ucs2 + EXCLUDED.ucs2, extra = t.extra + EXCLUDED.extra
  RETURNING 1
)
INSERT INTO desk_threads AS t (number, party, first_at, last_at, inbound, outbound, failed)
SELECT $1, u.* FROM unnest($2::text[], $3::timestamptz[], $4::timestamptz[], $5::int[], $6::int[], $7::int[])
  AS u(party, first_at, last_at, inbound, outbound, failed)
ON CONFLICT (number, party) DO UPDATE SET first_at = LEAST(t.first_at, EXCLUDED.first_at), last_at = GREATEST(t.last_at, EXCLUDED.last_at),
  inbound = t.inbound + EXCLUDED.inbound, outbound = t.outbound + EXCLUDED.outbound, failed = t.failed + EXCLUDED.failed`

/**
 * The sync's store step, inside its transaction, after the rows went in with their facts: the
 * counts that need no order (each thread's first and last contact, messages in, out and failed,
 * and the per-day quiet and segment counts) move by exactly these rows (the caller passes only rows it
 * inserted), and their threads are marked for the recompute of what does need order (waiting
 * since, opt-out state), which follows the sync (flushDesk) or comes with the first desk read.
 * Nothing is read back: the per-batch cost is the batch's own.
 */
export async function storeDeskFacts(tx: Queryable, number: string, rows: readonly DeskStored[]): Promise<void> {
  const counts = deskCounts(rows)
  if (counts) await writeDeskCounts(tx, number, counts)
}

/** Writes deskCounts' answer: the threads marked for recompute, then the counts, in the caller's transaction. */
export async function writeDeskCounts(tx: Queryable, number: string, c: DeskCounts): Promise<void> {
  await tx.query(MARK_DIRTY, [number, ...c.dirty])
  await tx.query(BATCH_COUNTS, [number, ...c.counts])
}

/** Fills the facts of rows stored without them ($2 the ordinals, then one array per desk_* column). */
const FILL_FACTS = `
UPDATE index_messages m
   SET desk_inbound = u.i, desk_opt = u.k, desk_segments = u.s, desk_forcing = string_to_array(u.fc, E'\\x1f'),
       desk_extra = u.x, desk_local_day = u.ld, desk_quiet = u.q
  FROM unnest($2::int[], $3::bool[], $4::text[], $5::int[], $6::text[], $7::int[], $8::date[], $9::bool[]) AS u(o, i, k, s, fc, x, ld, q)
 WHERE m.number = $1 AND m.ordinal = u.o AND m.desk_segments IS NULL`

type TodoRow = { ordinal: number; party: string; date: Date; direction: string | null; body: string | null; failed: boolean }

/** Facts for the number's messages that have none yet (stored while the desk was off); adds their parties to `touched`. */
export async function addFacts(tx: Queryable, number: string, range: OrdinalRange | null, touched: Set<string>): Promise<number> {
  let done = 0
  let after = range ? range.min - 1 : 0
  const max = range ? range.max : 2_147_483_647
  for (let guard = 0; guard < 100_000; guard++) {
    const r = await tx.query<TodoRow>(
      `SELECT m.ordinal, m.party_digits AS party, m.date, m.direction, COALESCE(m.body, b.body) AS body,
              COALESCE(m.status_code >= 400, false) AS failed
         FROM index_messages m
         LEFT JOIN index_bodies b ON m.body IS NULL AND b.id = m.body_id
        WHERE m.number = $1 AND m.ordinal > $2 AND m.ordinal <= $3 AND m.desk_segments IS NULL
        ORDER BY m.ordinal LIMIT ${CHUNK}`,
      [number, after, max],
    )
    if (r.rows.length === 0) break
    const factsOf = deskFacts()
    const facts = r.rows.map(factsOf)
    await tx.query(FILL_FACTS, [
      number,
      r.rows.map((x) => x.ordinal),
      facts.map((f) => f.inbound),
      facts.map((f) => f.opt),
      facts.map((f) => f.segments),
      facts.map((f) => (f.forcing ? f.forcing.join('\x1f') : null)),
      facts.map((f) => f.extra),
      facts.map(storedLocalDay),
      facts.map((f) => f.quiet),
    ])
    await storeDeskFacts(
      tx,
      number,
      r.rows.map((x, i) => ({ ordinal: x.ordinal, party: x.party, date: x.date, failed: x.failed, facts: facts[i]! })),
    )
    for (const x of r.rows) touched.add(x.party)
    done += r.rows.length
    after = r.rows[r.rows.length - 1]!.ordinal
    if (r.rows.length < CHUNK) break
  }
  return done
}
