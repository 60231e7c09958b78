import { deskCounts, deskFacts, storedLocalDay, type DeskCounts, type DeskStored } from '../../contract/desk/facts.ts'
import { type DeskMessage } from '../../contract/desk/messages.ts'
import { CONFIRMATION_WINDOW_MS, optOutState } from '../../contract/desk/opt-out-ledger.ts'
import { classifyOptOut, type OptKind } from '../../contract/desk/opt-out.ts'
import { AREA_CODES } from '../../contract/desk/area-codes.ts'
import type { Db, Queryable } from '../db/types.ts'

/**
 * Keeps the desk in step with index_messages. A message's own facts (direction class, opt-out
 * keyword, encoding and segments, quiet hour) are columns of its index_messages row (migration
 * 320), computed from the record before it is stored and written by the same COPY or INSERT; the
 * per-day quiet and segment counts move by the batch's own rows. A thread's state (needs reply, opt-out
 * periods, sends after opt-out) depends on order, so it is recomputed per party a batch touched,
 * from indexed reads of that thread, never from a scan of the whole number. The rules are
 * contract/desk's; the SQL here only selects the messages those rules look at.
 */

/** Messages without facts are read and classified this many at a time (memory stays bounded on a 1M number). */
const CHUNK = 5_000
/** Arbitrary constant: the advisory-lock namespace of desk refreshes (one per number at a time). */
const DESK_LOCK_CLASS = 73_492_102

