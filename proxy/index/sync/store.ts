import type { Queryable } from '../../db/types.ts'
import { deskFacts, forgetDesk, storeDeskFacts } from '../../desk/refresh.ts'
import { COPY_SQL, copyCsv, copyHead, copyLine, INSERT_SQL, insertParams, type StoredMessage } from '../columns.ts'
import type { Page, PageRecord } from '../parse.ts'
import { LeaseLost } from './leases.ts'
import { BODY_COUNTS_SQL, BODY_IDS_SQL, DAILY_SQL, NUMBER_AFTER_STORE_SQL, PARTIES_SQL, QUARTER_SQL } from './sql.ts'
import type { Job, NumberRow } from './types.ts'

/** A record and its ordinal (1 = the number's oldest message). */
export interface Placed {
  ordinal: number
  r: PageRecord
}

/** A full walk's checkpoint: every ordinal above `next` is stored; `check` is ordinal next + 1's identity. */
export interface Checkpoint {
  next: number
  total: number
  check: string | null
}

interface CopyCapable {
  copyFrom: (sql: string, data: string) => Promise<void>
}
const canCopy = (tx: unknown): tx is CopyCapable => typeof (tx as Partial<CopyCapable>).copyFrom === 'function'
/** The quarter-hour roll-up's slot width: every zone's offset today is a whole number of them. */
const QUARTER_MS = 15 * 60_000

/**
 * A batch made ready before its transaction: each row's date and desk facts (when kept) and, for
 * a COPY, its CSV line up to the body id. Made outside the transaction, so that the transaction
 * holds PGlite's one connection only for the database's own work.
 */
export interface Prepared {
  page: Page
  cp: Checkpoint | null
  /** The rows, their body ids still null (the store looks them up inside its transaction). */
  rows: StoredMessage[]
  /** COPY lines (copyLine) when the rows are known to be absent and the engine loads by COPY; else null. */
  lines: string[] | null
}

/**
 * Stores records and the number's new checkpoint in one transaction: the rows, the daily
 * roll-up, the party counts, the support desk's per-message facts and the counters move
 * together. `fresh`: the rows are known to be absent (a full walk below its checkpoint), so
 * they load with COPY (a row present after all fails the batch on the primary key rather than
 * being doubled). Returns the number of rows inserted; throws LeaseLost, having written nothing,
 * when this server no longer holds the number's lease.
 */
export async function storeBatch(job: Job, page: Page, placed: Placed[], cp: Checkpoint | null, fresh = false): Promise<number> {
  return storePrepared(job, await prepareBatch(job, page, placed, cp, fresh))
}

/**
 * Rows prepared, or sent to PostgreSQL, between two turns of the event loop. A batch is thousands
 * of rows; in one stretch its facts, COPY lines or parameter arrays held the server's thread for
 * tens of milliseconds, and every request waiting on that thread with it. 500 rather than 1,000:
 * a slice of 1,000 took 3 to 4 ms of the thread, and with a young-generation collection landing in
 * it, twice that (docs/performance.md).
 */
export const ROWS_PER_TURN = 500
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** The work of a batch that needs no database (see Prepared), a slice of rows per turn of the event loop. */
export async function prepareBatch(job: Job, page: Page, placed: Placed[], cp: Checkpoint | null, fresh: boolean): Promise<Prepared> {
  const dates = datesOf(page, placed)
  // The desk's facts come from the records alone: computed before the transaction, written with the rows.
  const of = job.ctx.desk ? deskFacts() : null
  const copy = fresh && placed.length > 0
  const head = copy ? copyHead(job.number, job.tid) : ''
  const rows = new Array<StoredMessage>(placed.length)
  const lines = copy ? new Array<string>(placed.length) : null
  // Stored in ascending ordinals. A walk comes newest first; rows entering the primary key's
  // b-tree in descending order split its leftmost page again and again, each split leaving half a
  // page empty (54 MB against 31 MB for a million rows on PGlite, and the COPY 6 % slower).
  const order = placed.map((_, i) => i).sort((a, b) => placed[a]!.ordinal - placed[b]!.ordinal)
  for (let j = 0; j < order.length; j++) {
    if (j > 0 && j % ROWS_PER_TURN === 0) await nextTurn()
    const i = order[j]!
    const { ordinal, r } = placed[i]!
    const date = dates[i]!
    const ms = Date.parse(date)
    const m: StoredMessage = {
      ordinal,
      r,
      date,
      ms,
      bodyId: null,
      desk: of ? of({ party: r.partyDigits, date: ms, direction: r.direction, body: r.body }) : null,
    }
    rows[j] = m
    if (lines) lines[j] = copyLine(head, m)
  }
  return { page, cp, rows, lines }
}

/**
 * INSERT_SQL a slice of rows per statement (see ROWS_PER_TURN: the driver encodes each
 * statement's arrays in one stretch). Returns how many went in and, when some were already
 * there, which ordinals did.
 */
