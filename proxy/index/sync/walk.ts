import type { PageMeta } from '../parse.ts'
import { pageResult, type WalkPage } from './fetch.ts'
import { dropIndexes } from './indexes.ts'
import { LeaseLost } from './leases.ts'
import { sleep } from '../../kernel/pace.ts'
import { prepareBatch, type Checkpoint, type Placed } from './prepare.ts'
import { batchOf, storeBatch, storePayload, storePrepared } from './store.ts'
import { ok, shrank, stopped, type Job, type NumberRow, type Result } from './types.ts'

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
 * thread), the next batch is made ready (its desk facts and COPY lines), so the two threads work
 * at once instead of by turns. Batches still go in one at a time, in order, so checkpoints only
 * ever move down.
 *
 * A long history (SyncOptions.pageWorkerMin) is walked with the page worker (pages.ts): once the
 * walk knows the total, each page's bytes are decoded and parsed there, the walk sees each
 * record's identity only, and tells the worker which records to keep; the worker makes each
 * batch ready, so this thread fetches, decides and runs the transactions.
 */

/** Pages asked for ahead: the upstream prepares them while this server parses and stores. */
const AHEAD = 4
/** Empty answers in a row for a page inside the history asked again before the walk stops. */
const EMPTY_RETRIES = 3
/** Consecutive pages whose overlap record was pushed out of the page by arrivals. */
const MAX_STALLS = 20
/**
 * Consecutive answers with no record below the checkpoint while the total grew (arrivals pushed
 * the page up to its overlap record): asked again from the new total at most this many times.
 */
const MAX_DRY = MAX_STALLS

/** Whether this number's walk holds one of the server's bulk loads (indexes dropped). */
export interface BulkHold {
  bulk: boolean
}

/** Numbers each walk of this process, so the page worker keeps two walks of one number apart. */
let walks = 0

interface Walk {
  job: Job
  /** The walk's name in the page worker. */
  id: string
  hold: BulkHold
  /** Every ordinal above `next` is stored; Infinity before the first page of a fresh walk. */
  next: number
  totalKnown: number
  /** When the answer that carried totalKnown came (-Infinity: from the checkpoint). */
  totalAt: number
  /** Identity of ordinal next + 1, which the next page must carry. */
  check: string | null
  pendingStart: number
  pending: Promise<Result<WalkPage>>
  ahead: Map<number, Promise<Result<WalkPage>>>
  /** Off once arrivals outrun the pages asked for ahead: each request then aligns on the last. */
  aheadOn: boolean
  /** The batch being gathered: rows of pages parsed here, or how many rows the page worker holds for it. */
  buffer: Placed[]
  held: number
  bufferKind: 'here' | 'worker'
  bufferPage: PageMeta | null
  bufferCp: Checkpoint | null
  topStored: number
  stalls: number
  /** Answers in a row that held nothing below the checkpoint (see MAX_DRY). */
  dry: number
  /** Empty answers in a row for a page inside the history (see EMPTY_RETRIES). */
  empties: number
  /**
   * The page asked for starts past the overlap record: the last one held that record and nothing
   * older, with the total unchanged (an upstream that served a short page, or a history that ends
   * short of its total). It is placed without the overlap's identity check (the total, unchanged,
   * says nothing moved), and one holding no record ends the walk there.
   */
  skip: boolean
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
  // A walk from the top says afresh what it finds (a resumed one keeps what its start found).
  if (!Number.isFinite(w.next)) await noteFinding(job, null)
  try {
    return await walkPages(w)
  } finally {
    // Whatever ended the walk, the batch in flight is stored (or its error thrown) before it returns.
    try {
      await drain(w)
    } finally {
      // The page worker lets the walk go once every page asked for has come back (and been held there).
      void Promise.allSettled([w.pending, ...w.ahead.values()]).then(() => job.ctx.pages.end(w.id))
    }
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
    // A walk that stops keeps the rows it had gathered (they were aligned before the page that
    // stopped it): dropped, a history under one batch stored nothing however often it was tried.
    if (!step.ok) await flush(w)
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
    id: `${job.number}#${++walks}`,
    hold,
    next,
    totalKnown,
    totalAt: Number.NEGATIVE_INFINITY,
    check,
    // On resume, ordinal cp_next + 1 is asked for again as the overlap.
    pendingStart: resume ? Math.max(1, totalKnown - next + 1 - (check ? 1 : 0)) : 1,
    pending: Promise.resolve(stopped('fail', 'not started')),
    ahead: new Map(),
    aheadOn: true,
    buffer: [],
    held: 0,
    bufferKind: 'here',
    bufferPage: null,
    bufferCp: null,
    topStored: row.top_ordinal,
    stalls: 0,
    dry: 0,
    empties: 0,
    skip: false,
    inserted: 0,
    storing: null,
    storeRunning: false,
  }
}