export interface RefreshResult {
  /** Messages whose desk facts were computed now. */
  messages: number
  /** Threads whose state was recomputed. */
  threads: number
}

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
const MARK_DIRTY = `INSERT INTO desk_dirty AS x (number, party, since) SELECT $1, u.p, u.s FROM unnest($2::text[], $3::timestamptz[]) AS u(p, s)
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
async function addFacts(tx: Queryable, number: string, range: OrdinalRange | null, touched: Set<string>): Promise<number> {
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

type ThreadFacts = {
  party: string
  last_inbound_ordinal: number | null
  last_inbound_at: Date | null
  last_reply_at: Date | null
  waiting_since: Date | null
  unanswered: number
  /** The thread's counts and first and last contact (desk_threads, kept with every stored batch). */
  outbound: number
  messages: number
  first_at: Date | null
  last_at: Date | null
}

/**
 * The order-dependent state of each thread that has messages (a desk_threads row, which the store
 * step creates): last inbound (not an opt-out: the queue shows it), last delivered reply and unanswered messages, each from the thread
 * index (index_messages_thread), reading only the thread's newest messages. Unanswered is
 * needs-reply.ts over SQL: inbound messages after the last delivered reply and after the last
 * "mark handled" (at or before it counts as answered), opt-outs left out.
 */
const THREAD_FACTS = `
SELECT p.party, li.ordinal AS last_inbound_ordinal, li.date AS last_inbound_at, lr.date AS last_reply_at,
       u.since AS waiting_since, u.n AS unanswered, p.outbound, p.inbound + p.outbound AS messages, p.first_at, p.last_at
  FROM desk_threads p
  LEFT JOIN LATERAL (
    SELECT ordinal, date FROM index_messages
     WHERE number = $1 AND party_digits = p.party AND desk_inbound AND desk_opt IS DISTINCT FROM 'opt-out'
     ORDER BY date DESC, ordinal DESC LIMIT 1) li ON true
  LEFT JOIN LATERAL (
    SELECT ordinal, date FROM index_messages
     WHERE number = $1 AND party_digits = p.party AND NOT desk_inbound AND (status_code IS NULL OR status_code < 400)
     ORDER BY date DESC, ordinal DESC LIMIT 1) lr ON true
  LEFT JOIN desk_handled h ON h.number = $1 AND h.party = p.party
  LEFT JOIN LATERAL (
    SELECT min(date) AS since, count(*)::int AS n FROM index_messages
     WHERE number = $1 AND party_digits = p.party AND desk_inbound AND desk_opt IS DISTINCT FROM 'opt-out'
       AND date >= COALESCE(lr.date, '-infinity') AND (lr.date IS NULL OR (date, ordinal) > (lr.date, lr.ordinal))
       AND (h.handled_at IS NULL
            OR (h.through_ordinal IS NULL AND date > h.handled_at)
            OR (h.through_ordinal IS NOT NULL AND (date, ordinal) > (h.through_date, h.through_ordinal)))) u ON true
 WHERE p.number = $1 AND p.party = ANY($2::text[])`

type Ev = {
  party: string
  ordinal: number
  date: Date
  opt_kind: OptKind
}

type Marked = DeskMessage & { ordinal: number }

/** The opt-out periods of a recompute ($2–$6, one element per period), numbered by position `i`. */
const PERIODS = `per AS (
  SELECT * FROM unnest($2::text[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::int[]) WITH ORDINALITY AS u(party, so, sd, ed, eo, i)
)`
/** The sends of a period (after the opt-out, before the opt-in that ends it), as a condition on `d` and `per`. */
const IN_PERIOD = `d.number = $1 AND d.party_digits = per.party AND NOT d.desk_inbound
         AND d.date >= per.sd AND d.date <= COALESCE(per.ed, 'infinity') AND (d.date, d.ordinal) > (per.sd, per.so)
         AND (per.ed IS NULL OR (d.date, d.ordinal) < (per.ed, per.eo))`

/**
 * Every send in each period, counted. A plain join rather than one look-up per period: when the
 * periods cover much of the number (a fresh walk recomputes every thread, and a party opted out
 * long ago may have been sent to daily since), the planner reads the number's rows once and
 * hashes the periods, instead of visiting each thread's rows through the thread index (on a
 * million-message number that read most of the table once per party). For a few short threads it
 * still takes the thread index.
 */
const SENT_COUNT = `
WITH ${PERIODS}
SELECT per.i::int AS i, count(*)::int AS n FROM per JOIN index_messages d ON d.party_digits = per.party
 WHERE ${IN_PERIOD}
 GROUP BY per.i`

/**
 * The sends of open periods (an opt-out with no opt-in after it; a thread has one at most), each
 * counted from the thread index on the side of the opt-out that holds fewer of the thread's
 * messages ($5: true counts the sends up to the opt-out, which the caller takes from the thread's
 * outbound count; false counts the sends after it). An opt-out near either end of a long thread
 * then reads a few rows, where SENT_COUNT reads every message of the number.
 */
const OPEN_COUNT = `
WITH per AS (SELECT * FROM unnest($2::text[], $3::int[], $4::timestamptz[], $5::bool[]) WITH ORDINALITY AS u(party, so, sd, upto, i))
SELECT per.i::int AS i, c.n FROM per CROSS JOIN LATERAL (
  SELECT count(*)::int AS n FROM index_messages d
   WHERE d.number = $1 AND d.party_digits = per.party AND NOT d.desk_inbound AND d.date <= per.sd AND (d.date, d.ordinal) <= (per.sd, per.so)) c
 WHERE per.upto
UNION ALL
SELECT per.i::int AS i, c.n FROM per CROSS JOIN LATERAL (
  SELECT count(*)::int AS n FROM index_messages d
   WHERE d.number = $1 AND d.party_digits = per.party AND NOT d.desk_inbound AND d.date >= per.sd AND (d.date, d.ordinal) > (per.sd, per.so)) c
 WHERE NOT per.upto`

/**
 * A row read through the thread index costs several times a row of the plain join's pass over the
 * number (a table page visited per row rather than pages read in order): the open periods are
 * counted through the index only while the rows it would read, estimated from the opt-out's date
 * within the thread, stay under this share of the number's messages.
 */
const INDEX_COUNT_SHARE = 1 / 8

type Periods = { party: string[]; so: number[]; sd: Date[]; ed: Array<Date | null>; eo: number[] }

/** Sends in each period (by position, 1-based): open periods by OPEN_COUNT when that reads little, the rest by SENT_COUNT. */
async function countSends(
  tx: Queryable,
  number: string,
  per: Periods,
  threads: ReadonlyMap<string, ThreadFacts>,
): Promise<Map<number, number>> {
  const n = new Map<number, number>()
  const open: Array<{ i: number; upto: boolean; outbound: number }> = []
  let reads = 0
  for (let k = 0; k < per.party.length; k++) {
    const t = threads.get(per.party[k]!)
    if (per.ed[k] !== null || !t?.first_at || !t.last_at) continue
    const first = new Date(t.first_at).getTime()
    const span = new Date(t.last_at).getTime() - first
    const before = span > 0 ? Math.min(1, Math.max(0, (per.sd[k]!.getTime() - first) / span)) : 0
    open.push({ i: k + 1, upto: before <= 0.5, outbound: t.outbound })
    reads += t.messages * Math.min(before, 1 - before)
  }
  if (open.length > 0) {
    const held = await tx.query<{ n: number }>('SELECT indexed AS n FROM index_numbers WHERE number = $1', [number])
    if (reads > (held.rows[0]?.n ?? 0) * INDEX_COUNT_SHARE) open.length = 0
  }
  if (open.length > 0) {
    const pick = <T>(a: readonly T[]) => open.map((o) => a[o.i - 1]!)
    const counted = await tx.query<{ i: number; n: number }>(OPEN_COUNT, [
      number,
      pick(per.party),
      pick(per.so),
      pick(per.sd),
      open.map((o) => o.upto),
    ])
    for (const c of counted.rows) {
      const o = open[c.i - 1]!
      n.set(o.i, o.upto ? o.outbound - c.n : c.n)
    }
  }
  // The periods left (closed, or open ones too long to count through the index): one join.
  const rest = per.party.map((_, k) => k + 1).filter((i) => !n.has(i))
  if (rest.length > 0) {
    const pick = <T>(a: readonly T[]) => rest.map((i) => a[i - 1]!)
    const counted = await tx.query<{ i: number; n: number }>(SENT_COUNT, [
      number,
      pick(per.party),
      pick(per.so),
      pick(per.sd),
      pick(per.ed),
      pick(per.eo),
    ])
    for (const c of counted.rows) n.set(rest[c.i - 1]!, c.n)
  }
  return n
}

/**
 * Where each period's sends begin and end: its first send (and whether that is the confirmation
 * the rules allow, $7), the send after it, and its last send, each read from the thread index
 * (a few rows at either end of the period, however long it is).
 */
const PERIOD_ENDS = `
WITH ${PERIODS}
SELECT per.i::int AS i, f.ordinal AS first_ordinal, f.date AS first_date, s.date AS second_date, l.date AS last_date,
       COALESCE(extract(epoch FROM f.date - per.sd) * 1000 <= $7, false) AS confirmation
  FROM per
  LEFT JOIN LATERAL (SELECT d.ordinal, d.date FROM index_messages d WHERE ${IN_PERIOD} ORDER BY d.date, d.ordinal LIMIT 1) f ON true
  LEFT JOIN LATERAL (SELECT d.date FROM index_messages d WHERE ${IN_PERIOD} ORDER BY d.date, d.ordinal OFFSET 1 LIMIT 1) s ON true
  LEFT JOIN LATERAL (SELECT d.date FROM index_messages d WHERE ${IN_PERIOD} ORDER BY d.date DESC, d.ordinal DESC LIMIT 1) l ON true`

/**
 * Writes the threads' opt-out periods to desk_opt_periods (the rows of `parties` replaced: a
 * handful per thread) and returns the periods (by position, 1-based) whose first send is the
 * allowed confirmation. `sends`: every send of each period (countSends). The sends themselves are
 * not copied: the report reads them from the thread index between the period's ends
 * (proxy/desk/sent-after.ts).
 */
async function keepPeriods(
  tx: Queryable,
  number: string,
  parties: readonly string[],
  per: Periods,
  sends: ReadonlyMap<number, number>,
): Promise<Set<number>> {
  await tx.query('DELETE FROM desk_opt_periods WHERE number = $1 AND party = ANY($2::text[])', [number, parties])
  const confirmed = new Set<number>()
  if (per.party.length === 0) return confirmed
  const ends = await tx.query<{
    i: number
    first_ordinal: number | null
    first_date: Date | null
    second_date: Date | null
    last_date: Date | null
    confirmation: boolean
  }>(PERIOD_ENDS, [number, per.party, per.so, per.sd, per.ed, per.eo, CONFIRMATION_WINDOW_MS])
  const row = new Map(ends.rows.map((e) => [e.i, e]))
  const confirmation: Array<number | null> = []
  const count: number[] = []
  const first: Array<Date | null> = []
  const last: Array<Date | null> = []
  for (let k = 0; k < per.party.length; k++) {
    const e = row.get(k + 1)
    const isConfirmation = Boolean(e?.confirmation && e.first_ordinal !== null)
    if (isConfirmation) confirmed.add(k + 1)
    const counted = Math.max(0, (sends.get(k + 1) ?? 0) - (isConfirmation ? 1 : 0))
    const from = (isConfirmation ? e?.second_date : e?.first_date) ?? null
    const to = e?.last_date ?? null
    // The count and the ends are two reads: a forget or a re-walk's wipe committing between them
    // (on PostgreSQL each statement sees what has committed) leaves sends counted and none found.
    // The period then says none, as the rows now do, rather than fail the recompute (and with it
    // every desk read after it) on the table's check.
    const n = from && to ? counted : 0
    confirmation.push(isConfirmation ? e!.first_ordinal : null)
    count.push(n)
    first.push(n === 0 ? null : from)
    last.push(n === 0 ? null : to)
  }
  await tx.query(
    `INSERT INTO desk_opt_periods (number, party, opt_ordinal, opt_date, end_ordinal, end_date, confirmation, sends, first_send, last_send)
     SELECT $1, u.* FROM unnest($2::text[], $3::int[], $4::timestamptz[], $5::int[], $6::timestamptz[], $7::int[], $8::int[],
                                $9::timestamptz[], $10::timestamptz[]) AS u`,
    [number, per.party, per.so, per.sd, per.ed.map((d, k) => (d === null ? null : per.eo[k]!)), per.ed, confirmation, count, first, last],
  )
  return confirmed
}

/**
 * Recomputes the threads of `parties`: each one's order-dependent state (THREAD_FACTS), its
 * opt-out periods and the sends after opt-out they hold.
 */
async function refreshThreads(tx: Queryable, number: string, parties: string[]): Promise<void> {
  const facts = await tx.query<ThreadFacts>(THREAD_FACTS, [number, parties])
  const ev = await tx.query<Ev>(
    // Only the opt messages that differ from the one before (a repeated STOP while out changes
    // nothing for optOutState), so a party who says STOP every day sends few rows here.
    `SELECT party, ordinal, date, opt_kind FROM (
       SELECT party, ordinal, date, kind AS opt_kind, lag(kind) OVER (PARTITION BY party ORDER BY date, ordinal) AS prev
         FROM desk_opt_messages WHERE number = $1 AND party = ANY($2::text[])) e
      WHERE prev IS DISTINCT FROM opt_kind ORDER BY party, date, ordinal`,
    [number, parties],
  )
  const events = new Map<string, Marked[]>()
  for (const e of ev.rows) {
    const m: Marked = { number, party: e.party, direction: 'inbound', date: e.date, ordinal: e.ordinal, optKind: e.opt_kind }
    const list = events.get(e.party)
    if (list) list.push(m)
    else events.set(e.party, [m])
  }
  // Opt-out periods from optOutState over each party's opt-out and opt-in messages (a few per thread).
  const per: Periods = { party: [], so: [], sd: [], ed: [], eo: [] }
  const rows = facts.rows
  const states = new Map(rows.map((t) => [t.party, optOutState(events.get(t.party) ?? [])]))
  for (const [party, state] of states) {
    const h = state.history
    for (let i = 0; i < h.length; i++) {
      if (h[i]!.state !== 'opted-out') continue
      const from = h[i]!.message as Marked
      const to = (h[i + 1]?.message as Marked | undefined) ?? null
      per.party.push(party)
      per.so.push(from.ordinal)
      per.sd.push(new Date(from.date))
      per.ed.push(to ? new Date(to.date) : null)
      per.eo.push(to?.ordinal ?? 0)
    }
  }
  const sent = new Map<string, number>()
  if (per.party.length === 0) await keepPeriods(tx, number, parties, per, new Map())
  else {
    const n = await countSends(tx, number, per, new Map(facts.rows.map((t) => [t.party, t])))
    for (const i of await keepPeriods(tx, number, parties, per, n)) n.set(i, (n.get(i) ?? 1) - 1)
    for (const [i, c] of n) {
      const party = per.party[i - 1]!
      sent.set(party, (sent.get(party) ?? 0) + c)
    }
  }
  if (rows.length === 0) return
  const col = <T>(f: (t: ThreadFacts) => T) => rows.map(f)
  const since = (t: ThreadFacts) => (states.get(t.party)?.since as Marked | null | undefined) ?? null
  const history = (t: ThreadFacts) =>
    JSON.stringify(
      (states.get(t.party)?.history ?? []).map((c) => ({
        state: c.state,
        ordinal: (c.message as Marked).ordinal,
        date: new Date(c.message.date).toISOString(),
      })),
    )
  await tx.query(
    `UPDATE desk_threads t SET last_inbound_ordinal = u.lio, last_inbound_at = u.lia, last_reply_at = u.lra, waiting_since = u.ws,
       unanswered = u.un, opted_out = u.oo, opt_out_ordinal = u.ooo, opted_out_at = u.ooa, opt_history = u.oh, sent_after = u.sa
       FROM unnest($2::text[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::timestamptz[], $7::int[], $8::bool[], $9::int[],
                   $10::timestamptz[], $11::jsonb[], $12::int[])
         AS u(party, lio, lia, lra, ws, un, oo, ooo, ooa, oh, sa)
      WHERE t.number = $1 AND t.party = u.party`,
    [
      number,
      col((t) => t.party),
      col((t) => t.last_inbound_ordinal),
      col((t) => t.last_inbound_at),
      col((t) => t.last_reply_at),
      col((t) => (t.unanswered > 0 ? t.waiting_since : null)),
      col((t) => t.unanswered),
      col((t) => since(t) !== null),
      col((t) => since(t)?.ordinal ?? null),
      col((t) => {
        const s = since(t)
        return s ? new Date(s.date) : null
      }),
      col(history),
      col((t) => sent.get(t.party) ?? 0),
    ],
  )
}

export interface OrdinalRange {
  min: number
  max: number
}

/**
 * During a long walk a thread's state is recomputed at most this often per number (each batch
 * touches the same few parties, and recomputing a thread reads all of it); the parties touched
 * meanwhile wait in desk_dirty, which every desk read flushes first.
 */
export const THREAD_REFRESH_MS = 2_000
const lastThreads = new WeakMap<Db, Map<string, number>>()

/**
 * Brings the desk up to date for one number: facts for its messages stored without them, then
 * the state of the parties they (or `parties`) belong to. `ordinals` narrows the look for such
 * messages to a range and lets the thread recompute wait (see THREAD_REFRESH_MS); without it the
 * whole number is looked at when it is marked desk_behind, and every touched thread is
 * recomputed now, which is what a start-up catch-up and "mark handled" need.
 */
export async function refreshDesk(db: Db, number: string, parties?: readonly string[], ordinals?: OrdinalRange): Promise<RefreshResult> {
  let last = lastThreads.get(db)
  if (!last) lastThreads.set(db, (last = new Map()))
  const now = Date.now()
  const defer = ordinals !== undefined && now - (last.get(number) ?? 0) < THREAD_REFRESH_MS
  const result = await db.transaction(async (tx) => {
    if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '300s'`)
    await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [DESK_LOCK_CLASS, number])
    const touched = new Set<string>(parties ?? [])
    const range = ordinals ?? null
    // Without a range, the whole number is looked at only when a sync stored rows without facts.
    const behind = await tx.query<{ b: boolean }>('SELECT desk_behind AS b FROM index_numbers WHERE number = $1', [number])
    const messages = range || behind.rows[0]?.b ? await addFacts(tx, number, range, touched) : 0
    // The number's row is locked last, as the sync's store step locks it (desk_dirty and the desk
    // tables first, index_numbers in its closing fence): in the other order a store of the same
    // number on PostgreSQL deadlocked with this recompute.
    const caughtUp = async () => {
      if (!range && behind.rows[0]?.b) await tx.query('UPDATE index_numbers SET desk_behind = false WHERE number = $1', [number])
    }
    // The parties given are recomputed in full (what changed in their threads is not known here);
    // addFacts marked the threads of the messages it filled, with their dates. Sorted: the store
    // step's lock order.
    const named = [...new Set(parties ?? [])].sort()
    if (defer) {
      if (named.length > 0) await tx.query(MARK_DIRTY, [number, named, named.map(() => null)])
      await caughtUp()
      return { messages, threads: 0 }
    }
    const since = await takeDirty(tx, number)
    for (const party of named) since.set(party, null)
    for (const party of touched) if (!since.has(party)) since.set(party, null)
    const list = [...since.keys()]
    for (let i = 0; i < list.length; i += 500) await refreshThreads(tx, number, list.slice(i, i + 500))
    await caughtUp()
    return { messages, threads: list.length }
  })
  if (!defer) last.set(number, now)
  if (last.size > 50_000) last.clear()
  return result
}

