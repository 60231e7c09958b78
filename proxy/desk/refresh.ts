import { encodingCost } from '../../contract/desk/encoding-cost.ts'
import { type DeskMessage } from '../../contract/desk/messages.ts'
import { CONFIRMATION_WINDOW_MS, optOutState } from '../../contract/desk/opt-out-ledger.ts'
import { classifyOptOut, type OptKind } from '../../contract/desk/opt-out.ts'
import { localTime, DEFAULT_WINDOW } from '../../contract/desk/quiet-hours.ts'
import type { Db, Queryable } from '../db/types.ts'

/**
 * Keeps the desk tables (migration 200) in step with index_messages. Per-message facts are
 * computed once per new message; a thread's state is recomputed only for the parties a batch
 * touched, from indexed reads of that thread (its last reply, what came after it, its opt-out
 * messages and the sends inside an opt-out period), never from a scan of the whole number. The
 * rules are contract/desk's; the SQL here only selects the messages those rules look at.
 */

/** New messages are read and classified this many at a time (memory stays bounded on a 1M number). */
const CHUNK = 5_000
/** Evidence rows kept per opt-out period: a party opted out long ago and sent to daily stays bounded. */
export const MAX_SENT_AFTER_PER_PERIOD = 10_000

/** Arbitrary constant: the advisory-lock namespace of desk refreshes (one per number at a time). */
const DESK_LOCK_CLASS = 73_492_102

export interface RefreshResult {
  /** Messages whose desk facts were computed now. */
  messages: number
  /** Threads whose state was recomputed. */
  threads: number
}

/** A stored message as the desk's per-message rules read it (index_messages' columns). */
export type DeskSource = {
  ordinal: number
  party: string
  date: Date
  direction: string | null
  body: string | null
  status_code: number | null
}

function directionOf(raw: string | null): 'inbound' | 'outbound' | null {
  const d = raw?.trim().toLowerCase()
  return d === 'inbound' || d === 'outbound' ? d : null
}

type BodyFacts = { cost: ReturnType<typeof encodingCost>; opt: OptKind | null }

/**
 * The facts that depend on the body alone, once per distinct body of a batch: bodies repeat
 * (templates, auto-replies), and classifying is most of the per-message work.
 */
function bodyFacts(memo: Map<string, BodyFacts>, body: string, inbound: boolean): BodyFacts {
  let f = memo.get(body)
  if (!f) memo.set(body, (f = { cost: encodingCost(body), opt: null }))
  if (inbound && f.opt === null) f.opt = classifyOptOut(body).kind
  return f
}

/** One array per desk_messages column after number: ordinal, party, date, direction, failed, opt kind, encoding, segments, forcing, extra, local day, quiet. */
type FactCols = [
  number[],
  string[],
  Date[],
  Array<string | null>,
  boolean[],
  string[],
  string[],
  number[],
  string[],
  number[],
  Array<string | null>,
  Array<boolean | null>,
]

/** The INSERT_FACTS parameters for a number's rows ($2 onwards). */
function factColumns(rows: readonly DeskSource[], touched: Set<string>): FactCols {
  const memo = new Map<string, BodyFacts>()
  const n = rows.length
  const cols = {
    o: new Array<number>(n),
    p: new Array<string>(n),
    d: new Array<Date>(n),
    dir: new Array<string | null>(n),
    f: new Array<boolean>(n),
    k: new Array<string>(n),
    e: new Array<string>(n),
    s: new Array<number>(n),
    fc: new Array<string>(n),
    x: new Array<number>(n),
    ld: new Array<string | null>(n),
    q: new Array<boolean | null>(n),
  }
  for (let i = 0; i < n; i++) {
    const r = rows[i]!
    const direction = directionOf(r.direction)
    const b = bodyFacts(memo, r.body ?? '', direction === 'inbound')
    const forced = b.cost.forcedBy.length > 0
    const local = direction === 'outbound' ? localTime(r.party, r.date) : null
    touched.add(r.party)
    cols.o[i] = r.ordinal
    cols.p[i] = r.party
    cols.d[i] = r.date
    cols.dir[i] = direction
    cols.f[i] = typeof r.status_code === 'number' && r.status_code >= 400
    cols.k[i] = direction === 'inbound' ? b.opt! : 'none'
    cols.e[i] = forced ? 'UCS-2' : 'GSM-7'
    cols.s[i] = b.cost.segments
    cols.fc[i] = forced ? b.cost.forcedBy.map((c) => c.char).join('\x1f') : ''
    cols.x[i] = b.cost.extraSegments
    cols.ld[i] = local?.day ?? null
    cols.q[i] = local ? local.hour < DEFAULT_WINDOW.start || local.hour >= DEFAULT_WINDOW.end : null
  }
  return [cols.o, cols.p, cols.d, cols.dir, cols.f, cols.k, cols.e, cols.s, cols.fc, cols.x, cols.ld, cols.q]
}