/** The page at `start`, from those asked for ahead when there; asks for the next ones ahead. */
function pageAt(w: Walk, start: number): Promise<Result<WalkPage>> {
  const { job } = w
  const cap = job.ctx.pageCap
  const got = w.ahead.get(start)
  for (const [k, p] of [...w.ahead]) if (k < start) forgo(w, p)
  for (const k of [...w.ahead.keys()]) if (k <= start) w.ahead.delete(k)
  // Through the page worker once the walk knows the history is long enough (not for its first page).
  const via = w.totalKnown >= job.ctx.pageWorkerMin ? w.id : null
  const p = got ?? pageResult(job, start, start + cap - 1, via)
  if (!w.aheadOn || w.totalKnown <= 0) return p
  const stride = Math.max(1, cap - 1) // consecutive pages share one record (the overlap)
  for (let k = 1; k <= AHEAD; k++) {
    const s = start + k * stride
    // The page before it reaches position s: needed only while s is short of the total.
    if (s >= w.totalKnown || w.ahead.has(s)) continue
    w.ahead.set(s, pageResult(job, s, s + cap - 1, via))
  }
  return p
}

/** A page asked for and not wanted after all: the page worker lets it go once it has it. */
function forgo(w: Walk, p: Promise<Result<WalkPage>>): void {
  void p.then((r) => {
    if (r.ok && r.value.held !== null) w.job.ctx.pages.drop(w.id, r.value.held)
  })
}

/** One page in: true when the walk is complete. A page the page worker holds is taken from (advance) or let go. */
async function onPage(w: Walk, page: WalkPage): Promise<Result<boolean>> {
  const taken = { done: false }
  try {
    return await placePage(w, page, taken)
  } finally {
    if (!taken.done && page.held !== null) w.job.ctx.pages.drop(w.id, page.held)
  }
}