/**
 * Takes a number's threads marked for recompute: each with the earliest date of its new messages
 * (null: not known), a millisecond earlier, since a stored date finer than the milliseconds it was
 * marked with may lie just before it.
 */
async function takeDirty(tx: Queryable, number: string): Promise<Map<string, Date | null>> {
  // Locked in party order, the order the store step's MARK_DIRTY locks them in, before they go.
  const dirty = await tx.query<{ party: string; since: Date | null }>(
    `DELETE FROM desk_dirty d USING (SELECT party FROM desk_dirty WHERE number = $1 ORDER BY party FOR UPDATE) k
      WHERE d.number = $1 AND d.party = k.party RETURNING d.party, d.since`,
    [number],
  )
  return new Map(dirty.rows.map((d) => [d.party, d.since === null ? null : new Date(new Date(d.since).getTime() - 1)]))
}

/**
 * Recomputes the threads a deferred refresh left (all numbers, or the given ones): a desk read
 * calls it first.
 */
export async function flushDesk(db: Db, numbers: readonly string[] | null = null): Promise<number> {
  const r = await db.query<{ number: string }>(
    'SELECT DISTINCT number FROM desk_dirty WHERE $1::text[] IS NULL OR number = ANY($1::text[])',
    [numbers],
  )
  let threads = 0
  for (const { number } of r.rows)
    threads += await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [DESK_LOCK_CLASS, number])
      const since = await takeDirty(tx, number)
      const list = [...since.keys()]
      for (let i = 0; i < list.length; i += 500) await refreshThreads(tx, number, list.slice(i, i + 500))
      return list.length
    })
  return threads
}