const INSERT_FACTS = `
INSERT INTO desk_messages (number, ordinal, party, date, direction, failed, opt_kind, encoding, segments, forcing, extra_segments, local_day, quiet)
SELECT $1, u.o, u.p, u.d, u.dir, u.f, u.k, u.e, u.s, CASE WHEN u.fc = '' THEN NULL ELSE string_to_array(u.fc, E'\\x1f') END, u.x, u.ld, u.q
FROM unnest($2::int[], $3::text[], $4::timestamptz[], $5::text[], $6::bool[], $7::text[], $8::text[], $9::int[], $10::text[], $11::int[], $12::date[], $13::bool[])
  AS u(o, p, d, dir, f, k, e, s, fc, x, ld, q)
ON CONFLICT (number, ordinal) DO UPDATE SET party = EXCLUDED.party, date = EXCLUDED.date, direction = EXCLUDED.direction,
  failed = EXCLUDED.failed, opt_kind = EXCLUDED.opt_kind, encoding = EXCLUDED.encoding, segments = EXCLUDED.segments,
  forcing = EXCLUDED.forcing, extra_segments = EXCLUDED.extra_segments, local_day = EXCLUDED.local_day, quiet = EXCLUDED.quiet`

const MARK_DIRTY = 'INSERT INTO desk_dirty (number, party) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING'

/**
 * The sync's store step, inside its transaction: the facts of the messages it just stored, from
 * the rows it holds (nothing is read back), and their threads marked for the recompute that
 * follows the sync (flushDesk) or comes with the first desk read. The per-batch cost is the
 * batch's own: no thread is re-read while a long history is being walked.
 */
export async function storeDeskFacts(tx: Queryable, number: string, rows: readonly DeskSource[], fresh = false): Promise<void> {
  if (rows.length === 0) return
  // One row per ordinal, the first (as the index's own insert keeps it): an upsert may not touch a row twice.
  const seen = new Set<number>()
  let min = Infinity
  let max = 0
  const unique = rows.filter((r) => {
    if (seen.has(r.ordinal)) return false
    seen.add(r.ordinal)
    if (r.ordinal < min) min = r.ordinal
    if (r.ordinal > max) max = r.ordinal
    return true
  })
  const touched = new Set<string>()
  const cols = factColumns(unique, touched)
  // PGlite loads CSV through COPY about twice as fast as unnest(); COPY cannot update, so only
  // when the rows are new to the index (`fresh`) and the desk holds none in their range.
  let copy = false
  if (fresh && canCopy(tx)) {
    const held = await tx.query('SELECT 1 FROM desk_messages WHERE number = $1 AND ordinal BETWEEN $2 AND $3 LIMIT 1', [number, min, max])
    copy = held.rows.length === 0
  }
  await writeFacts(tx, number, cols, copy)
  await tx.query(MARK_DIRTY, [number, [...touched]])
}

/** Per UTC day and recipient-local day: outbound, unknown zone, quiet (desk_quiet_days' counts). */
type QuietDelta = Map<string, [number, number, number]>

function countQuiet(delta: QuietDelta, day: string, localDay: string | null, quiet: boolean | null, sign: 1 | -1): void {
  const key = `${day}|${localDay ?? day}`
  let c = delta.get(key)
  if (!c) delta.set(key, (c = [0, 0, 0]))
  c[0] += sign
  if (quiet === null) c[1] += sign
  else if (quiet) c[2] += sign
}

const QUIET_UPSERT = `
INSERT INTO desk_quiet_days AS t (number, day, local_day, outbound, unknown, quiet)
SELECT $1, u.day, u.ld, u.o, u.n, u.q FROM unnest($2::date[], $3::date[], $4::int[], $5::int[], $6::int[]) AS u(day, ld, o, n, q)
ON CONFLICT (number, day, local_day) DO UPDATE SET outbound = t.outbound + EXCLUDED.outbound, unknown = t.unknown + EXCLUDED.unknown,
  quiet = t.quiet + EXCLUDED.quiet`

