import type { Queryable } from '../../db/types.ts'
import { deskCounts } from '../../../contract/desk/facts.ts'
import { COPY_SQL, copyCsv, copyPieces, INSERT_SQL, insertParams, type StoredMessage } from '../columns.ts'
import type { CopyData } from '../../db/migrate.ts'
import type { PageMeta } from '../parse.ts'
import { LeaseLost } from './leases.ts'
import {
  deskStored,
  payloadOf,
  prepareBatch,
  rollUpOf,
  ROWS_PER_TURN,
  type Checkpoint,
  type CopyPayload,
  type Placed,
  type Prepared,
  type RollUp,
} from './prepare.ts'
import { BODY_COUNTS_SQL, BODY_IDS_SQL, DAILY_SQL, NUMBER_AFTER_STORE_SQL, PARTIES_SQL, QUARTER_SQL, STATUS_IDS_SQL } from './sql.ts'
import type { Job, NumberRow } from './types.ts'

interface CopyCapable {
  copyFrom: (sql: string, data: CopyData) => Promise<void>
}

/**
 * The line bytes in each piece of a batch's COPY data sent to a PostgreSQL server (pg-copy.ts):
 * about a millisecond of the server's thread to make and send, where the whole batch took 10 to
 * 25 ms at once.
 */
const COPY_PIECE = 128 * 1024
const canCopy = (tx: unknown): tx is CopyCapable => typeof (tx as Partial<CopyCapable>).copyFrom === 'function'
/**
 * Stores records and the number's new checkpoint in one transaction: the rows, the daily
 * roll-up, the party counts, the support desk's per-message facts and the counters move
 * together. `fresh`: the rows are known to be absent (a full walk below its checkpoint), so
 * they load with COPY (a row present after all fails the batch on the key (number, ordinal) rather than
 * being doubled). Returns the number of rows inserted; throws LeaseLost, having written nothing,
 * when this server no longer holds the number's lease.
 */
export async function storeBatch(job: Job, page: PageMeta, placed: Placed[], cp: Checkpoint | null, fresh = false): Promise<number> {
  return storePrepared(job, await prepareBatch(batchOf(job), page, placed, cp, fresh))
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

/** A job's number, tid and whether it keeps the desk, as prepareBatch takes them. */
export const batchOf = (job: Job) => ({ number: job.number, tid: job.tid, desk: job.ctx.desk })

/** Stores a prepared batch (see storeBatch). */
export async function storePrepared(job: Job, prep: Prepared): Promise<number> {
  // Rows known to be absent load by COPY, their roll-ups worked out before the transaction.
  if (prep.lines) return storePayload(job, payloadOf(prep, job.ctx.desk), prep.page, prep.cp)
  return inTransaction(job, (tx) => storePreparedIn(tx, job, prep))
}

/** A batch's store in its own transaction, or kept for the staged walk's one (see Job.stage); 0 then. */
async function inTransaction(job: Job, store: (tx: Queryable) => Promise<number>): Promise<number> {
  if (job.stage) {
    job.stage.push(store)
    return 0
  }
  const { db } = job.ctx
  return db.transaction(async (tx) => {
    if (db.engine === 'postgres') await tx.query(ASYNC_COMMIT)
    return store(tx)
  })
}

/**
 * On PostgreSQL a sync's batch commits without waiting for the server's disk: the batch and its
 * checkpoint are in one transaction, so a crash of the database server loses at most the last
 * batches, whole, which the walk fetches again from the checkpoint before them; this server
 * being killed loses nothing (the database server holds the commit). Not on PGlite: there the
 * database lives in this process, and an unflushed commit was never written at all, so a kill -9
 * mid-sync lost every batch since the start (the SIGKILL tests in sync.test.ts).
 */
const ASYNC_COMMIT = 'SET LOCAL synchronous_commit = off'

async function storePreparedIn(tx: Queryable, job: Job, prep: Prepared): Promise<number> {
  const { db } = job.ctx
  const { page, cp } = prep
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
      if (counts) await job.ctx.hooks.batchStored(tx, job.number, counts)
    } else if (stored.length > 0) await markDeskBehind(tx, job.number)
  }
  const top = prep.rows.reduce((m, x) => Math.max(m, x.ordinal), 0)
  return fence(tx, job, page, cp, inserted, top)
}

