import type { Queryable } from '../../db/types.ts'
import { deskCounts, deskFacts, forgetDesk, writeDeskCounts, type DeskCounts } from '../../desk/refresh.ts'
import { COPY_SQL, copyCsv, copyHead, copyLine, INSERT_SQL, insertParams, type StoredMessage } from '../columns.ts'
import type { DeskFacts } from '../../desk/refresh.ts'
import type { Page, PageMeta, PageRecord } from '../parse.ts'
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
  // Rows known to be absent load by COPY, their roll-ups worked out before the transaction.
  if (prep.lines) return storePayload(job, payloadOf(prep, job.ctx.desk), prep.page, prep.cp)
  const { db } = job.ctx
  const { page, cp } = prep
  return db.transaction(async (tx) => {
    let inserted = 0
    if (prep.rows.length > 0) {
      if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '60s'`)
      const rows = await withBodies(tx, prep.rows)
      let got: Set<number> | null
      ;({ inserted, got } = await insertSlices(tx, job, rows))
      // `got` lists the rows that went in only when some were skipped.
      const stored = got ? rows.filter((m) => got.has(m.ordinal)) : rows
      await writeRollUp(
        tx,
        job.number,
        rollUpOf(stored, (m) => m.bodyId),
      )
      if (job.ctx.desk) {
        const counts = deskCounts(stored.map(deskStored))
        if (counts) await writeDeskCounts(tx, job.number, counts)
      } else if (stored.length > 0) await markDeskBehind(tx, job.number)
    }
    const top = prep.rows.reduce((m, x) => Math.max(m, x.ordinal), 0)
    return fence(tx, job, page, cp, inserted, top)
  })
}

/**
 * A batch of rows known to be absent, made ready for COPY with no database: each row's CSV line
 * up to its body id, the batch's distinct bodies (and their desk facts), and every roll-up and
 * desk count, with bodies counted by their place in `bodies` until the transaction knows their
 * ids. A full walk of a large history makes these in its page worker (page-worker.ts), so the
 * server's thread only runs the transaction; the same function makes them on the server's thread
 * otherwise, so both ways store the same rows and counts.
 */
export interface CopyPayload {
  count: number
  /** The highest ordinal among the rows (0 when none). */
  top: number
  /** copyLine of each row, in ascending ordinals. */
  lines: string[]
  /** Each line's body: its index in `bodies`, or -1 for none. */
  lineBody: Int32Array
  bodies: string[]
  /** Per body, BODY_IDS_SQL's desk columns (the forcing characters joined by \x1f, the extra segments); null without the desk. */
  bodyForcing: Array<string | null> | null
  bodyExtra: number[] | null
  rollUp: RollUp
  desk: DeskCounts | null
}

/** A prepared batch's COPY payload (see CopyPayload); `prep.lines` must be set. */
export function payloadOf(prep: Prepared, desk: boolean): CopyPayload {
  const { rows } = prep
  const index = new Map<string, number>()
  const bodies: string[] = []
  const firstFacts: Array<DeskFacts | null> = []
  const lineBody = new Int32Array(rows.length)
  let top = 0
  for (let i = 0; i < rows.length; i++) {
    const m = rows[i]!
    if (m.ordinal > top) top = m.ordinal
    const body = m.r.body
    if (body === null) {
      lineBody[i] = -1
      continue
    }
    let k = index.get(body)
    if (k === undefined) {
      index.set(body, (k = bodies.length))
      bodies.push(body)
      firstFacts.push(m.desk)
    }
    lineBody[i] = k
  }
  const withFacts = firstFacts.every((f) => f !== null)
  return {
    count: rows.length,
    top,
    lines: prep.lines ?? [],
    lineBody,
    bodies,
    bodyForcing: withFacts ? firstFacts.map((f) => f?.forcing?.join('\x1f') ?? null) : null,
    bodyExtra: withFacts ? firstFacts.map((f) => f?.extra ?? 0) : null,
    rollUp: rollUpOf(rows, (_, i) => (lineBody[i]! < 0 ? null : lineBody[i]!)),
    desk: desk ? deskCounts(rows.map(deskStored)) : null,
  }
}

/** Stores a COPY payload and the number's new checkpoint in one transaction (see storeBatch). */
export async function storePayload(job: Job, p: CopyPayload, meta: PageMeta, cp: Checkpoint | null): Promise<number> {
  const { db } = job.ctx
  return db.transaction(async (tx) => {
    if (p.count > 0) {
      if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '60s'`)
      if (!canCopy(tx)) throw new Error('This database connection cannot COPY.')
      const ids = await bodyIds(tx, p.bodies, p.bodyForcing, p.bodyExtra)
      // COPY loads CSV about 2.5× faster than unnest() of parameter arrays on PGlite (on PostgreSQL, from standard input).
      await tx.copyFrom(
        COPY_SQL,
        copyCsv(
          p.lines,
          Array.from(p.lineBody, (k) => (k < 0 ? null : ids[k]!)),
        ),
      )
      await writeRollUp(tx, job.number, p.rollUp, ids)
      if (p.desk) await writeDeskCounts(tx, job.number, p.desk)
      else if (!job.ctx.desk) await markDeskBehind(tx, job.number)
    }
    return fence(tx, job, meta, cp, p.count, p.top)
  })
}