/**
 * Deletes what the desk holds for a number (or every number): customer data derived from its
 * messages. Forget and a re-walk's wipe call it in their own transaction, beside their deletes
 * of the messages (whose desk_* columns go with them; desk_messages is a view over them).
 */
export async function forgetDesk(tx: Queryable, number: string | null, opts: { keepHandled?: boolean } = {}): Promise<void> {
  const tables = ['desk_quiet_days', 'desk_segment_days', 'desk_threads', 'desk_opt_periods', 'desk_opt_messages', 'desk_dirty']
  if (!opts.keepHandled) tables.push('desk_handled')
  for (const table of tables) await tx.query(`DELETE FROM ${table} WHERE $1::text IS NULL OR number = $1`, [number])
}

/**
 * The opt-out rules' version (contract/desk/opt-out.ts), recorded in desk_rules once the stored
 * facts agree with it. 2: a keyword on a line of its own is one ("STOP" above a signature), and
 * a word in capitals after CANCEL, END or QUIT is no longer taken for the sender's name. 3: STOP,
 * UNSUBSCRIBE, REVOKE and OPTOUT as a clause a comma sets off ("Stop, who is this?"), a keyword
 * said twice with courtesy between ("STOP please STOP"), spelled out ("S T O P"), "quit it", ARRÊTE.
 * 4: misspellings ("sotp textng me"), an opt-out word the rules cannot place flagged at low
 * confidence, asking back in in words ("sign me back up"), and opt-out words about something else
 * ("take me off the waitlist", "stop it" after a double charge) no longer opt-outs.
 */
