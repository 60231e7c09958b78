import { identity, type Page } from '../parse.ts'
import { pageResult } from './fetch.ts'
import { dropIndexes } from './indexes.ts'
import { LeaseLost } from './leases.ts'
import { prepareBatch, type Checkpoint, type Placed } from './prepare.ts'
import { batchOf, storeBatch, storePrepared } from './store.ts'
import { ok, stopped, type Job, type NumberRow, type Result } from './types.ts'

/**
 * The full walk, newest first, from the checkpoint if there is one.
 *
 * Ordinals: the upstream pages by position (1 = newest) and every page carries the total at the
 * moment it was served, so a record's ordinal counted from the oldest is `pageTotal - position
 * + 1`, whatever arrived between pages. Messages arriving during a walk only shift later pages
 * towards newer ordinals; the walk continues below the lowest ordinal it has, and the overlap
 * record (the previous page's last one, asked for again) proves the alignment by identity. The
 * band of messages that arrived during the walk is fetched at the end by the catch-up.
 *
 * The walk checkpoints (lowest ordinal stored, total last seen, identity of the overlap record)
 * in the same transaction as its rows, so a crash loses at most two batches of work (the one
 * being stored and the one being prepared).
 *
 * Storing is pipelined: while one batch's transaction runs (on PGlite, in the database's own
 * thread), the next batch is made ready on the server's thread (its desk facts and COPY lines),
 * so the two threads work at once instead of by turns. Batches still go in one at a time, in
 * order, so checkpoints only ever move down.
 */

/** Pages asked for ahead: the upstream prepares them while this server parses and stores. */
const AHEAD = 4
/** Consecutive pages whose overlap record was pushed out of the page by arrivals. */
const MAX_STALLS = 20

/** Whether this number's walk holds one of the server's bulk loads (indexes dropped). */
export interface BulkHold {
  bulk: boolean
}

interface Walk {
  job: Job
  hold: BulkHold
  /** Every ordinal above `next` is stored; Infinity before the first page of a fresh walk. */
  next: number
  totalKnown: number
  /** Identity of ordinal next + 1, which the next page must carry. */
  check: string | null
  pendingStart: number
  pending: Promise<Result<Page>>
  ahead: Map<number, Promise<Result<Page>>>
  /** Off once arrivals outrun the pages asked for ahead: each request then aligns on the last. */
  aheadOn: boolean
  buffer: Placed[]
  bufferPage: Page | null
  bufferCp: Checkpoint | null
  topStored: number
  stalls: number
  inserted: number
  /** The batch being stored, if any (see flush); it rejects with its store's error. */
  storing: Promise<void> | null
  /** Whether that store is still running (not only waiting to be drained). */
  storeRunning: boolean
}

/** Returns the rows inserted, or why the walk stopped (what it fetched before is kept). */
export async function fullWalk(job: Job, row: NumberRow, hold: BulkHold): Promise<Result<number>> {
  const w = startWalk(job, row, hold)
  if (w.next <= 0) return ok(0)
  try {
    return await walkPages(w)
  } finally {
    // Whatever ended the walk, the batch in flight is stored (or its error thrown) before it returns.
    await drain(w)
  }
}

async function walkPages(w: Walk): Promise<Result<number>> {
  const { job } = w
  w.pending = pageAt(w, w.pendingStart)
  for (;;) {
    const waitStart = performance.now()
    const got = await w.pending
    job.ctx.stats.waitMs += performance.now() - waitStart
    if (!got.ok) {
      await flush(w)
        .then(() => drain(w))
        .catch((e: unknown) => {
          // Not a failure to store but the end of this server's sync (see syncNumber).
          if (e instanceof LeaseLost) throw e
          job.ctx.log(`index: ${job.number}: could not store the last pages: ${String(e)}`)
        })
      return got
    }
    const step = await onPage(w, got.value)
    if (step.ok && step.value) await drain(w)
    if (!step.ok || step.value) return step.ok ? ok(w.inserted) : step
    if (job.signal.aborted) {
      await flush(w)
      return stopped('aborted', 'stopped')
    }
  }
}