async function placePage(w: Walk, page: WalkPage, taken: { done: boolean }): Promise<Result<boolean>> {
  const { job } = w
  const start = w.pendingStart
  // A smaller total is a history that lost messages only when its request went out after the
  // larger total came back: pages asked for ahead are served in any order, and one served earlier
  // carries the total of its own moment (its records' ordinals, counted from it, still hold).
  if (page.total < w.totalKnown && page.sentAt > w.totalAt) return shrank(w.totalKnown, page.total)
  // Served before that larger total: its positions are of an older moment (it cannot align with
  // the checkpoint). Asked for again where the history stands now, the pages asked ahead kept.
  if (page.total < w.totalKnown && Number.isFinite(w.next)) {
    w.pendingStart = Math.max(1, w.totalKnown - w.next)
    w.pending = pageAt(w, w.pendingStart)
    return ok(false)
  }
  const order = checkOrder(page, start, job.ctx.pageCap)
  if (order) {
    // Nothing of a history in the wrong order is stored: the batch being gathered goes too.
    discardBuffer(w)
    return order
  }
  if (w.skip) {
    w.skip = false
    // Arrivals since moved every position: back to the overlap's identity check, from the new total.
    if (page.total !== w.totalKnown) {
      askAgain(w, page.total)
      return ok(false)
    }
    if (page.count === 0) {
      // Nothing past the overlap record: the history ends there, short of the total it reports.
      job.ctx.log(
        `index: ${job.number}: the messaging service reports ${page.total} messages but serves none past position ${page.total - w.next}: the walk ends there, ${w.next} short of its total`,
      )
      await noteFinding(
        job,
        `The messaging service reports ${page.total} messages but served none past position ${page.total - w.next}: ${w.next} of its count ${w.next === 1 ? 'is' : 'are'} not in the index (deleted upstream, or a history that starts at 0).`,
      )
      w.next = 0
      taken.done = true
      await advance(w, page, start)
      return ok(true)
    }
    taken.done = true
    await advance(w, page, start)
    return ok(w.next <= 0)
  }
  if (page.total === 0) {
    // An empty history is a complete one (a first page with no records beside a total above 0 is
    // an empty answer, asked again below: it was taken for a whole empty history).
    await drain(w)
    await storeBatch(job, page, [], { next: 0, total: page.total, check: null })
    return ok(true)
  }
  if (page.count === 0) {
    // One empty answer inside the history (`messages: null` from a busy upstream) is asked again,
    // with the back-off, before the walk gives up on it: it ended the walk at once.
    const where = `positions ${start}–${start + job.ctx.pageCap - 1} of ${page.total}`
    if (++w.empties <= EMPTY_RETRIES) {
      job.ctx.log(`index: ${job.number}: the messaging service returned no records for ${where}; asking again`)
      if (!(await sleep(job.ctx.backoffMs * 2 ** (w.empties - 1), job.signal))) return stopped('aborted', 'stopped')
      w.pending = pageAt(w, start)
      return ok(false)
    }
    return stopped('fail', `The messaging service returned no records for ${where}, ${EMPTY_RETRIES + 1} times.`)
  }
  w.empties = 0
  await maybeBulk(w, page)
  const aligned = align(w, page, start)
  if (aligned === 'stall') return stall(w, page)
  if (aligned !== 'ok') return aligned
  w.stalls = 0
  const dry = noneBelow(w, page, start)
  if (dry) return dry
  taken.done = true
  await advance(w, page, start)
  return ok(w.next <= 0)
}

/**
 * A page that holds nothing below the checkpoint while the total says there is more. With the
 * same total, the upstream served a short page (a size limit of its own), or the history ends
 * short of the total it reports (a total that counts messages it no longer serves): the next page
 * is asked for from the position past the overlap record (see Walk.skip). Asking for the same page
 * again ended the walk, complete, 104 messages short, at an upstream whose one page was short.
 * With a total that grew, arrivals pushed the page up: asked again from the new total.
 */
function noneBelow(w: Walk, page: WalkPage, start: number): Result<boolean> | null {
  if (!Number.isFinite(w.next)) return null
  const hi = page.total - start + 1
  if (hi - page.count < w.next) {
    w.dry = 0
    return null
  }
  w.dry += 1
  // The total grew: arrivals pushed the page up until only the overlap was left. Not the history's
  // end: asked again from the new total, one page at a time, as a stall is (and as bounded).
  if (page.total > w.totalKnown) {
    if (w.dry > MAX_DRY) return stopped('fail', 'The history grows faster than the index can page through it; try again later.')
    askAgain(w, page.total)
    return ok(false)
  }
  w.dry = 0
  w.skip = true
  // The position of ordinal `next`: the first record the checkpoint still waits for.
  w.pendingStart = page.total - w.next + 1
  w.pending = pageAt(w, w.pendingStart)
  return ok(false)
}

/**
 * Order by identity, not by dates (clocks are skewed, and a message may be dated before older
 * ones): the envelope names the newest message, so a page that carries it last came oldest to
 * newest. One that carries it a place or two down from the top only says the envelope lags the
 * records (a message came in between the two, or the id is stale): the walk aligns by identity
 * anyway, so that is not a reason to stop.
 */
