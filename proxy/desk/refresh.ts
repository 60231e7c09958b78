import { encodingCost } from '../../contract/desk/encoding-cost.ts'
import { type DeskMessage } from '../../contract/desk/messages.ts'
import { optOutState, sentAfterOptOut } from '../../contract/desk/opt-out-ledger.ts'
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
/** Evidence rows kept per thread: a party opted out long ago and sent to daily stays bounded. */
export const MAX_SENT_AFTER_PER_THREAD = 10_000

/** Arbitrary constant: the advisory-lock namespace of desk refreshes (one per number at a time). */
const DESK_LOCK_CLASS = 73_492_102

export interface RefreshResult {
  /** Messages whose desk facts were computed now. */
  messages: number
  /** Threads whose state was recomputed. */
  threads: number
}

type NewRow = {
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

function factsOf(r: NewRow) {
  const direction = directionOf(r.direction)
  const cost = encodingCost(r.body ?? '')
  const local = direction === 'outbound' ? localTime(r.party, r.date) : null
  return {
    direction,
    failed: typeof r.status_code === 'number' && r.status_code >= 400,
    opt: direction === 'inbound' ? classifyOptOut(r.body).kind : ('none' as OptKind),
    encoding: cost.forcedBy.length > 0 ? 'UCS-2' : 'GSM-7',
    segments: cost.segments,
    forcing: cost.forcedBy.length > 0 ? cost.forcedBy.map((f) => f.char) : null,
    extra: cost.extraSegments,
    localDay: local?.day ?? null,
    quiet: local ? local.hour < DEFAULT_WINDOW.start || local.hour >= DEFAULT_WINDOW.end : null,
  }
}

const INSERT_FACTS = `
INSERT INTO desk_messages (number, ordinal, party, date, direction, failed, opt_kind, encoding, segments, forcing, extra_segments, local_day, quiet)
SELECT $1, u.o, u.p, u.d, u.dir, u.f, u.k, u.e, u.s, CASE WHEN u.fc = '' THEN NULL ELSE string_to_array(u.fc, E'\\x1f') END, u.x, u.ld, u.q
FROM unnest($2::int[], $3::text[], $4::timestamptz[], $5::text[], $6::bool[], $7::text[], $8::text[], $9::int[], $10::text[], $11::int[], $12::date[], $13::bool[])
  AS u(o, p, d, dir, f, k, e, s, fc, x, ld, q)
ON CONFLICT (number, ordinal) DO UPDATE SET party = EXCLUDED.party, date = EXCLUDED.date, direction = EXCLUDED.direction,
  failed = EXCLUDED.failed, opt_kind = EXCLUDED.opt_kind, encoding = EXCLUDED.encoding, segments = EXCLUDED.segments,
  forcing = EXCLUDED.forcing, extra_segments = EXCLUDED.extra_segments, local_day = EXCLUDED.local_day, quiet = EXCLUDED.quiet`

/** Facts for the number's messages that have none yet (or whose message changed); returns the parties touched. */
async function addFacts(tx: Queryable, number: string, range: OrdinalRange | null, touched: Set<string>): Promise<number> {
  let done = 0
  let after = range ? range.min - 1 : 0
  const max = range ? range.max : 2_147_483_647
  for (let guard = 0; guard < 100_000; guard++) {
    const r = await tx.query<NewRow>(
      `SELECT m.ordinal, m.party_digits AS party, m.date, m.direction, COALESCE(m.body, b.body) AS body, m.status_code
         FROM index_messages m
         LEFT JOIN index_bodies b ON m.body IS NULL AND b.id = m.body_id
         LEFT JOIN desk_messages d ON d.number = m.number AND d.ordinal = m.ordinal AND d.date = m.date AND d.party = m.party_digits
        WHERE m.number = $1 AND m.ordinal > $2 AND m.ordinal <= $3 AND d.ordinal IS NULL
        ORDER BY m.ordinal LIMIT ${CHUNK}`,
      [number, after, max],
    )
    if (r.rows.length === 0) break
    const cols = {
      o: [] as number[],
      p: [] as string[],
      d: [] as Date[],
      dir: [] as Array<string | null>,
      f: [] as boolean[],
      k: [] as string[],
      e: [] as string[],
      s: [] as number[],
      fc: [] as string[],
      x: [] as number[],
      ld: [] as Array<string | null>,
      q: [] as Array<boolean | null>,
    }
    for (const row of r.rows) {
      const f = factsOf(row)
      touched.add(row.party)
      cols.o.push(row.ordinal)
      cols.p.push(row.party)
      cols.d.push(row.date)
      cols.dir.push(f.direction)
      cols.f.push(f.failed)
      cols.k.push(f.opt)
      cols.e.push(f.encoding)
      cols.s.push(f.segments)
      cols.fc.push(f.forcing ? f.forcing.join('\x1f') : '')
      cols.x.push(f.extra)
      cols.ld.push(f.localDay)
      cols.q.push(f.quiet)
    }
    await tx.query(INSERT_FACTS, [
      number,
      cols.o,
      cols.p,
      cols.d,
      cols.dir,
      cols.f,
      cols.k,
      cols.e,
      cols.s,
      cols.fc,
      cols.x,
      cols.ld,
      cols.q,
    ])
    done += r.rows.length
    after = r.rows[r.rows.length - 1]!.ordinal
    if (r.rows.length < CHUNK) break
  }
  return done
}

/** Drops facts whose message is gone (a re-walk or forget); returns the parties touched. */
async function dropStale(tx: Queryable, number: string, range: OrdinalRange | null, touched: Set<string>): Promise<void> {
  const r = await tx.query<{ party: string }>(
    `DELETE FROM desk_messages d
      WHERE d.number = $1 AND d.ordinal BETWEEN $2 AND $3
        AND NOT EXISTS (SELECT 1 FROM index_messages m WHERE m.number = d.number AND m.ordinal = d.ordinal AND m.date = d.date AND m.party_digits = d.party)
      RETURNING d.party`,
    [number, range?.min ?? 0, range?.max ?? 2_147_483_647],
  )
  for (const { party } of r.rows) touched.add(party)
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
  last_reply_ordinal: number | null
  handled_at: Date | null
}

/**
 * Counts, last inbound and last delivered reply of each party, each from the thread index
 * (the counts are the only part that reads the whole thread: an index-only count).
 */
const THREAD_FACTS = `
SELECT p.party, c.first_at, c.last_at, c.inbound, c.outbound, c.failed,
       li.ordinal AS last_inbound_ordinal, li.date AS last_inbound_at, lr.date AS last_reply_at, lr.ordinal AS last_reply_ordinal,
       h.handled_at
  FROM unnest($2::text[]) AS p(party)
  LEFT JOIN LATERAL (
    SELECT min(date) AS first_at, max(date) AS last_at,
           count(*) FILTER (WHERE direction = 'inbound')::int AS inbound,
           count(*) FILTER (WHERE direction = 'outbound')::int AS outbound,
           count(*) FILTER (WHERE failed)::int AS failed
      FROM desk_messages WHERE number = $1 AND party = p.party) c ON true
  LEFT JOIN LATERAL (
    SELECT ordinal, date FROM desk_messages WHERE number = $1 AND party = p.party AND direction = 'inbound'
     ORDER BY date DESC, ordinal DESC LIMIT 1) li ON true
  LEFT JOIN LATERAL (
    SELECT ordinal, date FROM desk_messages WHERE number = $1 AND party = p.party AND direction = 'outbound' AND NOT failed
     ORDER BY date DESC, ordinal DESC LIMIT 1) lr ON true
  LEFT JOIN desk_handled h ON h.number = $1 AND h.party = p.party`

/**
 * needs-reply.ts over SQL: the unanswered messages are the inbound ones after the last delivered
 * reply and after the last "mark handled" (at or before it counts as answered), opt-outs left out.
 */
const UNANSWERED = `
SELECT min(date) AS since, count(*)::int AS n FROM desk_messages
 WHERE number = $1 AND party = $2 AND direction = 'inbound' AND opt_kind <> 'opt-out'
   AND ($3::timestamptz IS NULL OR (date, ordinal) > ($3::timestamptz, $4::int))
   AND ($5::timestamptz IS NULL OR date > $5::timestamptz)`

type Ev = {
  ordinal: number
  date: Date
  direction: string
  opt_kind: OptKind
  failed: boolean
}

const asDesk = (number: string, party: string, e: Ev): DeskMessage & { ordinal: number } => ({
  number,
  party,
  direction: e.direction,
  date: e.date,
  ordinal: e.ordinal,
  optKind: e.opt_kind,
  statusCode: e.failed ? 400 : 200,
})

/** The opt-out state and the sends after opt-out of one thread, by optOutState/sentAfterOptOut over the messages they look at. */
async function optOutsOf(tx: Queryable, number: string, party: string) {
  const ev = await tx.query<Ev>(
    `SELECT ordinal, date, direction, opt_kind, failed FROM desk_messages
      WHERE number = $1 AND party = $2 AND opt_kind <> 'none' AND direction = 'inbound' ORDER BY date, ordinal`,
    [number, party],
  )
  if (ev.rows.length === 0) return null
  const events = ev.rows.map((e) => asDesk(number, party, e))
  const state = optOutState(events)
  // Outbound messages matter only inside an opt-out period: [opt-out, next opt-in).
  const sends: Array<DeskMessage & { ordinal: number }> = []
  const h = state.history
  for (let i = 0; i < h.length; i++) {
    if (h[i]!.state !== 'opted-out') continue
    const from = h[i]!.message
    const to = h[i + 1]?.message ?? null
    const r = await tx.query<Ev>(
      `SELECT ordinal, date, direction, opt_kind, failed FROM desk_messages
        WHERE number = $1 AND party = $2 AND direction = 'outbound'
          AND (date, ordinal) > ($3::timestamptz, $4::int) AND ($5::timestamptz IS NULL OR (date, ordinal) < ($5::timestamptz, $6::int))
        ORDER BY date, ordinal LIMIT ${MAX_SENT_AFTER_PER_THREAD + 1}`,
      [number, party, from.date, from.ordinal, to?.date ?? null, to?.ordinal ?? 0],
    )
    for (const e of r.rows) sends.push(asDesk(number, party, e))
  }
  const after = sentAfterOptOut([...events, ...sends]).slice(0, MAX_SENT_AFTER_PER_THREAD)
  return { state, after }
}

async function refreshThreads(tx: Queryable, number: string, parties: string[]): Promise<void> {
  const facts = await tx.query<ThreadFacts>(THREAD_FACTS, [number, parties])
  for (const t of facts.rows) {
    if (!t.first_at) {
      await tx.query('DELETE FROM desk_threads WHERE number = $1 AND party = $2', [number, t.party])
      await tx.query('DELETE FROM desk_sent_after WHERE number = $1 AND party = $2', [number, t.party])
      continue
    }
    const u = await tx.query<{ since: Date | null; n: number }>(UNANSWERED, [
      number,
      t.party,
      t.last_reply_at,
      t.last_reply_ordinal ?? 0,
      t.handled_at,
    ])
    const opt = await optOutsOf(tx, number, t.party)
    const since = opt?.state.since as (DeskMessage & { ordinal: number }) | null | undefined
    const history = (opt?.state.history ?? []).map((c) => ({
      state: c.state,
      ordinal: (c.message as DeskMessage & { ordinal: number }).ordinal,
      date: new Date(c.message.date).toISOString(),
    }))
    await tx.query(
      `INSERT INTO desk_threads (number, party, first_at, last_at, inbound, outbound, failed, last_inbound_ordinal, last_inbound_at,
                                 last_reply_at, waiting_since, unanswered, opted_out, opt_out_ordinal, opted_out_at, opt_history, sent_after)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $17)
       ON CONFLICT (number, party) DO UPDATE SET first_at = $3, last_at = $4, inbound = $5, outbound = $6, failed = $7,
         last_inbound_ordinal = $8, last_inbound_at = $9, last_reply_at = $10, waiting_since = $11, unanswered = $12,
         opted_out = $13, opt_out_ordinal = $14, opted_out_at = $15, opt_history = $16::jsonb, sent_after = $17`,
      [
        number,
        t.party,
        t.first_at,
        t.last_at,
        t.inbound,
        t.outbound,
        t.failed,
        t.last_inbound_ordinal,
        t.last_inbound_at,
        t.last_reply_at,
        u.rows[0]?.n ? u.rows[0].since : null,
        u.rows[0]?.n ?? 0,
        !!since,
        since?.ordinal ?? null,
        since ? new Date(since.date) : null,
        JSON.stringify(history),
        opt?.after.length ?? 0,
      ],
    )
    await tx.query('DELETE FROM desk_sent_after WHERE number = $1 AND party = $2', [number, t.party])
    const after = opt?.after ?? []
    if (after.length > 0)
      await tx.query(
        `INSERT INTO desk_sent_after (number, party, ordinal, opt_ordinal, after_ms, failed)
         SELECT $1, $2, u.o, u.oo, u.ms, u.f FROM unnest($3::int[], $4::int[], $5::bigint[], $6::bool[]) AS u(o, oo, ms, f)`,
        [
          number,
          t.party,
          after.map((a) => (a.message as DeskMessage & { ordinal: number }).ordinal),
          after.map((a) => (a.optOut as DeskMessage & { ordinal: number }).ordinal),
          after.map((a) => a.afterMs),
          after.map((a) => a.failed),
        ],
      )
  }
}

export interface OrdinalRange {
  min: number
  max: number
}

/**
 * Brings the desk tables up to date for one number: facts for its new messages, then the state
 * of the parties they (or `parties`) belong to. `ordinals` narrows the look for new messages to
 * the range a batch just stored (the sync knows it); without it the whole number is compared,
 * which is what a start-up catch-up needs.
 */
export async function refreshDesk(db: Db, number: string, parties?: readonly string[], ordinals?: OrdinalRange): Promise<RefreshResult> {
  return db.transaction(async (tx) => {
    if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '300s'`)
    await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [DESK_LOCK_CLASS, number])
    const touched = new Set<string>(parties ?? [])
    const range = ordinals ?? null
    await dropStale(tx, number, range, touched)
    const messages = await addFacts(tx, number, range, touched)
    const list = [...touched]
    for (let i = 0; i < list.length; i += 500) await refreshThreads(tx, number, list.slice(i, i + 500))
    return { messages, threads: list.length }
  })
}

/**
 * Every number: catch up after the desk tables were created over an existing index, or after a
 * stop in the middle of a sync. Desk rows of numbers the index no longer holds go.
 */
export async function refreshAllDesk(db: Db, log: (line: string) => void = () => {}): Promise<RefreshResult> {
  await db.query(`DELETE FROM desk_messages d WHERE NOT EXISTS (SELECT 1 FROM index_messages m WHERE m.number = d.number LIMIT 1)`)
  await db.query(`DELETE FROM desk_threads t WHERE NOT EXISTS (SELECT 1 FROM desk_messages d WHERE d.number = t.number LIMIT 1)`)
  await db.query(`DELETE FROM desk_sent_after s WHERE NOT EXISTS (SELECT 1 FROM desk_threads t WHERE t.number = s.number LIMIT 1)`)
  const nums = await db.query<{ number: string }>(`SELECT number FROM index_numbers WHERE indexed > 0 ORDER BY number`)
  const total: RefreshResult = { messages: 0, threads: 0 }
  for (const { number } of nums.rows) {
    const r = await refreshDesk(db, number)
    total.messages += r.messages
    total.threads += r.threads
  }
  if (total.messages > 0) log(`desk: caught up ${total.messages} messages in ${total.threads} threads`)
  return total
}
