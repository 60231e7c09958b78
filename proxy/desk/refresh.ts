import { classifyOptOut } from '../../contract/desk/opt-out.ts'
import type { Db, Queryable } from '../db/types.ts'
import { addFacts, MARK_DIRTY, type OrdinalRange } from './refresh-facts.ts'
import { refreshThreads } from './refresh-threads.ts'

/**
 * Keeps the desk in step with index_messages. A message's own facts (direction class, opt-out
 * keyword, encoding and segments, quiet hour) are columns of its index_messages row (migration
 * 320), computed from the record before it is stored and written by the same COPY or INSERT; the
 * per-day quiet and segment counts move by the batch's own rows. A thread's state (needs reply, opt-out
 * periods, sends after opt-out) depends on order, so it is recomputed per party a batch touched,
 * from indexed reads of that thread, never from a scan of the whole number. The rules are
 * contract/desk's; the SQL here only selects the messages those rules look at.
 *
 * This file is the upkeep (one number, the dirty threads, forget, reclassification, a full
 * refresh); refresh-facts.ts holds the per-message facts and refresh-threads.ts a thread's state.
 */

/** Arbitrary constant: the advisory-lock namespace of desk refreshes (one per number at a time). */
const DESK_LOCK_CLASS = 73_492_102

export interface RefreshResult {
  /** Messages whose desk facts were computed now. */
  messages: number
  /** Threads whose state was recomputed. */
  threads: number
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
