import { BODY_OF, STATUS_OF } from '../kernel/stored-messages.ts'
import type { Queryable } from '../db/types.ts'

/**
 * "Sent after opt-out", read: every outbound message inside an opt-out period (desk_opt_periods,
 * which the recompute keeps: migration 500), newest first, with the opt-out message that started
 * its period. The sends are read from the thread index (index_messages_thread: number, party,
 * date DESC, ordinal DESC) between the period's ends, never copied, so the list holds every send,
 * the confirmation the rules allow left out.
 */

/** One send after opt-out, with its period's opt-out message. */
export type SentRow = {
  number: string
  party: string
  ordinal: number
  date: Date
  body: string | null
  status: string | null
  status_code: number | null
  failed: boolean
  after_ms: string | number
  opt_ordinal: number
  opt_date: Date
  opt_body: string | null
}

/** Where a keyset batch goes on from: the last row of the batch before (date DESC, number, ordinal DESC). */
export type SentCursor = Pick<SentRow, 'date' | 'number' | 'ordinal'>

/** A number ($1, or NULL for all) and a customer's forms ($2, or NULL for all): the periods in scope. */
const IN_SCOPE = `p.sends > 0 AND ($1::text IS NULL OR p.number = $1) AND ($2::text[] IS NULL OR p.party = ANY($2::text[]))`

/**
 * A send of period `p`, as the message `d`: the thread index's range, bounded by the period's first
 * and last send as the recompute stored them (plain bounds on `date`, which the index scan starts
 * and stops at: a bound under an OR is only a filter, and a period closed long ago read its thread
 * to the newest message), then the exact ends, the direction and the confirmation. The list is
 * what the period row counts, also while a running sync stores sends its recompute has not seen.
 */
const OF_PERIOD = `d.number = p.number AND d.party_digits = p.party
  AND d.date >= p.first_send AND d.date <= p.last_send
  AND (d.date, d.ordinal) > (p.opt_date, p.opt_ordinal)
  AND (p.end_date IS NULL OR (d.date, d.ordinal) < (p.end_date, p.end_ordinal))
  AND NOT d.desk_inbound AND d.ordinal IS DISTINCT FROM p.confirmation`

/** The answer's columns, from the periods `p` and their sends `m`. */
const COLUMNS = `p.number, p.party, m.ordinal, m.date, ${BODY_OF('m')} AS body, ${STATUS_OF('m')} AS status, m.status_code,
       COALESCE(m.status_code >= 400, false) AS failed, round(extract(epoch FROM m.date - p.opt_date) * 1000)::bigint AS after_ms,
       p.opt_ordinal, p.opt_date, ${BODY_OF('o')} AS opt_body`

/**
 * The newest `limit` sends after `offset` ($3 = limit + offset, $4 limit, $5 offset). Only the
 * periods whose last send is at least the ($3)-th newest period's last send are read: each period
 * has a send as new as its last, so that many periods hold $3 sends at least that new, and any
 * send of a period whose last is older ranks below them. Each period read gives its newest $3.
 */
const PAGE = `
WITH per AS (SELECT * FROM desk_opt_periods p WHERE ${IN_SCOPE}),
cut AS (SELECT last_send FROM per ORDER BY last_send DESC OFFSET ($3::int - 1) LIMIT 1),
p AS (SELECT * FROM per WHERE last_send >= COALESCE((SELECT last_send FROM cut), '-infinity'))
SELECT ${COLUMNS}
  FROM p
  CROSS JOIN LATERAL (SELECT d.* FROM index_messages d WHERE ${OF_PERIOD} ORDER BY d.date DESC, d.ordinal DESC LIMIT $3) m
  JOIN index_messages o ON o.number = p.number AND o.ordinal = p.opt_ordinal
 ORDER BY m.date DESC, p.number, m.ordinal DESC LIMIT $4 OFFSET $5`

/** Whether send `d` comes after the cursor ($3 date, $4 number, $5 ordinal) in the list's order, for period `p`. */
const BEFORE_CURSOR = `d.date <= $3 AND (d.date < $3 OR p.number > $4 OR (p.number = $4 AND d.ordinal < $5))`

/**
 * The next `$6` sends after the cursor. Each period with a send at or before the cursor's date
 * gives its newest send past the cursor (one probe of the thread index), and only the periods
 * whose such send is at least the ($6)-th newest of them are read, each for its next `$6`: the
 * PAGE argument, with each period's newest unread send in place of its last.
 */
const AFTER = `
WITH per AS (SELECT * FROM desk_opt_periods p WHERE ${IN_SCOPE} AND p.first_send <= $3),
head AS (
  SELECT p.*, h.date AS head FROM per p
   CROSS JOIN LATERAL (
     SELECT d.date FROM index_messages d WHERE ${OF_PERIOD} AND ${BEFORE_CURSOR} ORDER BY d.date DESC, d.ordinal DESC LIMIT 1) h
),
cut AS (SELECT head FROM head ORDER BY head DESC OFFSET ($6::int - 1) LIMIT 1),
p AS (SELECT * FROM head WHERE head >= COALESCE((SELECT head FROM cut), '-infinity'))
SELECT ${COLUMNS}
  FROM p
  CROSS JOIN LATERAL (
    SELECT d.* FROM index_messages d WHERE ${OF_PERIOD} AND ${BEFORE_CURSOR} ORDER BY d.date DESC, d.ordinal DESC LIMIT $6) m
  JOIN index_messages o ON o.number = p.number AND o.ordinal = p.opt_ordinal
 ORDER BY m.date DESC, p.number, m.ordinal DESC LIMIT $6`

/** Scope: a number (null: every number) and a customer's forms (partyForms; null: every customer). */
export type SentScope = { number: string | null; keys: readonly string[] | null }

/** The report's page: `limit` sends after the `offset` newest. */
export async function sentAfterPage(q: Queryable, scope: SentScope, limit: number, offset: number): Promise<SentRow[]> {
  const r = await q.query<SentRow>(PAGE, [scope.number, scope.keys, limit + offset, limit, offset])
  return r.rows
}

/** The export's batches: `size` sends after `after` (null: the newest). */
export async function sentAfterBatch(q: Queryable, scope: SentScope, after: SentCursor | null, size: number): Promise<SentRow[]> {
  if (!after) return sentAfterPage(q, scope, size, 0)
  const r = await q.query<SentRow>(AFTER, [scope.number, scope.keys, after.date, after.number, after.ordinal, size])
  return r.rows
}

/** How many sends after opt-out are in scope (the periods' counts). */
export async function sentAfterCount(q: Queryable, scope: SentScope): Promise<number> {
  const r = await q.query<{ n: number }>(`SELECT COALESCE(sum(p.sends), 0)::int AS n FROM desk_opt_periods p WHERE ${IN_SCOPE}`, [
    scope.number,
    scope.keys,
  ])
  return r.rows[0]?.n ?? 0
}