export const OPT_RULES_VERSION = 4
/** Ordinals of one number read per statement: each reads a bounded stretch of the primary key. */
const RECLASSIFY_WINDOW = 20_000

/**
 * Inbound messages whose stored class the rules' changes can move: since version 3 (a keyword as
 * a clause, said twice with courtesy between, spelled out in letters with any separator) that is
 * every inbound message, read once, in bounded stretches, on the background lane: a narrower
 * pattern missed "CANCEL please CANCEL", "S.T.O.P", "START please START". $1 the number, $2 and
 * $3 the ordinals after and up to.
 */
const RECLASSIFY_CANDIDATES = `
SELECT m.ordinal, m.party_digits AS party, m.desk_opt AS opt, COALESCE(m.body, b.body) AS body
  FROM index_messages m
  LEFT JOIN index_bodies b ON m.body IS NULL AND b.id = m.body_id
 WHERE m.number = $1 AND m.ordinal > $2 AND m.ordinal <= $3 AND m.desk_inbound AND m.desk_segments IS NOT NULL`

/**
 * Facts stored under older opt-out rules, read again under these: each candidate message is
 * classified again, and where its class changed, desk_opt is set and its thread marked for a
 * recompute read in full (the per-batch counts do not depend on the class). Then desk_rules
 * records the version, so a start over an index already at it reads nothing. On the background
 * lane, a bounded stretch of one number per statement: requests go between them. Returns the
 * messages whose class changed.
 */