/** Rows stored without the desk's facts: refreshDesk fills them when the desk is next brought up to date. */
const markDeskBehind = (tx: Queryable, number: string) =>
  tx.query('UPDATE index_numbers SET desk_behind = true WHERE number = $1 AND NOT desk_behind', [number])

/**
 * The number's counters, envelope and checkpoint after a batch, and the lease fence (see
 * NUMBER_AFTER_STORE_SQL): when another server holds the number now, the throw rolls back every
 * row above, so a server that lost its lease writes nothing. It stays the transaction's last
 * statement, not its first: `inserted` is known only after the inserts, and forget() locks
 * index_bodies before the number's row, so a store holding that row while it waits for
 * index_bodies would deadlock with it.
 */
async function fence(tx: Queryable, job: Job, meta: PageMeta, cp: Checkpoint | null, inserted: number, top: number): Promise<number> {
  const r = await tx.query(NUMBER_AFTER_STORE_SQL, [
    job.number,
    inserted,
    top,
    meta.total,
    meta.newestId,
    meta.newestAt,
    meta.createdRaw,
    meta.optin,
    cp !== null,
    cp?.next ?? null,
    cp?.total ?? null,
    cp?.check ?? null,
    job.ctx.owner,
  ])
  if (r.rows.length === 0) throw new LeaseLost(job.number)
  job.ctx.progress.messages += inserted
  return inserted
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
  const facts = [...first.values()].map((m) => m.desk)
  const desk = facts.every((f) => f !== null)
  const ids = await bodyIds(
    tx,
    distinct,
    desk ? facts.map((f) => f?.forcing?.join('\x1f') ?? null) : null,
    desk ? facts.map((f) => f?.extra ?? 0) : null,
  )
  const idOf = new Map(distinct.map((b, k) => [b, ids[k]!]))
  for (const m of rows) m.bodyId = m.r.body === null ? null : (idOf.get(m.r.body) ?? null)
  return rows
}

/** The ids of distinct bodies, in their order, adding those not stored yet (BODY_IDS_SQL). */
async function bodyIds(tx: Queryable, bodies: string[], forcing: Array<string | null> | null, extra: number[] | null): Promise<number[]> {
  const ids = new Array<number>(bodies.length)
  if (bodies.length === 0) return ids
  const r = await tx.query<{ k: number; id: number }>(BODY_IDS_SQL, [bodies, forcing, extra])
  for (const { k, id } of r.rows) ids[k - 1] = id
  return ids
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

/** The daily, quarter-hour, party and body roll-ups of a batch's rows: each table's keys, then one array per count. */
export interface RollUp {
  days: [string[], ...number[][]]
  slots: [string[], ...number[][]]
  parties: [string[], number[], string[]]
  /** Bodies by the caller's key (a body id, or a place in a payload's `bodies`) and their counts. */
  bodies: [number[], number[]]
}

/** The roll-ups of exactly `rows` (the rows stored), no database; `bodyKey` names each row's body. */
export function rollUpOf(rows: readonly StoredMessage[], bodyKey: (m: StoredMessage, i: number) => number | null): RollUp {
  // Per day and per quarter hour: in, out, failed, outbound failed, with media (sql.ts DAILY_SQL).
  const days = new Map<string, Tally>()
  const slots = new Map<number, Tally>()
  const parties = new Map<string, [number, string]>()
  const bodyCounts = new Map<number, number>()
  for (let i = 0; i < rows.length; i++) {
    const m = rows[i]!
    const body = bodyKey(m, i)
    if (body !== null) bodyCounts.set(body, (bodyCounts.get(body) ?? 0) + 1)
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
  const columns = (e: Array<[unknown, Tally]>) => [0, 1, 2, 3, 4].map((k) => e.map(([, v]) => v[k]!))
  const d = [...days.entries()]
  const q = [...slots.entries()]
  const p = [...parties.entries()]
  return {
    days: [d.map(([k]) => k), ...columns(d)],
    slots: [q.map(([k]) => new Date(k).toISOString()), ...columns(q)],
    parties: [p.map(([k]) => k), p.map(([, v]) => v[0]), p.map(([, v]) => v[1])],
    bodies: [[...bodyCounts.keys()], [...bodyCounts.values()]],
  }
}

/** Writes rollUpOf's answer in the caller's transaction; `ids` maps its body keys to body ids (none: they are ids). */
async function writeRollUp(tx: Queryable, number: string, r: RollUp, ids?: readonly number[]): Promise<void> {
  if (r.days[0].length > 0) await tx.query(DAILY_SQL, [number, ...r.days])
  if (r.slots[0].length > 0) await tx.query(QUARTER_SQL, [number, ...r.slots])
  if (r.parties[0].length > 0) await tx.query(PARTIES_SQL, [number, ...r.parties])
  const [keys, counts] = r.bodies
  if (keys.length > 0) await tx.query(BODY_COUNTS_SQL, [number, ids ? keys.map((k) => ids[k]!) : keys, counts])
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
