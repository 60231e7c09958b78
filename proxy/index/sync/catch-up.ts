import { identity, type Page, type PageRecord } from '../parse.ts'
import { fetchPage } from './fetch.ts'
import { sleep } from '../../kernel/pace.ts'
import type { Placed } from './prepare.ts'
import { storeBatch, storedIdentities } from './store.ts'
import { ok, shrank, stopped, type Job, type NumberRow, type Result } from './types.ts'

/**
 * Catch-up: the messages newer than the stored top, aligned on identity. The stored newest
 * message (with the two below it) is looked for in a window around where the last total says it
 * is; the records above it in the window are the next ones, whatever arrived meanwhile. When
 * arrivals pushed it out of the window, the overlap below it doubles until it is found again,
 * and stays as wide as the arrival rate needs; the catch-up ends with the window at position 1.
 */

/** The identity of a record that carries neither a system id nor a message id. */
const NO_IDENTITY = identity({ systemId: null, messageId: null })

/** Looks from the top again when the index holds more than the upstream's total, before walking again. */
const OVER_CHECKS = 3
/** Records asked for below the stored top at first, to find it again. */
export const OVERLAP = 3
/** Requests at the widest overlap without finding the stored top before walking the history again. */
const MAX_MISSES = 8
/** Requests a catch-up may make before it gives up (each one stores at least one record or widens). */
const MAX_REQUESTS = 100_000

interface Catch {
  job: Job
  top: number
  /** Identities of the stored top and the records just below it, newest first. */
  tail: string[]
  known: number
  overlap: number
  misses: number
  inserted: number
  /** Looking again from the top after finding more stored than the upstream counts (see OVER_CHECKS). */
  rechecking: boolean
}

/** Returns the rows inserted, or why it stopped (a re-walk when the stored history no longer matches). */
export async function catchUp(job: Job, row: NumberRow): Promise<Result<number>> {
  const probe = await fetchPage(job, 1, 1)
  if (!probe.ok) return probe
  const p = probe.value
  const c: Catch = {
    job,
    top: row.top_ordinal,
    tail: await tailOf(job, row.top_ordinal),
    known: p.total,
    overlap: OVERLAP,
    misses: 0,
    inserted: 0,
    rechecking: false,
  }
  if (p.total < c.top) return shrank(c.top, p.total)
  // Nothing new: the newest record is the stored one. The envelope (total, newest) is recorded
  // either way, so a catch-up that stops short leaves the number visibly incomplete.
  await storeBatch(job, p, [], null)
  if (c.top === p.total && (c.top === 0 || (p.records[0] && identity(p.records[0]) === c.tail[0]))) return ok(0)
  let over = 0
  for (let n = 0; n < MAX_REQUESTS; n++) {
    const step = await oneWindow(c)
    if (!step.ok) return step
    if (!step.value) continue
    // At the top now: the last answer's total is the history's. Holding more than it counts, the
    // index keeps messages the upstream no longer has (the oldest purged while new ones came:
    // the new ones passed for arrivals, and every position was off). A total that only lags its
    // records says so once; looked at again from the top, with the back-off, a few times, a purge
    // says so every time, and the history is walked again. (Asked whether the total came back to
    // what is stored, arrivals made up for the purge: "then back", over and over.)
    if (c.top <= c.known) return ok(c.inserted)
    if (++over > OVER_CHECKS)
      return stopped('rewalk', `the upstream counts ${c.top - c.known} fewer messages than the index holds: some were removed upstream`)
    job.ctx.log(`index: ${job.number}: holds ${c.top} messages, the upstream counts ${c.known}; looking again from the top`)
    if (!(await sleep(job.ctx.backoffMs * 2 ** (over - 1), job.signal))) return stopped('aborted', 'stopped')
    c.known = c.top
    c.rechecking = true
  }
  return stopped('fail', 'The history grows faster than the index can page through it; try again later.')
}

async function tailOf(job: Job, top: number): Promise<string[]> {
  if (top <= 0) return []
  const ords = [top, top - 1, top - 2].filter((o) => o > 0)
  const got = await storedIdentities(job.ctx.db, job.number, ords)
  return ords.map((o) => got.get(o) ?? '')
}