export async function reclassifyOptOuts(db: Db, log: (line: string) => void = () => {}): Promise<number> {
  const v = await db.query<{ opt_version: number }>('SELECT opt_version FROM desk_rules WHERE one')
  if ((v.rows[0]?.opt_version ?? 0) >= OPT_RULES_VERSION) return 0
  const bg = db.lane?.('background') ?? db
  type Candidate = { ordinal: number; party: string; opt: string | null; body: string | null }
  const t0 = performance.now()
  let changed = 0
  let read = 0
  const numbers = await bg.query<{ number: string; top: number }>(
    `SELECT n.number, COALESCE((SELECT max(m.ordinal) FROM index_messages m WHERE m.number = n.number), 0) AS top
       FROM index_numbers n WHERE n.indexed > 0 ORDER BY n.number`,
  )
  for (const { number, top } of numbers.rows) {
    for (let after = 0; after < top; after += RECLASSIFY_WINDOW) {
      const r = await bg.query<Candidate>(RECLASSIFY_CANDIDATES, [number, after, after + RECLASSIFY_WINDOW])
      read += r.rows.length
      const moved: Candidate[] = []
      for (const m of r.rows) {
        const kind = classifyOptOut(m.body).kind
        const opt = kind === 'none' ? null : kind
        if (opt !== m.opt) moved.push({ ...m, opt })
      }
      if (moved.length === 0) continue
      const parties = [...new Set(moved.map((m) => m.party))].sort()
      await bg.transaction(async (tx) => {
        await tx.query(
          `UPDATE index_messages m SET desk_opt = u.k FROM unnest($2::int[], $3::text[]) AS u(o, k) WHERE m.number = $1 AND m.ordinal = u.o`,
          [number, moved.map((m) => m.ordinal), moved.map((m) => m.opt)],
        )
        // desk_opt_messages follows: the moved messages leave it, and those that are opt messages now go back in.
        const ordinals = moved.map((m) => m.ordinal)
        await tx.query('DELETE FROM desk_opt_messages WHERE number = $1 AND ordinal = ANY($2::int[])', [number, ordinals])
        await tx.query(
          `INSERT INTO desk_opt_messages (number, party, date, ordinal, kind)
           SELECT m.number, m.party_digits, m.date, m.ordinal, m.desk_opt FROM index_messages m
            WHERE m.number = $1 AND m.ordinal = ANY($2::int[]) AND m.desk_opt IS NOT NULL`,
          [number, ordinals],
        )
        await tx.query(MARK_DIRTY, [number, parties, parties.map(() => null)])
      })
      changed += moved.length
    }
  }
  await bg.query('UPDATE desk_rules SET opt_version = $1 WHERE one', [OPT_RULES_VERSION])
  // Said when there was something to read (not on a new install's first start).
  if (read > 0)
    log(
      `desk: opt-out rules version ${OPT_RULES_VERSION}: ${read} stored messages read again, ${changed} classified differently, in ${Math.round(performance.now() - t0)} ms`,
    )
  return changed
}