function startWalk(job: Job, row: NumberRow, hold: BulkHold): Walk {
  const resume = row.cp_next !== null && row.cp_total !== null && row.top_ordinal > 0
  if (resume) job.ctx.log(`index: ${job.number}: resuming the full walk at ordinal ${row.cp_next} of ${row.cp_total}`)
  const next = resume ? row.cp_next! : Number.POSITIVE_INFINITY
  const totalKnown = resume ? row.cp_total! : 0
  const check = resume ? row.cp_check : null
  return {
    job,
    hold,
    next,
    totalKnown,
    check,
    // On resume, ordinal cp_next + 1 is asked for again as the overlap.
    pendingStart: resume ? Math.max(1, totalKnown - next + 1 - (check ? 1 : 0)) : 1,
    pending: Promise.resolve(stopped('fail', 'not started')),
    ahead: new Map(),
    aheadOn: true,
    buffer: [],
    bufferPage: null,
    bufferCp: null,
    topStored: row.top_ordinal,
    stalls: 0,
    inserted: 0,
    storing: null,
    storeRunning: false,
  }
}

/** The page at `start`, from those asked for ahead when there; asks for the next ones ahead. */
function pageAt(w: Walk, start: number): Promise<Result<Page>> {
  const { job } = w
  const cap = job.ctx.pageCap
  const got = w.ahead.get(start)
  for (const k of [...w.ahead.keys()]) if (k <= start) w.ahead.delete(k)
  const p = got ?? pageResult(job, start, start + cap - 1)
  if (!w.aheadOn || w.totalKnown <= 0) return p
  const stride = Math.max(1, cap - 1) // consecutive pages share one record (the overlap)
  for (let k = 1; k <= AHEAD; k++) {
    const s = start + k * stride
    // The page before it reaches position s: needed only while s is short of the total.
    if (s >= w.totalKnown || w.ahead.has(s)) continue
    w.ahead.set(s, pageResult(job, s, s + cap - 1))
  }
  return p
}

/** One page in: true when the walk is complete. */
async function onPage(w: Walk, page: Page): Promise<Result<boolean>> {
  const { job } = w
  const start = w.pendingStart
  if (page.total < w.totalKnown) return stopped('rewalk', `the upstream's total went down from ${w.totalKnown} to ${page.total}`)
  const order = checkOrder(page, start)
  if (order) return order
  if (page.total === 0 || (!Number.isFinite(w.next) && page.records.length === 0)) {
    // An empty history is a complete one.
    await drain(w)
    await storeBatch(job, page, [], { next: 0, total: page.total, check: null })
    return ok(true)
  }
  if (page.records.length === 0)
    return stopped(
      'fail',
      `The messaging service returned no records for positions ${start}–${start + job.ctx.pageCap - 1} of ${page.total}.`,
    )
  await maybeBulk(w, page)
  const rows: Placed[] = page.records.map((r, i) => ({ ordinal: page.total - (start + i) + 1, r }))
  const aligned = align(w, rows)
  if (aligned === 'stall') return stall(w, page)
  if (aligned !== 'ok') return aligned
  w.stalls = 0
  await advance(w, page, rows)
  return ok(w.next <= 0)
}

/**
 * Order by identity, not by dates (clocks are skewed, and a message may be dated before older
 * ones): the envelope names the newest message, so a page that carries it anywhere but at
 * position 1 came in another order.
 */
function checkOrder(page: Page, start: number): Result<boolean> | null {
  if (page.newestId === null) return null
  const at = page.records.findIndex((r) => r.systemId === page.newestId)
  if (at < 0 || start + at === 1) return null
  return stopped(
    'fail',
    'The messaging service sent this history oldest first (its newest message came last). The index assumes newest first, as documented, and stopped rather than build a wrong index.',
  )
}

/** A large first walk into a small index loads without the secondary indexes, built at the end. */
async function maybeBulk(w: Walk, page: Page): Promise<void> {
  const { ctx, number } = w.job
  if (Number.isFinite(w.next) || page.total < ctx.bulkMin || w.hold.bulk) return
  const held = await ctx.db.query<{ n: number }>('SELECT COALESCE(sum(indexed), 0)::int AS n FROM index_numbers')
  if ((held.rows[0]?.n ?? 0) * 2 >= page.total || !(await dropIndexes(ctx.db, ctx.desk))) return
  w.hold.bulk = true
  ctx.bulk.loads += 1
  ctx.log(`index: ${number}: bulk load of ${page.total} messages (indexes built at the end)`)
}