/** Adds the counts' changes to desk_quiet_days; a day left with no sends loses its row (as a recount would). */
async function applyQuiet(tx: Queryable, number: string, delta: QuietDelta): Promise<void> {
  const e = [...delta].filter(([, c]) => c[0] !== 0 || c[1] !== 0 || c[2] !== 0)
  if (e.length === 0) return
  const day = e.map(([k]) => k.slice(0, 10))
  const ld = e.map(([k]) => k.slice(11))
  await tx.query(QUIET_UPSERT, [number, day, ld, e.map(([, c]) => c[0]), e.map(([, c]) => c[1]), e.map(([, c]) => c[2])])
  if (e.some(([, c]) => c[0] < 0))
    await tx.query(
      `DELETE FROM desk_quiet_days WHERE number = $1 AND outbound = 0 AND (day, local_day) IN (SELECT * FROM unnest($2::date[], $3::date[]))`,
      [number, day, ld],
    )
}

/** What a deleted desk row takes out of desk_quiet_days. */
const QUIET_RETURNING = `to_char(date AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, to_char(local_day, 'YYYY-MM-DD') AS local_day, direction, quiet`
type QuietRow = { day: string; local_day: string | null; direction: string | null; quiet: boolean | null }

/**
 * Writes facts (factColumns' arrays) and keeps desk_quiet_days in step: rows the desk already
 * holds for these ordinals are taken out first (their counts with them), so a message that
 * changed is never counted twice. `copy`: the rows are known to be new (COPY, no delete).
 */
async function writeFacts(tx: Queryable, number: string, cols: FactCols, copy: boolean): Promise<void> {
  const [o, , d, dir, , , , , , , ld, q] = cols
  const delta: QuietDelta = new Map()
  if (copy && canCopy(tx)) await tx.copyFrom(COPY_FACTS, factsCsv(number, cols))
  else {
    const old = await tx.query<QuietRow>(
      `DELETE FROM desk_messages WHERE number = $1 AND ordinal = ANY($2::int[]) RETURNING ${QUIET_RETURNING}`,
      [number, o],
    )
    for (const r of old.rows) if (r.direction === 'outbound') countQuiet(delta, r.day, r.local_day, r.quiet, -1)
    await tx.query(INSERT_FACTS, [number, ...cols])
  }
  for (let i = 0; i < o.length; i++) if (dir[i] === 'outbound') countQuiet(delta, d[i]!.toISOString().slice(0, 10), ld[i]!, q[i]!, 1)
  await applyQuiet(tx, number, delta)
}

interface CopyCapable {
  copyFrom: (sql: string, data: string) => Promise<void>
}
const canCopy = (tx: unknown): tx is CopyCapable => typeof (tx as Partial<CopyCapable>).copyFrom === 'function'

const COPY_FACTS = `COPY desk_messages (number, ordinal, party, date, direction, failed, opt_kind, encoding, segments, forcing, extra_segments, local_day, quiet)
  FROM '/dev/blob' WITH (FORMAT csv)`

/** CSV quoting with every string quoted, so an unquoted empty field is NULL. */
const cq = (v: string) => `"${v.includes('"') ? v.replace(/"/g, '""') : v}"`
const tf = (v: boolean | null) => (v === null ? '' : v ? 't' : 'f')