function checkOrder(page: WalkPage, start: number, cap: number): Result<boolean> | null {
  if (page.newestId === null) return null
  const at = page.newestIndex
  // A full first page without the envelope's newest message: a history sent oldest first shows
  // its oldest there (found only at its last page, two batches of it were stored reversed by then).
  // Its first and last dates must say so too: an envelope naming a message since deleted, or
  // dating it in another format, leaves a newest-first page without it as well.
  const first = page.records?.[0]?.date
  const last = page.records?.[page.count - 1]?.date
  if (start === 1 && at < 0 && page.count >= Math.max(3, cap) && page.total > page.count && first && last && first < last)
    return stopped('fail', OLDEST_FIRST)
  // Two records cannot tell a history sent oldest first from an envelope one message behind.
  if (at < 0 || start + at === 1 || page.count < 3 || at !== page.count - 1) return null
  return stopped('fail', OLDEST_FIRST)
}

const OLDEST_FIRST =
  'The messaging service sent this history oldest first (its newest message came last, or not on the first page). The index assumes newest first, as documented, and stopped rather than build a wrong index.'

/** A large first walk into a small index loads without the secondary indexes, built at the end. */
async function maybeBulk(w: Walk, page: PageMeta): Promise<void> {
  const { ctx, number } = w.job
  // A staged walk (Job.stage) writes nothing until it is whole: its indexes stay as they are.
  if (Number.isFinite(w.next) || page.total < ctx.bulkMin || w.hold.bulk || w.job.stage) return
  const held = await ctx.db.query<{ n: number }>('SELECT COALESCE(sum(indexed), 0)::int AS n FROM index_numbers')
  if ((held.rows[0]?.n ?? 0) * 2 >= page.total) return
  // Counted before the drop: a walk of another number that ends meanwhile must not build them back.
  ctx.bulk.loads += 1
  if (!(await dropIndexes(ctx.db, ctx.desk))) {
    ctx.bulk.loads -= 1
    return
  }
  w.hold.bulk = true
  ctx.log(`index: ${number}: bulk load of ${page.total} messages (indexes built at the end)`)
}

/**
 * The overlap record (ordinal next + 1) must be in the page with the identity it had: 'stall'
 * when arrivals pushed it out. The record at index i of a page from position `start` has
 * ordinal total - (start + i) + 1.
 */
function align(w: Walk, page: WalkPage, start: number): 'ok' | 'stall' | { ok: false; stop: { kind: 'rewalk'; message: string } } {
  if (w.check === null || !Number.isFinite(w.next)) return 'ok'
  const at = page.total - start - w.next
  if (at < 0 || at >= page.count) return 'stall'
  if (page.identityAt(at) !== w.check) return { ok: false, stop: { kind: 'rewalk', message: `record ${w.next + 1} changed between pages` } }
  return 'ok'
}

/** More messages arrived between requests than the page could absorb: ask again, one page at a time. */
function stall(w: Walk, page: PageMeta): Result<boolean> {
  if (++w.stalls > MAX_STALLS) return stopped('fail', 'The history grows faster than the index can page through it; try again later.')
  askAgain(w, page.total)
  return ok(false)
}

/**
 * The newest total the walk has seen: a page served earlier (asked for ahead) does not take it
 * back down, so the next page is asked for where the history stands now.
 */
function noteTotal(w: Walk, page: WalkPage): void {
  if (page.total >= w.totalKnown) {
    w.totalKnown = page.total
    w.totalAt = Math.max(w.totalAt, page.receivedAt)
  }
}

/**
 * What the walk found that the index cannot follow, for the Index page (index_numbers.finding);
 * null clears it (a fresh walk starts with nothing to say). The log has the same line.
 */
async function noteFinding(job: Job, text: string | null): Promise<void> {
  const sql = 'UPDATE index_numbers SET finding = $2 WHERE number = $1 AND finding IS DISTINCT FROM $2'
  // A staged re-walk's facts go in with its rows, in its one transaction, or not at all.
  if (job.stage)
    job.stage.push(async (tx) => {
      await tx.query(sql, [job.number, text])
      return 0
    })
  else await job.ctx.db.query(sql, [job.number, text])
}

/** The batch being gathered, dropped (a history found in the wrong order stores nothing more). */
function discardBuffer(w: Walk): void {
  w.buffer = []
  w.held = 0
  w.bufferPage = null
  w.bufferCp = null
}