async function insertSlices(tx: Queryable, job: Job, rows: StoredMessage[]): Promise<{ inserted: number; got: Set<number> | null }> {
  let inserted = 0
  let got: Set<number> | null = null
  for (let i = 0; i < rows.length; i += ROWS_PER_TURN) {
    const slice = rows.slice(i, i + ROWS_PER_TURN)
    const res = await tx.query<{ n: number; got: number[] | null }>(INSERT_SQL, insertParams(job.number, job.tid, slice))
    const n = res.rows[0]?.n ?? 0
    inserted += n
    // `got` comes back only when some of the slice were skipped (and as null when all were).
    const some = res.rows[0]?.got ?? (n === slice.length ? slice.map((m) => m.ordinal) : [])
    if (n < slice.length && got === null) got = new Set(rows.slice(0, i).map((m) => m.ordinal))
    if (got) for (const o of some) got.add(o)
  }
  return { inserted, got }
}

/** Stores a prepared batch (see storeBatch). */
export async function storePrepared(job: Job, prep: Prepared): Promise<number> {
  const { db } = job.ctx
  const { page, cp } = prep
  return db.transaction(async (tx) => {
    let inserted = 0
    if (prep.rows.length > 0) {
      if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '60s'`)
      const rows = await withBodies(tx, prep.rows)
      let got: Set<number> | null = null
      if (prep.lines && canCopy(tx)) {
        // COPY loads CSV about 2.5× faster than unnest() of parameter arrays on PGlite (on PostgreSQL, from standard input).
        await tx.copyFrom(
          COPY_SQL,
          copyCsv(
            prep.lines,
            rows.map((m) => m.bodyId),
          ),
        )
        inserted = rows.length
      } else ({ inserted, got } = await insertSlices(tx, job, rows))
      // `got` lists the rows that went in only when some were skipped.
      const stored = got ? rows.filter((m) => got.has(m.ordinal)) : rows
      await rollUp(tx, job.number, stored)
      if (job.ctx.desk) await storeDeskFacts(tx, job.number, stored.map(deskStored))
      // Rows without the desk's facts: refreshDesk fills them when the desk is next brought up to date.
      else if (stored.length > 0)
        await tx.query('UPDATE index_numbers SET desk_behind = true WHERE number = $1 AND NOT desk_behind', [job.number])
    }
    const top = prep.rows.reduce((m, x) => Math.max(m, x.ordinal), 0)
    // The lease fence (see NUMBER_AFTER_STORE_SQL): when another server holds the number now,
    // the throw rolls back every row above, so a server that lost its lease writes nothing. It
    // stays the transaction's last statement, not its first: `inserted` is known only after the
    // inserts, and forget() locks index_bodies before the number's row, so a store holding that
    // row while it waits for index_bodies would deadlock with it.
    const fence = await tx.query(NUMBER_AFTER_STORE_SQL, [
      job.number,
      inserted,
      top,
      page.total,
      page.newestId,
      page.newestAt,
      page.createdRaw,
      page.optin,
      cp !== null,
      cp?.next ?? null,
      cp?.total ?? null,
      cp?.check ?? null,
      job.ctx.owner,
    ])
    if (fence.rows.length === 0) throw new LeaseLost(job.number)
    job.ctx.progress.messages += inserted
    return inserted
  })
}

const deskStored = (m: StoredMessage) => ({
  party: m.r.partyDigits,
  date: m.ms,
  failed: m.r.statusCode !== null && m.r.statusCode >= 400,
  facts: m.desk,
})

/** Each row's stored date: its own, or a neighbour's when its GMTdate did not parse (kept raw in date_raw). */
function datesOf(page: Page, placed: Placed[]): string[] {
  let fallback = page.newestAt ?? '1970-01-01T00:00:00Z'
  return placed.map(({ r }) => {
    if (r.date) fallback = r.date
    return r.date ?? fallback
  })
}

/**
 * Sets the rows' body ids (adding new bodies). With the desk's facts, each body's own (forcing
 * characters, extra segments) go with it into index_bodies (migration 360), not into every row.
 */
async function withBodies(tx: Queryable, rows: StoredMessage[]): Promise<StoredMessage[]> {
  const first = new Map<string, StoredMessage>()
  for (const m of rows) if (m.r.body !== null && !first.has(m.r.body)) first.set(m.r.body, m)
  const distinct = [...first.keys()]
  const bodyIds = new Map<string, number>()
  if (distinct.length > 0) {
    const facts = [...first.values()].map((m) => m.desk)
    const desk = facts.every((f) => f !== null)
    const ids = await tx.query<{ k: number; id: number }>(BODY_IDS_SQL, [
      distinct,
      desk ? facts.map((f) => f?.forcing?.join('\x1f') ?? null) : null,
      desk ? facts.map((f) => f?.extra ?? 0) : null,
    ])
    for (const { k, id } of ids.rows) bodyIds.set(distinct[k - 1]!, id)
  }
  for (const m of rows) m.bodyId = m.r.body === null ? null : (bodyIds.get(m.r.body) ?? null)
  return rows
}

/** A roll-up slot's counts: inbound (any direction but 'outbound'), outbound, failed (status 400 and up), outbound failed, with media. */
type Tally = [number, number, number, number, number]

function tally(t: Tally, m: StoredMessage): void {
  const out = m.r.direction === 'outbound'
  const failed = m.r.statusCode !== null && m.r.statusCode >= 400
  t[out ? 1 : 0]++
  if (failed) t[2]++
  if (failed && out) t[3]++
  if (m.r.mms) t[4]++
}

/** The daily, quarter-hour, party and body roll-ups of exactly the rows stored, in the same transaction. */
async function rollUp(tx: Queryable, number: string, rows: StoredMessage[]): Promise<void> {
  // Per day and per quarter hour: in, out, failed, outbound failed, with media (sql.ts DAILY_SQL).
  const days = new Map<string, Tally>()
  const slots = new Map<number, Tally>()
  const parties = new Map<string, [number, string]>()
  const bodyCounts = new Map<number, number>()
  for (const m of rows) {
    if (m.bodyId !== null) bodyCounts.set(m.bodyId, (bodyCounts.get(m.bodyId) ?? 0) + 1)
    const day = m.date.slice(0, 10)
    let d = days.get(day)
    if (!d) days.set(day, (d = [0, 0, 0, 0, 0]))
    const slot = Math.floor(m.ms / QUARTER_MS) * QUARTER_MS
    let q = slots.get(slot)
    if (!q) slots.set(slot, (q = [0, 0, 0, 0, 0]))
    tally(d, m)
    tally(q, m)
    const p = parties.get(m.r.partyDigits)
    if (!p) parties.set(m.r.partyDigits, [1, m.date])
    else {
      p[0]++
      if (m.date > p[1]) p[1] = m.date
    }
  }
  const columns = (e: Array<[unknown, Tally]>) => [0, 1, 2, 3, 4].map((k) => e.map(([, v]) => v[k]))
  if (days.size > 0) {
    const e = [...days.entries()]
    await tx.query(DAILY_SQL, [number, e.map(([k]) => k), ...columns(e)])
  }
  if (slots.size > 0) {
    const e = [...slots.entries()]
    await tx.query(QUARTER_SQL, [number, e.map(([k]) => new Date(k).toISOString()), ...columns(e)])
  }
  if (parties.size > 0) {
    const e = [...parties.entries()]
    await tx.query(PARTIES_SQL, [number, e.map(([k]) => k), e.map(([, v]) => v[0]), e.map(([, v]) => v[1])])
  }
  if (bodyCounts.size > 0) await tx.query(BODY_COUNTS_SQL, [number, [...bodyCounts.keys()], [...bodyCounts.values()]])
}

/** Drops what the index holds for a number (a re-walk), under its lease. */
export async function wipe(job: Job): Promise<void> {
  const { db } = job.ctx
  await db.transaction(async (tx) => {
    if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '300s'`)
    for (const table of ['index_messages', 'index_daily', 'index_quarter_hours', 'index_parties', 'index_body_counts'])
      await tx.query(`DELETE FROM ${table} WHERE number = $1`, [job.number])
    await forgetDesk(tx, job.number)
    // Fenced as a batch is (see storePrepared): a server that lost the number wipes nothing.
    const fence = await tx.query(
      `UPDATE index_numbers SET indexed = 0, top_ordinal = 0, full_done = false, cp_next = NULL, cp_total = NULL, cp_check = NULL, progress_done = 0
       WHERE number = $1 AND locked_by = $2 RETURNING number`,
      [job.number, job.ctx.owner],
    )
    if (fence.rows.length === 0) throw new LeaseLost(job.number)
  })
}

export async function loadNumber(q: Queryable, number: string): Promise<NumberRow | undefined> {
  const r = await q.query<NumberRow & Record<string, unknown>>(
    `SELECT number, tid, top_ordinal, indexed, full_done, cp_next, cp_total, cp_check, newest_msg_id, upstream_total, other_tids
     FROM index_numbers WHERE number = $1`,
    [number],
  )
  return r.rows[0]
}

/** Stored identities (system id | message id) by ordinal, for the given ordinals. */
export async function storedIdentities(q: Queryable, number: string, ordinals: number[]): Promise<Map<number, string>> {
  const r = await q.query<{ ordinal: number; system_id: string | null; message_id: string | null }>(
    'SELECT ordinal, system_id, message_id FROM index_messages WHERE number = $1 AND ordinal = ANY($2::int[])',
    [number, ordinals],
  )
  return new Map(r.rows.map((s) => [s.ordinal, `${s.system_id ?? ''}|${s.message_id ?? ''}`]))
}