/** Stores a COPY payload and the number's new checkpoint in one transaction (see storeBatch). */
export async function storePayload(job: Job, p: CopyPayload, meta: PageMeta, cp: Checkpoint | null): Promise<number> {
  const { db } = job.ctx
  return inTransaction(job, async (tx) => {
    if (p.count > 0) {
      if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '60s'`)
      if (!canCopy(tx)) throw new Error('This database connection cannot COPY.')
      const ids = await bodyIds(tx, p.bodies, p.bodyForcing, p.bodyExtra)
      const statuses = await statusIds(tx, p.statuses)
      // COPY loads CSV about 2.5× faster than unnest() of parameter arrays on PGlite (on PostgreSQL, from standard input).
      const lines = {
        lineBytes: p.lineBytes,
        lineEnds: p.lineEnds,
        lineStatus: p.lineStatus,
        statusIds: statuses,
        lineBody: p.lineBody,
        bodyIds: ids,
      }
      await tx.copyFrom(COPY_SQL, db.engine === 'postgres' ? copyPieces(lines, COPY_PIECE) : copyCsv(lines))
      await writeRollUp(tx, job.number, p.rollUp, ids)
      if (p.desk) await job.ctx.hooks.batchStored(tx, job.number, p.desk)
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

/**
 * Sets the rows' body and status ids (adding new texts). With the desk's facts, each body's own (forcing
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
  const texts = [...new Set(rows.flatMap((m) => (m.r.status === null ? [] : [m.r.status])))]
  const statuses = await statusIds(tx, texts)
  const statusOf = new Map(texts.map((t, k) => [t, statuses[k]!]))
  for (const m of rows) {
    m.bodyId = m.r.body === null ? null : (idOf.get(m.r.body) ?? null)
    m.statusId = m.r.status === null ? null : (statusOf.get(m.r.status) ?? null)
  }
  return rows
}

/** The ids of distinct status texts, in their order, adding those not stored yet (STATUS_IDS_SQL). */
async function statusIds(tx: Queryable, texts: string[]): Promise<number[]> {
  const ids = new Array<number>(texts.length)
  if (texts.length === 0) return ids
  const r = await tx.query<{ k: number; id: number }>(STATUS_IDS_SQL, [texts])
  for (const { k, id } of r.rows) ids[k - 1] = id
  return ids
}

/** The ids of distinct bodies, in their order, adding those not stored yet (BODY_IDS_SQL). */
async function bodyIds(tx: Queryable, bodies: string[], forcing: Array<string | null> | null, extra: number[] | null): Promise<number[]> {
  const ids = new Array<number>(bodies.length)
  if (bodies.length === 0) return ids
  const r = await tx.query<{ k: number; id: number }>(BODY_IDS_SQL, [bodies, forcing, extra])
  for (const { k, id } of r.rows) ids[k - 1] = id
  return ids
}

/** Writes rollUpOf's answer in the caller's transaction; `ids` maps its body keys to body ids (none: they are ids). */
async function writeRollUp(tx: Queryable, number: string, r: RollUp, ids?: readonly number[]): Promise<void> {
  if (r.days[0].length > 0) await tx.query(DAILY_SQL, [number, ...r.days])
  if (r.slots[0].length > 0) await tx.query(QUARTER_SQL, [number, ...r.slots])
  if (r.parties[0].length > 0) await tx.query(PARTIES_SQL, [number, ...r.parties])
  const [keys, counts] = r.bodies
  if (keys.length > 0) await tx.query(BODY_COUNTS_SQL, [number, ids ? keys.map((k) => ids[k]!) : keys, counts])
}

/**
 * Drops what the index holds for a number (a re-walk), under its lease. People's "mark handled"
 * records stay: they are not the upstream's to take back (a re-walk lost them).
 */
export async function wipe(job: Job): Promise<void> {
  await job.ctx.db.transaction((tx) => wipeIn(tx, job))
}

async function wipeIn(tx: Queryable, job: Job): Promise<void> {
  if (job.ctx.db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '300s'`)
  for (const table of ['index_messages', 'index_daily', 'index_quarter_hours', 'index_parties', 'index_body_counts'])
    await tx.query(`DELETE FROM ${table} WHERE number = $1`, [job.number])
  await job.ctx.hooks.forgetting(tx, job.number, { keepHandled: true })
  // Fenced as a batch is (see storePrepared): a server that lost the number wipes nothing.
  const fence = await tx.query(
    `UPDATE index_numbers SET indexed = 0, top_ordinal = 0, full_done = false, cp_next = NULL, cp_total = NULL, cp_check = NULL, progress_done = 0
     WHERE number = $1 AND locked_by = $2 RETURNING number`,
    [job.number, job.ctx.owner],
  )
  if (fence.rows.length === 0) throw new LeaseLost(job.number)
}

/**
 * A staged walk's batches go in, in one transaction with the wipe of what was stored: readers see
 * the old rows until it commits, and a walk that failed part-way wrote nothing (what was stored
 * stays whole). Returns the rows inserted.
 */
export async function commitStaged(job: Job, stage: ReadonlyArray<(tx: Queryable) => Promise<number>>): Promise<number> {
  return job.ctx.db.transaction(async (tx) => {
    await wipeIn(tx, job)
    let inserted = 0
    for (const store of stage) inserted += await store(tx)
    return inserted
  })
}

export async function loadNumber(q: Queryable, number: string): Promise<NumberRow | undefined> {
  const r = await q.query<NumberRow & Record<string, unknown>>(
    `SELECT number, tid, top_ordinal, indexed, full_done, cp_next, cp_total, cp_check, newest_msg_id, upstream_total, other_tids, line_of
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
