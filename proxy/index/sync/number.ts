import { catchUp } from './catch-up.ts'
import { fetchPage } from './fetch.ts'
import { listAccount } from './account.ts'
import { discoverLines, lineTids } from './lines.ts'
import { ensureIndexes } from './indexes.ts'
import { acquire, heartbeat, LeaseLost, release } from './leases.ts'
import { sleep } from '../../kernel/pace.ts'
import { commitStaged, loadNumber, wipe } from './store.ts'
import { RESUMES, ok, stopped, type Job, type NumberRow, type Result, type Stop, type SyncContext } from './types.ts'
import { fullWalk, type BulkHold } from './walk.ts'

/** Walks of the whole history again after the stored one stopped matching, before giving up. */
const MAX_REWALKS = 2
/** Totals that fell and came back (totalHolds) a sync goes on through before giving up. */
const MAX_FLAPS = 10
/** A sync that stored more than this vacuums and refreshes the planner's statistics (PGlite has no autovacuum). */
const VACUUM_AFTER = 10_000

/** What became of one number's sync request. */
export type Outcome = 'done' | 'held' | 'missing' | Stop['kind']

/** Syncs one number under its lease: full walk (or its resumption) then catch-up. */
export async function syncNumber(ctx: SyncContext, number: string, signal: AbortSignal): Promise<Outcome> {
  if (!(await acquire(ctx, number))) {
    if (!(await loadNumber(ctx.db, number))) return 'missing'
    ctx.log(`index: ${number}: another server (or sync) holds this number; skipped`)
    return 'held'
  }
  // Read under the lease, not before it: a server taking the number over could otherwise miss
  // the checkpoint its last holder stored meanwhile, and resume above it (a COPY of rows already
  // there fails the batch on the key (number, ordinal)).
  const row = await loadNumber(ctx.db, number)
  if (!row) return 'missing'
  ctx.progress.since ??= Date.now()
  // The sync stops on the caller's signal, or when this server lost its lease to another.
  const controller = new AbortController()
  const onAbort = () => controller.abort(signal.reason)
  signal.addEventListener('abort', onAbort, { once: true })
  let lost = false
  const stopBeat = heartbeat(ctx, number, () => {
    lost = true
    controller.abort(RESUMES)
  })
  const started = Date.now()
  try {
    const result = await withTids(ctx, row, controller.signal)
    if (lost) return 'aborted'
    // Statistics first (PGlite has no autovacuum): the desk's recompute plans over them too.
    if (result.ok && result.value > VACUUM_AFTER) await vacuum(ctx)
    if (ctx.desk && !controller.signal.aborted) await settleDesk(ctx, number)
    return await finish(ctx, number, result, started)
  } catch (err) {
    // Any other failure (a statement refused, the disk full) ends the sync here: the number shows
    // the error and its lease goes at once, rather than staying "syncing" until the lease expires
    // and the sweep starts it again, and again.
    // The row says what happened in general terms (a database's words can quote the values it
    // refused); the server's log, where the queue writes the error, has them.
    if (!(err instanceof LeaseLost)) {
      const stopping = controller.signal.aborted && !lost
      await release(ctx, number, stopping ? 'queued' : 'error', stopping ? null : storeFailure(err), false).catch(() => {})
      throw err
    }
    // A fenced write found the lease gone before the heartbeat did: stopped the same way.
    controller.abort(RESUMES)
    ctx.log(`index: ${number}: another server took this number over; stopped`)
    return 'aborted'
  } finally {
    stopBeat()
    signal.removeEventListener('abort', onAbort)
  }
}

/**
 * The sync under the number's tid, then under the other tids the account listed for it if
 * refused, then, refused under all of them, under any tid the account lists it with now (a number
 * moved to a new tid: the index knew only the old one, and paused it as "no such number"). The
 * tids its further lines hold (lines.ts) are theirs. Once it worked, the other tids are asked
 * whether they serve a history of their own. A further line syncs under its own tid only.
 */