/** The overlap record must be in the page with the identity it had: 'stall' when arrivals pushed it out. */
function align(w: Walk, rows: Placed[]): 'ok' | 'stall' | { ok: false; stop: { kind: 'rewalk'; message: string } } {
  if (w.check === null || !Number.isFinite(w.next)) return 'ok'
  const overlap = rows.find((x) => x.ordinal === w.next + 1)
  if (!overlap) return 'stall'
  if (identity(overlap.r) !== w.check) return { ok: false, stop: { kind: 'rewalk', message: `record ${w.next + 1} changed between pages` } }
  return 'ok'
}

/** More messages arrived between requests than the page could absorb: ask again, one page at a time. */
function stall(w: Walk, page: Page): Result<boolean> {
  if (++w.stalls > MAX_STALLS) return stopped('fail', 'The history grows faster than the index can page through it; try again later.')
  w.totalKnown = page.total
  w.aheadOn = false
  w.ahead.clear()
  w.pendingStart = Math.max(1, w.totalKnown - w.next)
  w.pending = pageAt(w, w.pendingStart)
  return ok(false)
}

/** Takes the page's rows below the checkpoint (and any new ones above the stored top), asks for the next page. */
async function advance(w: Walk, page: Page, rows: Placed[]): Promise<void> {
  const walking = Number.isFinite(w.next)
  const hi = rows[0]!.ordinal
  const lowest = rows[rows.length - 1]!
  const keep = walking ? rows.filter((x) => x.ordinal <= w.next) : rows
  // Records above the walk's band (arrived during it) are correct too; storing them is free.
  const above = walking ? rows.filter((x) => x.ordinal > w.next + 1 && x.ordinal > w.topStored) : []
  const next = Math.min(walking ? w.next : hi, lowest.ordinal - 1)
  const check = identity(lowest.r)
  w.totalKnown = page.total
  if (next > 0) {
    // Ask for the next page before storing this one: the upstream works while we insert.
    w.pendingStart = w.totalKnown - next
    w.pending = pageAt(w, w.pendingStart)
    // Let the request reach the socket before PGlite's synchronous work holds the thread.
    await new Promise<void>((resolve) => setImmediate(resolve))
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  // Below the checkpoint nothing is stored (it moves in the same transaction as the rows), and
  // above the stored top nothing is either: those rows load without conflict checks.
  for (const x of above) w.buffer.push(x)
  for (const x of keep) w.buffer.push(x)
  w.topStored = Math.max(w.topStored, hi)
  w.bufferPage = page
  w.bufferCp = { next, total: w.totalKnown, check }
  if (w.buffer.length >= w.job.ctx.storeRows || next <= 0) await flush(w)
  w.next = next
  w.check = check
}

/**
 * The batch goes in with the checkpoint of its last page. It is prepared while the previous
 * batch is still being stored, and its own store starts once that one has ended; the walk goes
 * on without waiting for it (drain does).
 */
async function flush(w: Walk): Promise<void> {
  if (!w.bufferPage) return
  const { job } = w
  const [page, rows, cp] = [w.bufferPage, w.buffer, w.bufferCp]
  w.buffer = []
  w.bufferPage = null
  const overlapped = w.storeRunning
  const prepStart = performance.now()
  const prepared = await prepareBatch(batchOf(job), page, rows, cp, true)
  job.ctx.stats.prepareMs += performance.now() - prepStart
  if (overlapped) job.ctx.stats.overlappedBatches += 1
  await drain(w)
  const storeStart = performance.now()
  w.storeRunning = true
  const storing = storePrepared(job, prepared)
    .then((n) => {
      w.inserted += n
      job.ctx.stats.storeMs += performance.now() - storeStart
    })
    .finally(() => (w.storeRunning = false))
  // Observed here so that a failure in flight is never an unhandled rejection; drain throws it.
  storing.catch(() => {})
  w.storing = storing
}

/** Waits for the batch being stored, if any; throws its error. */
async function drain(w: Walk): Promise<void> {
  const storing = w.storing
  if (!storing) return
  w.storing = null
  await storing
}
