import { type DeskMessage } from '../../contract/desk/messages.ts'
import { CONFIRMATION_WINDOW_MS, optOutState } from '../../contract/desk/opt-out-ledger.ts'
import { type OptKind } from '../../contract/desk/opt-out.ts'
import type { Queryable } from '../db/types.ts'

/**
 * A thread's state (needs reply, opt-out periods, sends after opt-out) depends on order, so it is
 * recomputed per party a batch touched, from indexed reads of that thread, never from a scan of
 * the whole number.
 */

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
export async function refreshThreads(tx: Queryable, number: string, parties: string[]): Promise<void> {
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