async function withTids(ctx: SyncContext, row: NumberRow, signal: AbortSignal): Promise<Result<number>> {
  if (row.line_of !== null) return lineSync(ctx, row, row.line_of, signal)
  const lines = await lineTids(ctx, row.number)
  const known = [row.tid, ...row.other_tids.filter((t) => t !== row.tid)].filter((t) => !lines.has(t))
  let result = await underTids(ctx, row, signal, known, known)
  if (result.ok || (result.stop.kind !== 'gone' && result.stop.kind !== 'pause') || signal.aborted) return result
  let listed: string[] | null = null
  try {
    listed = (await listAccount(ctx)).get(row.number) ?? []
  } catch (err) {
    ctx.log(`index: ${row.number}: could not list the account for its current tid: ${err instanceof Error ? err.message : String(err)}`)
  }
  // Listed nowhere now: the number left the account, whatever words the refusal used.
  if (listed !== null && listed.length === 0 && result.stop.kind !== 'gone')
    return stopped(
      'gone',
      `Paused: This account has no such number now (its listing no longer has it). ${result.stop.message.replace(/^Paused: /, '')}`,
    )
  const fresh = (listed ?? []).filter((t) => !known.includes(t))
  if (fresh.length > 0) {
    ctx.log(`index: ${row.number}: the account now lists it under tid ${fresh.join(', ')}`)
    result = await underTids(ctx, row, signal, fresh, [...fresh, ...known.filter((t) => listed!.includes(t))])
  }
  // "No such number" judged from a listing read before the number was added (the forwarder
  // trusts one for 30 s), while the listing read just now has it: a refusal to say so, and a
  // pause, never "removed from the account" (a number added a moment ago was marked removed for good).
  if (!result.ok && result.stop.kind === 'gone' && listed !== null && listed.length > 0) {
    const said = /The service said: (.*)$/.exec(result.stop.message)?.[1]
    return stopped(
      'pause',
      `Paused: The account lists this number, but the messaging service refused its history${said ? `: ${said}` : '.'} Sync it again once that is mended.`,
    )
  }
  return result
}

/**
 * A further line's sync: under its own tid, asking its number. Refused, it is gone when the
 * account no longer lists the number under that tid, and paused otherwise.
 */
async function lineSync(ctx: SyncContext, row: NumberRow, number: string, signal: AbortSignal): Promise<Result<number>> {
  const result = await walkAndCatchUp({ ctx, number: row.number, upstream: number, tid: row.tid, signal }, row)
  if (result.ok || (result.stop.kind !== 'gone' && result.stop.kind !== 'pause') || signal.aborted) return result
  let listed: string[] | null = null
  try {
    listed = (await listAccount(ctx)).get(number) ?? []
  } catch (err) {
    ctx.log(`index: ${row.number}: could not list the account: ${err instanceof Error ? err.message : String(err)}`)
  }
  if (listed !== null && !listed.includes(row.tid))
    return stopped(
      'gone',
      `Paused: The account no longer lists ${number} under tid ${row.tid}, this line's. ${result.stop.message.replace(/^Paused: /, '')}`,
    )
  return stopped(
    'pause',
    `Paused: The account lists ${number} under tid ${row.tid}, but the messaging service refused this line's history. ${result.stop.message.replace(/^Paused: /, '')}`,
  )
}

/** Tries `tids` in turn; the one that works becomes the number's own, `all` (less it) its others. */
async function underTids(ctx: SyncContext, row: NumberRow, signal: AbortSignal, tids: string[], all: string[]): Promise<Result<number>> {
  let result: Result<number> = stopped('fail', 'The number has no tid.')
  for (const tid of tids) {
    result = await walkAndCatchUp({ ctx, number: row.number, upstream: row.number, tid, signal }, row)
    if (result.ok) {
      await discoverLines(ctx, { ...row, other_tids: all }, tid, signal)
      // The tid that worked becomes the number's own; the others stay listed beside it.
      if (tid !== row.tid) {
        const r = await ctx.db.query(
          'UPDATE index_numbers SET tid = $2, other_tids = $3 WHERE number = $1 AND locked_by = $4 RETURNING number',
          [row.number, tid, all.filter((t) => t !== tid), ctx.owner],
        )
        if (r.rows.length === 0) throw new LeaseLost(row.number)
      }
      break
    }
    if (result.stop.kind !== 'gone' && result.stop.kind !== 'pause') break
    ctx.log(`index: ${row.number}: refused under tid ${tid}`)
  }
  return result
}