/** factColumns' arrays as COPY's CSV, one line per message (forcing as an array literal). */
function factsCsv(number: string, cols: FactCols): string {
  const [o, p, d, dir, f, k, e, s, fc, x, ld, q] = cols
  const head = cq(number)
  let out = ''
  for (let i = 0; i < o.length; i++) {
    const forcing = fc[i]
      ? `{${fc[i]!.split('\x1f')
          .map((c) => `"${c.replace(/[\\"]/g, '\\$&')}"`)
          .join(',')}}`
      : null
    out += `${head},${o[i]},${cq(p[i]!)},${d[i]!.toISOString()},${dir[i] === null ? '' : cq(dir[i]!)},${tf(f[i]!)},${cq(k[i]!)},${cq(e[i]!)},${s[i]},${forcing === null ? '' : cq(forcing)},${x[i]},${ld[i] ?? ''},${tf(q[i]!)}\n`
  }
  return out
}

/** Facts for the number's messages that have none yet (or whose message changed); returns the parties touched. */
async function addFacts(tx: Queryable, number: string, range: OrdinalRange | null, touched: Set<string>): Promise<number> {
  let done = 0
  let after = range ? range.min - 1 : 0
  const max = range ? range.max : 2_147_483_647
  for (let guard = 0; guard < 100_000; guard++) {
    const r = await tx.query<DeskSource>(
      `SELECT m.ordinal, m.party_digits AS party, m.date, m.direction, COALESCE(m.body, b.body) AS body, m.status_code
         FROM index_messages m
         LEFT JOIN index_bodies b ON m.body IS NULL AND b.id = m.body_id
         LEFT JOIN desk_messages d ON d.number = m.number AND d.ordinal = m.ordinal AND d.date = m.date AND d.party = m.party_digits
        WHERE m.number = $1 AND m.ordinal > $2 AND m.ordinal <= $3 AND d.ordinal IS NULL
        ORDER BY m.ordinal LIMIT ${CHUNK}`,
      [number, after, max],
    )
    if (r.rows.length === 0) break
    await writeFacts(tx, number, factColumns(r.rows, touched), false)
    done += r.rows.length
    after = r.rows[r.rows.length - 1]!.ordinal
    if (r.rows.length < CHUNK) break
  }
  return done
}

/** Drops facts whose message is gone (a re-walk or forget); returns the parties touched. */
async function dropStale(tx: Queryable, number: string, range: OrdinalRange | null, touched: Set<string>): Promise<void> {
  const r = await tx.query<QuietRow & { party: string }>(
    `DELETE FROM desk_messages d
      WHERE d.number = $1 AND d.ordinal BETWEEN $2 AND $3
        AND NOT EXISTS (SELECT 1 FROM index_messages m WHERE m.number = d.number AND m.ordinal = d.ordinal AND m.date = d.date AND m.party_digits = d.party)
      RETURNING d.party, ${QUIET_RETURNING}`,
    [number, range?.min ?? 0, range?.max ?? 2_147_483_647],
  )
  const delta: QuietDelta = new Map()
  for (const row of r.rows) {
    touched.add(row.party)
    if (row.direction === 'outbound') countQuiet(delta, row.day, row.local_day, row.quiet, -1)
  }
  await applyQuiet(tx, number, delta)
}

type ThreadFacts = {
  party: string
  first_at: Date | null
  last_at: Date | null
  inbound: number
  outbound: number
  failed: number
  last_inbound_ordinal: number | null
  last_inbound_at: Date | null
  last_reply_at: Date | null
  waiting_since: Date | null
  unanswered: number
}

/**
 * Each party's counts, last inbound, last delivered reply and unanswered messages, each from the
 * thread index. Unanswered is needs-reply.ts over SQL: inbound messages after the last delivered
 * reply and after the last "mark handled" (at or before it counts as answered), opt-outs left out.
 */
const THREAD_FACTS = `
SELECT p.party, c.first_at, c.last_at, c.inbound, c.outbound, c.failed,
       li.ordinal AS last_inbound_ordinal, li.date AS last_inbound_at, lr.date AS last_reply_at,
       u.since AS waiting_since, u.n AS unanswered
  FROM unnest($2::text[]) AS p(party)
  LEFT JOIN (
    SELECT party, min(date) AS first_at, max(date) AS last_at,
           count(*) FILTER (WHERE direction = 'inbound')::int AS inbound,
           count(*) FILTER (WHERE direction = 'outbound')::int AS outbound,
           count(*) FILTER (WHERE failed)::int AS failed
      FROM desk_messages WHERE number = $1 AND party = ANY($2::text[]) GROUP BY party) c ON c.party = p.party
  LEFT JOIN LATERAL (
    SELECT ordinal, date FROM desk_messages WHERE number = $1 AND party = p.party AND direction = 'inbound'
     ORDER BY date DESC, ordinal DESC LIMIT 1) li ON true
  LEFT JOIN LATERAL (
    SELECT ordinal, date FROM desk_messages WHERE number = $1 AND party = p.party AND direction = 'outbound' AND NOT failed
     ORDER BY date DESC, ordinal DESC LIMIT 1) lr ON true
  LEFT JOIN desk_handled h ON h.number = $1 AND h.party = p.party
  LEFT JOIN LATERAL (
    SELECT min(date) AS since, count(*)::int AS n FROM desk_messages
     WHERE number = $1 AND party = p.party AND direction = 'inbound' AND opt_kind <> 'opt-out'
       AND (lr.date IS NULL OR (date, ordinal) > (lr.date, lr.ordinal))
       AND (h.handled_at IS NULL OR date > h.handled_at)) u ON true`

type Ev = {
  party: string
  ordinal: number
  date: Date
  opt_kind: OptKind
}

type Marked = DeskMessage & { ordinal: number }

/**
 * Sends after opt-out, as sentAfterOptOut decides, in SQL: the outbound messages inside each
 * opt-out period (after the opt-out, before the opt-in that ends it), except the first of them
 * when it came within the confirmation window. Each period reads its first sends in order from
 * the thread index and stops at the cap, however long the period.
 */
const SENT_AFTER = `
WITH per AS (
  SELECT * FROM unnest($2::text[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::int[]) AS u(party, so, sd, ed, eo)
), sends AS (
  SELECT per.party, s.ordinal, s.date, s.failed, per.so, per.sd, s.k
    FROM per CROSS JOIN LATERAL (
      SELECT d.ordinal, d.date, d.failed, row_number() OVER (ORDER BY d.date, d.ordinal) AS k
        FROM desk_messages d
       WHERE d.number = $1 AND d.party = per.party AND d.direction = 'outbound'
         AND d.date >= per.sd AND (d.date, d.ordinal) > (per.sd, per.so)
         AND (per.ed IS NULL OR (d.date <= per.ed AND (d.date, d.ordinal) < (per.ed, per.eo)))
       ORDER BY d.date, d.ordinal
       LIMIT ${MAX_SENT_AFTER_PER_PERIOD}) s
)
INSERT INTO desk_sent_after (number, party, ordinal, date, opt_ordinal, after_ms, failed)
SELECT $1, party, ordinal, date, so, round(extract(epoch FROM date - sd) * 1000)::bigint, failed FROM sends
 WHERE NOT (k = 1 AND extract(epoch FROM date - sd) * 1000 <= $7) AND k <= ${MAX_SENT_AFTER_PER_PERIOD}
RETURNING party`

async function refreshThreads(tx: Queryable, number: string, parties: string[]): Promise<void> {
  const facts = await tx.query<ThreadFacts>(THREAD_FACTS, [number, parties])
  const ev = await tx.query<Ev>(
    `SELECT party, ordinal, date, opt_kind FROM desk_messages
      WHERE number = $1 AND party = ANY($2::text[]) AND opt_kind <> 'none' AND direction = 'inbound' ORDER BY party, date, ordinal`,
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
  const per = { party: [] as string[], so: [] as number[], sd: [] as Date[], ed: [] as Array<Date | null>, eo: [] as number[] }
  const rows = facts.rows.filter((t) => t.first_at)
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
  await tx.query('DELETE FROM desk_sent_after WHERE number = $1 AND party = ANY($2::text[])', [number, parties])
  const sent = new Map<string, number>()
  if (per.party.length > 0) {
    const r = await tx.query<{ party: string }>(SENT_AFTER, [number, per.party, per.so, per.sd, per.ed, per.eo, CONFIRMATION_WINDOW_MS])
    for (const { party } of r.rows) sent.set(party, (sent.get(party) ?? 0) + 1)
  }
  const gone = facts.rows.filter((t) => !t.first_at).map((t) => t.party)
  if (gone.length > 0) await tx.query('DELETE FROM desk_threads WHERE number = $1 AND party = ANY($2::text[])', [number, gone])
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
    `INSERT INTO desk_threads (number, party, first_at, last_at, inbound, outbound, failed, last_inbound_ordinal, last_inbound_at,
                               last_reply_at, waiting_since, unanswered, opted_out, opt_out_ordinal, opted_out_at, opt_history, sent_after)
     SELECT $1, u.* FROM unnest($2::text[], $3::timestamptz[], $4::timestamptz[], $5::int[], $6::int[], $7::int[], $8::int[], $9::timestamptz[],
                                $10::timestamptz[], $11::timestamptz[], $12::int[], $13::bool[], $14::int[], $15::timestamptz[], $16::jsonb[], $17::int[])
       AS u(party, first_at, last_at, inbound, outbound, failed, lio, lia, lra, ws, un, oo, ooo, ooa, oh, sa)
     ON CONFLICT (number, party) DO UPDATE SET first_at = EXCLUDED.first_at, last_at = EXCLUDED.last_at, inbound = EXCLUDED.inbound,
       outbound = EXCLUDED.outbound, failed = EXCLUDED.failed, last_inbound_ordinal = EXCLUDED.last_inbound_ordinal,
       last_inbound_at = EXCLUDED.last_inbound_at, last_reply_at = EXCLUDED.last_reply_at, waiting_since = EXCLUDED.waiting_since,
       unanswered = EXCLUDED.unanswered, opted_out = EXCLUDED.opted_out, opt_out_ordinal = EXCLUDED.opt_out_ordinal,
       opted_out_at = EXCLUDED.opted_out_at, opt_history = EXCLUDED.opt_history, sent_after = EXCLUDED.sent_after`,
    [
      number,
      col((t) => t.party),
      col((t) => t.first_at),
      col((t) => t.last_at),
      col((t) => t.inbound),
      col((t) => t.outbound),
      col((t) => t.failed),
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
 * Brings the desk tables up to date for one number: facts for its new messages, then the state
 * of the parties they (or `parties`) belong to. `ordinals` narrows the look for new messages to
 * the range a batch just stored (the sync knows it), and lets the thread recompute wait (see
 * THREAD_REFRESH_MS); without it the whole number is compared and every touched thread is
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
    await dropStale(tx, number, range, touched)
    const messages = await addFacts(tx, number, range, touched)
    if (defer) {
      if (touched.size > 0) await tx.query(MARK_DIRTY, [number, [...touched]])
      return { messages, threads: 0 }
    }
    const dirty = await tx.query<{ party: string }>('DELETE FROM desk_dirty WHERE number = $1 RETURNING party', [number])
    for (const { party } of dirty.rows) touched.add(party)
    const list = [...touched]
    for (let i = 0; i < list.length; i += 500) await refreshThreads(tx, number, list.slice(i, i + 500))
    return { messages, threads: list.length }
  })
  if (!defer) last.set(number, now)
  if (last.size > 50_000) last.clear()
  return result
}

/** Recomputes the threads a deferred refresh left (all numbers, or the given ones): a desk read calls it first. */
export async function flushDesk(db: Db, numbers: readonly string[] | null = null): Promise<number> {
  const r = await db.query<{ number: string }>(
    'SELECT DISTINCT number FROM desk_dirty WHERE $1::text[] IS NULL OR number = ANY($1::text[])',
    [numbers],
  )
  let threads = 0
  for (const { number } of r.rows)
    threads += await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [DESK_LOCK_CLASS, number])
      const dirty = await tx.query<{ party: string }>('DELETE FROM desk_dirty WHERE number = $1 RETURNING party', [number])
      const list = dirty.rows.map((d) => d.party)
      for (let i = 0; i < list.length; i += 500) await refreshThreads(tx, number, list.slice(i, i + 500))
      return list.length
    })
  return threads
}

/**
 * Deletes what the desk holds for a number (or every number): customer data derived from its
 * messages. Forget and a re-walk's wipe call it in their own transaction, beside their deletes.
 */
export async function forgetDesk(tx: Queryable, number: string | null): Promise<void> {
  for (const table of ['desk_messages', 'desk_quiet_days', 'desk_threads', 'desk_sent_after', 'desk_dirty', 'desk_handled'])
    await tx.query(`DELETE FROM ${table} WHERE $1::text IS NULL OR number = $1`, [number])
}

/**
 * Every number: catch up after the desk tables were created over an existing index, or after a
 * stop in the middle of a sync. Desk rows of numbers the index no longer holds go.
 */
export async function refreshAllDesk(db: Db, log: (line: string) => void = () => {}): Promise<RefreshResult> {
  // Numbers the desk knows and the index no longer holds (forgotten before forget called forgetDesk).
  const gone = await db.query<{ number: string }>(
    `SELECT number FROM (SELECT DISTINCT number FROM desk_threads UNION SELECT DISTINCT number FROM desk_dirty) k
      WHERE number NOT IN (SELECT number FROM index_numbers WHERE indexed > 0)`,
  )
  for (const { number } of gone.rows) await db.transaction((tx) => forgetDesk(tx, number))
  // Only numbers whose desk lags their index (a count per number, not a per-message comparison),
  // so a start over a large index that is up to date costs one grouped count.
  const nums = await db.query<{ number: string }>(
    `SELECT n.number FROM index_numbers n
       LEFT JOIN (SELECT number, count(*)::int AS c FROM desk_messages GROUP BY number) d ON d.number = n.number
      WHERE n.indexed > 0 AND (n.indexed <> COALESCE(d.c, 0) OR EXISTS (SELECT 1 FROM desk_dirty x WHERE x.number = n.number))
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