/** One request around the stored top: true once the window reached position 1. */
async function oneWindow(c: Catch): Promise<Result<boolean>> {
  const { job } = c
  const cap = Math.max(2, job.ctx.pageCap)
  const expected = c.known - c.top + 1 // where the last total puts the stored top
  const end = expected + c.overlap
  const start = Math.max(1, end - cap + 1)
  const got = await fetchPage(job, start, end)
  if (!got.ok) return got
  const page = got.value
  if (page.total < c.top) {
    // Looking again at a history that holds fewer than the index: the same finding, counted by
    // the caller (OVER_CHECKS), not a fall of the total to wait out.
    if (c.rechecking) {
      c.known = page.total
      return ok(true)
    }
    return shrank(c.top, page.total)
  }
  c.known = page.total
  const j = anchorIndex(c, page, start, expected - start)
  if (j === null) return widen(c, cap)
  // Found above where the total puts it: the total grew by more than the records above it, so
  // messages were added below it (a late delivery). The stored positions no longer hold.
  if (j < expected - start) return stopped('rewalk', 'messages were added below the newest stored one')
  // Found at the window's top although the total says newer ones exist: messages went missing.
  if (j === 0 && start > 1) return stopped('rewalk', 'the history lost messages above the newest stored one')
  const above = await notStored(c, page.records.slice(0, j))
  const k = above.length
  const placed: Placed[] = above.map((r, i) => ({ ordinal: c.top + k - i, r }))
  c.inserted += await storeBatch(job, page, placed, null)
  // Keep the overlap as wide as the shift just seen (the arrival rate), with a margin.
  const shift = start + j - expected
  c.overlap = Math.min(cap - 2, Math.max(OVERLAP, shift + Math.max(OVERLAP, Math.ceil(shift / 4))))
  c.misses = 0
  c.top += k
  c.tail = [...above.slice(0, Math.min(3, k)).map(identity), ...c.tail].slice(0, 3)
  return ok(start === 1)
}

/**
 * The records above the stored top less those stored just below it: messages with equal dates
 * come back in another order from one request to the next where the upstream sorts by date alone
 * (ORDER BY date LIMIT), and a stored one above the anchor was stored a second time.
 */
async function notStored(c: Catch, above: PageRecord[]): Promise<PageRecord[]> {
  if (above.length === 0 || c.top === 0) return above

  const ords: number[] = []
  for (let o = c.top; o > 0 && o > c.top - above.length - OVERLAP; o--) ords.push(o)
  const near = new Set((await storedIdentities(c.job.ctx.db, c.job.number, ords)).values())
  // A record with neither id has no identity to compare ("|" each): its place says it is new
  // (filtered by it, it matched any stored record without ids, and a catch-up stored none of them).
  const fresh = above.filter((r) => identity(r) === NO_IDENTITY || !near.has(identity(r)))
  if (fresh.length < above.length)
    c.job.ctx.log(
      `index: ${c.job.number}: ${above.length - fresh.length} stored messages came back above the newest stored one (equal dates in another order); not stored again`,
    )
  return fresh
}

/** The stored top is not in the window: arrivals pushed it below, or the history changed. */
function widen(c: Catch, cap: number): Result<boolean> {
  if (c.overlap >= cap - 2 && ++c.misses > MAX_MISSES)
    return stopped('rewalk', 'the newest stored message was not found near its place in the history')
  c.overlap = Math.min(cap - 2, Math.max(1, c.overlap * 2))
  return ok(false)
}

/**
 * Index in the page of the stored top (the number of records above it in the window), or null.
 * With nothing stored, the anchor is the end of the history. Several candidates (identities may
 * repeat): the first at or after where the total expects it, as arrivals only push it down.
 */
function anchorIndex(c: Catch, page: Page, start: number, expectedIndex: number): number | null {
  const recs = page.records
  if (c.top === 0) return start + recs.length - 1 === page.total ? recs.length : null
  // The whole tail must be in the window, unless the window reaches the history's end: one record
  // matched at the window's last place (the rest cut off) placed records twice.
  const atEnd = start + recs.length - 1 >= page.total
  let fallback: number | null = null
  for (let j = 0; j < recs.length; j++) {
    if (!matchesTail(recs, j, c.tail, atEnd)) continue
    if (j >= expectedIndex) return j
    fallback ??= j
  }
  return fallback
}

function matchesTail(recs: PageRecord[], j: number, tail: string[], atEnd: boolean): boolean {
  if (j + tail.length > recs.length && !atEnd) return false
  for (let k = 0; k < tail.length && j + k < recs.length; k++) if (identity(recs[j + k]!) !== tail[k]) return false
  return true
}