/** Full walk when the history is not complete yet, then catch-up; a re-walk from scratch when it stopped matching. */
async function walkAndCatchUp(job: Job, first: NumberRow): Promise<Result<number>> {
  const hold: BulkHold = { bulk: false }
  let row = first
  let inserted = 0
  let flaps = 0
  try {
    for (let rewalks = 0; ; rewalks++) {
      const step = await walkOnce(job, row, hold)
      if (step.ok) return ok(inserted + step.value)
      if (step.stop.kind !== 'rewalk') return step
      if (rewalks >= MAX_REWALKS)
        return stopped('fail', `The upstream's history kept changing under the index (${step.stop.message}); try again later.`)
      if (step.stop.shrankFrom !== undefined) {
        // A total that fell (to 0, say: an empty answer) is asked again before anything stored is wiped.
        const held = await totalHolds(job, step.stop.shrankFrom)
        if (!held.ok) return held
        if (held.value) {
          job.ctx.log(`index: ${job.number}: ${step.stop.message}, then back: kept what is stored and going on`)
          // Not a walk again: a total that dipped and came back does not use one up (three such
          // dips ended a busy number's walk as "kept changing"), up to MAX_FLAPS of them.
          if (++flaps > MAX_FLAPS)
            return stopped('fail', `The upstream's total kept falling and coming back (${step.stop.message}); try again later.`)
          rewalks -= 1
          row = (await loadNumber(job.ctx.db, job.number)) ?? row
          continue
        }
      }
      job.ctx.log(`index: ${job.number}: ${step.stop.message}; walking the history again`)
      row = (await loadNumber(job.ctx.db, job.number)) ?? row
      const staged = await stagedWalk(job, row)
      if (staged === null) {
        // Too long to hold in memory: wiped first, and walked batch by batch (what a failed walk
        // stored so far stays, reported incomplete, until the next sync walks it again).
        await wipe(job)
        inserted = 0
      } else if (!staged.ok) {
        if (staged.stop.kind !== 'rewalk') return staged
        job.ctx.log(`index: ${job.number}: ${staged.stop.message} during the walk; what is stored is kept`)
      } else inserted = staged.value
      row = (await loadNumber(job.ctx.db, job.number)) ?? row
    }
  } finally {
    // A bulk load that stopped short puts the indexes back, one a person stopped too (forget:
    // nothing resumes it), unless its walk goes on (RESUMES: the server is closing, and its next
    // start resumes the walk, or another server took the number over), which builds them at its end.
    if (hold.bulk) {
      job.ctx.bulk.loads -= 1
      if (job.ctx.bulk.loads === 0 && job.signal.reason !== RESUMES) await ensureIndexes(job.ctx.db, job.ctx.log, noBulkLoad(job))
    }
  }
}

/** The longest history walked again beside what is stored (held in memory until it is whole). */
export const STAGED_MAX = 20_000

/**
 * A re-walk of a history of at most STAGED_MAX messages (and below a bulk load's size), staged:
 * its batches are kept, and go in once the walk is whole, in one transaction with the wipe of
 * the stored rows. A walk that fails part-way writes nothing, so the number keeps every message
 * it had (the wipe first, then the walk, left 19 of 200 when the walk failed). Null for a longer
 * history, which is wiped and walked batch by batch.
 */
async function stagedWalk(job: Job, row: NumberRow): Promise<Result<number> | null> {
  const total = row.upstream_total ?? Number.POSITIVE_INFINITY
  if (!(total <= STAGED_MAX && total < job.ctx.bulkMin)) return null
  const stage: NonNullable<Job['stage']> = []
  const fresh: NumberRow = { ...row, top_ordinal: 0, indexed: 0, full_done: false, cp_next: null, cp_total: null, cp_check: null }
  const walked = await fullWalk({ ...job, stage }, fresh, { bulk: false })
  if (!walked.ok) return walked
  return ok(await commitStaged(job, stage))
}

/** Looks for a fall of the upstream's total to undo itself: this many asks, the back-off doubling between them. */
const SHRINK_CHECKS = 4

/**
 * Whether the upstream's total is back to at least `from` within SHRINK_CHECKS asks (true), or
 * stayed below it every time (false: the history did lose messages, and is walked again).
 */
async function totalHolds(job: Job, from: number): Promise<Result<boolean>> {
  for (let k = 0; k < SHRINK_CHECKS; k++) {
    await sleep(job.ctx.backoffMs * 2 ** k, job.signal)
    if (job.signal.aborted) return stopped('aborted', 'stopped')
    const probe = await fetchPage(job, 1, 1)
    if (!probe.ok) return probe
    if (probe.value.total >= from) return ok(true)
  }
  return ok(false)
}

/** Whether another number's first walk is under way (on this server or another sharing the database). */
async function walkingElsewhere(job: Job): Promise<boolean> {
  const r = await job.ctx.db.query(`SELECT 1 FROM index_numbers WHERE state = 'syncing' AND NOT full_done AND number <> $1 LIMIT 1`, [
    job.number,
  ])
  return r.rows.length > 0
}

/** Whether no bulk load of this server runs (one that started after the check drops the indexes and builds them at its end). */
const noBulkLoad = (job: Job) => () => job.ctx.bulk.loads === 0

async function walkOnce(job: Job, row: NumberRow, hold: BulkHold): Promise<Result<number>> {
  let inserted = 0
  let current = row
  if (!row.full_done) {
    const walked = await fullWalk(job, row, hold)
    if (!walked.ok) return walked
    inserted += walked.value
    current = (await loadNumber(job.ctx.db, job.number)) ?? row
    // Every walk that completes (a resumed one too) ends with the schema's indexes, unless another
    // bulk load of this server still runs (the last one to end builds them).
    if (hold.bulk) {
      hold.bulk = false
      job.ctx.bulk.loads -= 1
    }
    if (job.ctx.bulk.loads === 0) await ensureIndexes(job.ctx.db, job.ctx.log, noBulkLoad(job))
  } else if (job.ctx.bulk.loads === 0 && !(await walkingElsewhere(job))) {
    // A walk that ended as its server died (killed after the last batch's commit, before the
    // indexes were built) is complete with the indexes still dropped: built now, by whoever syncs
    // the number next. When they are all there this is one look at the catalog. Not while any
    // number is mid-walk (another server's bulk load may have dropped them, and builds them at its end).
    await ensureIndexes(job.ctx.db, job.ctx.log, noBulkLoad(job))
  }
  const caught = await catchUp(job, current)
  return caught.ok ? ok(inserted + caught.value) : caught
}