/** The page below the checkpoint asked for again at a total that grew, alone (the pages asked for ahead are let go). */
function askAgain(w: Walk, total: number): void {
  w.totalKnown = total
  w.totalAt = performance.now()
  w.aheadOn = false
  for (const p of w.ahead.values()) forgo(w, p)
  w.ahead.clear()
  w.pendingStart = Math.max(1, w.totalKnown - w.next)
  w.pending = pageAt(w, w.pendingStart)
}

/** Takes the page's rows below the checkpoint (and any new ones above the stored top), asks for the next page. */
async function advance(w: Walk, page: WalkPage, start: number): Promise<void> {
  const { job } = w
  const walking = Number.isFinite(w.next)
  // Index i holds ordinal hi - i (see align): ordinals fall through the page.
  const hi = page.total - start + 1
  // Records past the total the page reports (it says fewer than it serves) would have ordinals of 0 and below: never stored.
  const n = Math.min(page.count, Math.max(0, hi))
  if (n < page.count) {
    job.ctx.log(
      `index: ${job.number}: the messaging service reports ${page.total} messages but served ${page.count - n} more past position ${page.total}: they are left out`,
    )
    await noteFinding(
      job,
      `The messaging service reports ${page.total} messages but served ${page.count - n} more past that: the oldest ${page.count - n === 1 ? 'one is' : `${page.count - n} are`} not in the index (a total that lags).`,
    )
  }
  const clamp = (i: number) => Math.min(n, Math.max(0, i))
  // Below the checkpoint: ordinals up to next. Above the walk's band (arrived during it) and the stored top: correct too, and free to store.
  const keep: [number, number] = walking ? [clamp(hi - w.next), n] : [0, n]
  const above: [number, number] = walking ? [0, clamp(hi - Math.max(w.next + 1, w.topStored))] : [0, 0]
  const next = Math.min(walking ? w.next : hi, hi - n)
  // (An empty page ends a walk past its overlap record, see Walk.skip: nothing to check then.)
  const check = n > 0 ? page.identityAt(n - 1) : null
  noteTotal(w, page)
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
  const ranges = [above, keep].filter(([a, b]) => b > a)
  const kind = page.held === null ? 'here' : 'worker'
  // A batch is made in one place: one gathered the other way is stored first.
  if (kind !== w.bufferKind && w.bufferPage) await flush(w)
  w.bufferKind = kind
  if (page.held !== null) {
    job.ctx.pages.take(w.id, page.held, ranges)
    for (const [a, b] of ranges) w.held += b - a
  } else for (const [a, b] of ranges) for (let i = a; i < b; i++) w.buffer.push({ ordinal: hi - i, r: page.records![i]! })
  w.topStored = Math.max(w.topStored, hi)
  w.bufferPage = page
  w.bufferCp = { next, total: w.totalKnown, check }
  if (w.buffer.length + w.held >= job.ctx.storeRows || next <= 0) await flush(w)
  w.next = next
  w.check = check
}

/**
 * The batch goes in with the checkpoint of its last page. It is prepared while the previous
 * batch is still being stored (here, or in the page worker), and its own store starts once that
 * one has ended; the walk goes on without waiting for it (drain does).
 */
async function flush(w: Walk): Promise<void> {
  if (!w.bufferPage) return
  const { job } = w
  const [meta, cp] = [w.bufferPage, w.bufferCp]
  w.bufferPage = null
  const overlapped = w.storeRunning
  const prepStart = performance.now()
  let store: () => Promise<number>
  if (w.bufferKind === 'worker') {
    const rows = w.held
    w.held = 0
    const payload = await job.ctx.pages.build(w.id, batchOf(job), rows)
    store = () => storePayload(job, payload, meta, cp)
  } else {
    const rows = w.buffer
    w.buffer = []
    const prepared = await prepareBatch(batchOf(job), meta, rows, cp, true)
    store = () => storePrepared(job, prepared)
  }
  job.ctx.stats.prepareMs += performance.now() - prepStart
  if (overlapped) job.ctx.stats.overlappedBatches += 1
  await drain(w)
  const storeStart = performance.now()
  w.storeRunning = true
  const storing = store()
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