/**
 * Every number: catch up after the desk tables were created over an existing index, after a
 * stop in the middle of a sync, or after the opt-out rules changed. Desk rows of numbers the
 * index no longer holds go.
 */
export async function refreshAllDesk(db: Db, log: (line: string) => void = () => {}): Promise<RefreshResult> {
  await reclassifyOptOuts(db, log)
  // Numbers the desk knows and the index no longer holds (forgotten before forget called forgetDesk).
  const gone = await db.query<{ number: string }>(
    `SELECT number FROM (SELECT DISTINCT number FROM desk_threads UNION SELECT DISTINCT number FROM desk_dirty) k
      WHERE number NOT IN (SELECT number FROM index_numbers WHERE indexed > 0)`,
  )
  for (const { number } of gone.rows) await db.transaction((tx) => forgetDesk(tx, number))
  // Only numbers with messages stored without facts (desk_behind) or threads left to recompute,
  // so a start over a large index that is up to date reads no message.
  const nums = await db.query<{ number: string }>(
    `SELECT n.number FROM index_numbers n
      WHERE n.indexed > 0 AND (n.desk_behind OR EXISTS (SELECT 1 FROM desk_dirty x WHERE x.number = n.number))
      ORDER BY n.number`,
  )
  const total: RefreshResult = { messages: 0, threads: 0 }
  for (const { number } of nums.rows) {
    const r = await refreshDesk(db, number)
    total.messages += r.messages
    total.threads += r.threads
  }
  if (total.messages > 0) log(`desk: caught up ${total.messages} messages in ${total.threads} threads`)
  return total
}