/** What the Index page shows for a sync stopped by an unexpected error: its SQLSTATE when the database gave one. */
function storeFailure(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code
  // disk_full, from either engine (the PGlite worker gives it to ENOSPC and EDQUOT): said as such, for it mends itself.
  if (code === '53100')
    return "The index could not store this number's messages: no space left on the disk that holds the database (DATA_DIR, or the PostgreSQL server's data directory). The sync tries again later; sync the number again once space is freed."
  const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? ` (SQLSTATE ${code})` : ''
  return `The index could not store this number's messages: the database refused a statement${sqlState}. The server's log says why; sync the number again once that is mended.`
}

/**
 * After a sync that worked: a "removed" mark a refusal left goes (the upstream served the
 * history). One the account listing left (`listed` false) goes only when the listing names the
 * number now (the forwarder's, trusted for 30 s): an upstream may serve a number its listing
 * lacks, and the mark flipped with each listing and each sync.
 */
async function clearRemoval(ctx: SyncContext, number: string): Promise<void> {
  const r = await ctx.db.query<{ by: string | null }>(
    'SELECT removed_by AS by FROM index_numbers WHERE number = $1 AND removed_at IS NOT NULL',
    [number],
  )
  const row = r.rows[0]
  if (!row) return
  // A refusal's mark (removed_by 'refusal', or one from before migration 490) goes with the sync
  // that worked. The listing's goes only when the listing names the number now.
  if (row.by === 'listing')
    try {
      if (!(await listAccount(ctx)).has(number)) return
    } catch {
      // No listing now: the listing's mark stays until one names the number.
      return
    }
  // `listed` stays as it is: it says what the account's last recorded listing held (the Index page's "account listed").
  await ctx.db.query('UPDATE index_numbers SET removed_at = NULL, removed_by = NULL WHERE number = $1', [number])
}

/** Records the outcome and lets go of the lease. */
async function finish(ctx: SyncContext, number: string, result: Result<number>, started: number): Promise<Outcome> {
  if (result.ok) {
    await release(ctx, number, 'idle', null, true)
    await clearRemoval(ctx, number)
    ctx.log(`index: ${number}: synced, ${result.value} new messages in ${Date.now() - started} ms`)
    return 'done'
  }
  const { kind, message } = result.stop
  // Stopped (shutdown or forget): the checkpoint stays; the next start resumes it.
  if (kind === 'aborted') await release(ctx, number, 'queued', null, false)
  else {
    ctx.log(`index: ${number}: ${message}`)
    const released = await release(ctx, number, kind === 'pause' || kind === 'gone' ? 'paused' : 'error', message, false)
    // Only what this server found while it held the number: a taker's sync says for itself.
    if (kind === 'gone' && released)
      await ctx.db.query(
        `UPDATE index_numbers SET removed_at = COALESCE(removed_at, now()), removed_by = COALESCE(removed_by, 'refusal') WHERE number = $1`,
        [number],
      )
  }
  return kind
}

/**
 * The threads this sync's batches touched get their state recomputed once, now, rather than
 * after every batch (a thread's state reads all of it). A failure leaves them marked: the next
 * desk read or start recomputes them, and the sync's own outcome stands.
 */
async function settleDesk(ctx: SyncContext, number: string): Promise<void> {
  const started = performance.now()
  await ctx.hooks
    .numberSynced(ctx.db, number)
    .catch((err: unknown) =>
      ctx.log(`desk: ${number}: could not recompute the threads this sync touched: ${err instanceof Error ? err.message : String(err)}`),
    )
  ctx.stats.deskMs += performance.now() - started
}

async function vacuum(ctx: SyncContext): Promise<void> {
  const vacuumStart = performance.now()
  // On PostgreSQL too, though its autovacuum would get to it: ANALYZE alone saved 0.4 s of the
  // million's sync, but until a vacuum sets the visibility map the desk's index-only reads visit
  // the table (its recompute's read of the opt-out messages took 161 ms against 21).
  await ctx.db.query('VACUUM (ANALYZE) index_messages').catch((e: unknown) => ctx.log(`index: vacuum failed: ${String(e)}`))
  ctx.stats.vacuumMs += performance.now() - vacuumStart
}
