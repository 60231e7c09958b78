import { ProxyError } from '../errors.ts'
import type { Forwarder } from '../forward.ts'
import type { Db, Queryable } from '../db/types.ts'
import { identity, PageError, parsePage, type Page, type PageRecord } from './parse.ts'

/**
 * Keeps the index in step with the upstream, one number at a time per server and per database.
 *
 * Ordinals: the upstream pages by position (1 = newest) and every page carries the total at the
 * moment it was served, so a record's ordinal counted from the oldest is `pageTotal - position
 * + 1`, whatever arrived between pages. Messages arriving during a walk only shift later pages
 * towards newer ordinals; the walk continues below the lowest ordinal it has, and the overlap
 * record (the previous page's last one, asked for again) proves the alignment. The band of
 * messages that arrived during the walk is fetched at the end like an incremental sync.
 *
 * The walk checkpoints (lowest ordinal stored, total last seen, identity of the overlap record)
 * in the same transaction as each page's rows, so a crash loses at most one page of work.
 */

export interface SyncOptions {
  db: Db
  forwarder: Forwarder
  pageCap: number
  concurrency: number
  /** Upstream requests per second, 0 = unlimited. */
  rate: number
  log?: (line: string) => void
  /** Retries of one request on 5xx/transport errors before the sync stops with an error. */
  maxRetries?: number
  /** Base back-off (ms); doubles per retry. */
  backoffMs?: number
}

/** Records asked for again below the stored top in an incremental sync, to prove alignment. */
export const OVERLAP = 3
/** A first walk at least this long into an index less than half its size loads in bulk. */
const BULK_MIN = 100_000
/** Rows stored per transaction in a full walk (PGlite's COPY costs ~7 ms a call over its rows). */
const STORE_ROWS = 5000
/** Pages asked for ahead in a full walk. */
const AHEAD = 4
/** Consecutive pages that make no progress (the history grows by a page between requests). */
const MAX_STALLS = 20
const MAX_REWALKS = 2

class Pause extends Error {}
class Fail extends Error {}
class Rewalk extends Error {}
class Aborted extends Error {}

/** Requests spaced 1/rate apart across every sync of this server. */
function createLimiter(rate: number) {
  let next = 0
  return async (signal: AbortSignal) => {
    if (rate <= 0) return
    const now = Date.now()
    const at = Math.max(now, next)
    next = at + 1000 / rate
    if (at > now) await sleep(at - now, signal)
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Aborted())
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(t)
      reject(new Aborted())
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** Two-key advisory lock: a constant class for "index sync" and the number's hash. */
const LOCK_CLASS = 734_921

/** PGlite has one session, so its advisory locks are re-entrant: an in-process set guards it too. */
const localLocks = new WeakMap<Db, Set<string>>()

interface NumberRow {
  number: string
  tid: string
  top_ordinal: number
  indexed: number
  full_done: boolean
  cp_next: number | null
  cp_total: number | null
  cp_check: string | null
  newest_msg_id: string | null
  upstream_total: number | null
}

export interface SyncRequest {
  number: string
  tid?: string
}

/** Where a sync's time goes (bench): waiting for pages (fetch + parse), storing them, vacuuming. */
export interface SyncStats {
  requests: number
  waitMs: number
  storeMs: number
  vacuumMs: number
}

export interface Syncer {
  /** Queues a sync of one number (full, resumed or incremental as its state says). */
  request: (req: SyncRequest) => Promise<void>
  /** Lists the account's numbers and queues them all. */
  syncAll: () => Promise<number>
  /** Queues the numbers whose sync was queued or running when the server last stopped. */
  resumePending: () => Promise<void>
  /** Stops the sync of one number (or all) and waits for it to let go. */
  stop: (number?: string) => Promise<void>
  /** Resolves when nothing is queued or running (tests, bench). */
  idle: () => Promise<void>
  isBusy: (number: string) => boolean
  /** Upstream requests made by this syncer (bench, tests). */
  stats: SyncStats
  close: () => Promise<void>
}

const NUMBER_RE = /^\d{6,15}$/

export function createSyncer(opts: SyncOptions): Syncer {
  const { db, forwarder, pageCap } = opts
  const log = opts.log ?? (() => {})
  const maxRetries = opts.maxRetries ?? 5
  const backoffMs = opts.backoffMs ?? 500
  const limit = createLimiter(opts.rate)
  const queue: string[] = []
  const queued = new Set<string>()
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>()
  const stats: SyncStats = { requests: 0, waitMs: 0, storeMs: 0, vacuumMs: 0 }
  let closed = false
  /** Bulk loads running in this server: the indexes are rebuilt when the last one ends. */
  let bulkLoads = 0
  let idleWaiters: Array<() => void> = []
  if (!localLocks.has(db)) localLocks.set(db, new Set())
  const locks = localLocks.get(db)!

  const checkIdle = () => {
    if (queue.length === 0 && running.size === 0) {
      const w = idleWaiters
      idleWaiters = []
      for (const f of w) f()
    }
  }

  async function setState(number: string, state: string, error: string | null, extra = '') {
    await db.query(`UPDATE index_numbers SET state = $2, error = $3 ${extra} WHERE number = $1`, [number, state, error])
  }

  async function fetchPage(number: string, tid: string, start: number, end: number, signal: AbortSignal): Promise<Page> {
    for (let attempt = 0; ; attempt++) {
      await limit(signal)
      if (signal.aborted) throw new Aborted()
      stats.requests += 1
      try {
        const res = await forwarder.forward(
          'smshistory',
          [
            ['number', number],
            ['tid', tid],
            ['history_start', String(start)],
            ['history_end', String(end)],
          ],
          signal,
        )
        return parsePage(res.body)
      } catch (err) {
        if (signal.aborted) throw new Aborted()
        let message: string
        let wait: number | undefined
        if (err instanceof ProxyError) {
          const kind = err.body.kind
          // A refusal will not pass by retrying: pause the number and say why.
          if (kind === 'unauthorized') throw new Pause(`Paused: ${err.body.message} Check API_SYS_ID and API_AUTH_TOKEN, then sync again.`)
          if (kind === 'upstream_rejected') throw new Pause(`Paused: ${err.body.message}`)
          message = err.body.message
          wait = err.body.retryAfterMs
        } else if (err instanceof PageError) {
          message = err.message
        } else {
          message = err instanceof Error ? err.message : String(err)
        }
        if (attempt >= maxRetries) throw new Fail(`Stopped after ${attempt + 1} attempts: ${message}`)
        const delay = Math.min(wait ?? backoffMs * 2 ** attempt, 60_000)
        log(`index: ${number}: ${message} — retrying in ${delay} ms`)
        await sleep(delay, signal)
      }
    }
  }

  /** Dates must run newest first (spec example, simulator); an ascending page stops the sync. */
  function checkOrder(records: PageRecord[]) {
    let first: string | null = null
    let last: string | null = null
    for (const r of records) {
      if (r.date === null) continue
      if (first === null) first = r.date
      last = r.date
    }
    if (first !== null && last !== null && first < last)
      throw new Fail(
        'The messaging service sent this history oldest first (dates ascending). The index assumes newest first, as documented, and stopped rather than build a wrong index.',
      )
  }

  /**
   * Stores records (with their ordinals) and the number's new checkpoint in one transaction:
   * the rows, the daily roll-up, the party counts and the counters move together.
   */
  async function store(
    number: string,
    tid: string,
    page: Page,
    rows: Array<{ ordinal: number; r: PageRecord }>,
    checkpoint: string,
    cpParams: unknown[],
    /** The rows are known to be absent (a full walk below its checkpoint): COPY may load them. */
    fresh = false,
  ): Promise<number> {
    return db.transaction(async (tx) => {
      let inserted = 0
      if (rows.length > 0) {
        // A neighbour's date for a record whose GMTdate was unreadable (kept raw in date_raw).
        let fallback = page.newestAt ?? '1970-01-01T00:00:00Z'
        const dates: string[] = []
        for (const { r } of rows) {
          if (r.date) fallback = r.date
          dates.push(r.date ?? fallback)
        }
        if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '60s'`)
        // Each distinct body of the page gets its id in index_bodies (added when new).
        const distinct = [...new Set(rows.map((x) => x.r.body).filter((b): b is string => b !== null))]
        const bodyIds = new Map<string, number>()
        if (distinct.length > 0) {
          const ids = await tx.query<{ k: number; id: number }>(BODY_IDS_SQL, [distinct])
          for (const { k, id } of ids.rows) bodyIds.set(distinct[k - 1]!, id)
        }
        const bodyIdOf = (b: string | null) => (b === null ? null : (bodyIds.get(b) ?? null))
        let got: Set<number> | null = null
        if (fresh && canCopy(tx)) {
          // PGlite loads CSV through COPY about 2.5× faster than unnest() of parameter arrays.
          await tx.copyFrom(COPY_SQL, copyCsv(number, tid, rows, dates, bodyIdOf))
          inserted = rows.length
        } else {
          const res = await tx.query<{ n: number; got: number[] | null }>(INSERT_SQL, [
            number,
            tid,
            rows.map((x) => x.ordinal),
            rows.map((x) => x.r.tid),
            rows.map((x) => x.r.systemId),
            rows.map((x) => x.r.messageId),
            dates,
            rows.map((x) => x.r.dateRaw),
            rows.map((x) => x.r.phone),
            rows.map((x) => x.r.partyDigits),
            rows.map((x) => x.r.direction),
            rows.map((x) => x.r.body),
            rows.map((x) => x.r.mms),
            rows.map((x) => x.r.mediaUrl),
            rows.map((x) => x.r.status),
            rows.map((x) => x.r.statusCode),
            rows.length,
            rows.map((x) => bodyIdOf(x.r.body)),
          ])
          inserted = res.rows[0]?.n ?? 0
          got = res.rows[0]?.got ? new Set(res.rows[0].got) : null
        }
        // Roll-ups of exactly the rows stored, in the same transaction.
        const days = new Map<string, [number, number, number]>()
        const parties = new Map<string, [number, string]>()
        const bodyCounts = new Map<number, number>()
        rows.forEach((x, k) => {
          if (got && !got.has(x.ordinal)) return
          const bodyId = bodyIdOf(x.r.body)
          if (bodyId !== null) bodyCounts.set(bodyId, (bodyCounts.get(bodyId) ?? 0) + 1)
          const date = dates[k]!
          const day = date.slice(0, 10)
          let d = days.get(day)
          if (!d) days.set(day, (d = [0, 0, 0]))
          if (x.r.direction === 'outbound') d[1]++
          else d[0]++
          if (x.r.statusCode !== null && x.r.statusCode >= 400) d[2]++
          const p = parties.get(x.r.partyDigits)
          if (!p) parties.set(x.r.partyDigits, [1, date])
          else {
            p[0]++
            if (date > p[1]) p[1] = date
          }
        })
        if (days.size > 0) {
          const e = [...days.entries()]
          await tx.query(DAILY_SQL, [number, e.map(([k]) => k), e.map(([, v]) => v[0]), e.map(([, v]) => v[1]), e.map(([, v]) => v[2])])
        }
        if (parties.size > 0) {
          const e = [...parties.entries()]
          await tx.query(PARTIES_SQL, [number, e.map(([k]) => k), e.map(([, v]) => v[0]), e.map(([, v]) => v[1])])
        }
        if (bodyCounts.size > 0) await tx.query(BODY_COUNTS_SQL, [number, [...bodyCounts.keys()], [...bodyCounts.values()]])
      }
      const top = rows.reduce((m, x) => Math.max(m, x.ordinal), 0)
      await tx.query(
        `UPDATE index_numbers SET
           indexed = indexed + $2, top_ordinal = GREATEST(top_ordinal, $3),
           upstream_total = $4, newest_msg_id = $5, newest_at = $6, created_raw = COALESCE($7, created_raw), optin = COALESCE($8, optin),
           progress_done = indexed + $2, progress_total = $4 ${checkpoint}
         WHERE number = $1`,
        [number, inserted, top, page.total, page.newestId, page.newestAt, page.createdRaw, page.optin, ...cpParams],
      )
      return inserted
    })
  }

  async function load(number: string, q: Queryable = db): Promise<NumberRow | undefined> {
    const r = await q.query<NumberRow & Record<string, unknown>>(
      `SELECT number, tid, top_ordinal, indexed, full_done, cp_next, cp_total, cp_check, newest_msg_id, upstream_total FROM index_numbers WHERE number = $1`,
      [number],
    )
    return r.rows[0]
  }

  /** Drops what the index holds for a number (a re-walk, or forget). */
  async function wipe(number: string) {
    await db.transaction(async (tx) => {
      if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '300s'`)
      await tx.query('DELETE FROM index_messages WHERE number = $1', [number])
      await tx.query('DELETE FROM index_daily WHERE number = $1', [number])
      await tx.query('DELETE FROM index_parties WHERE number = $1', [number])
      await tx.query('DELETE FROM index_body_counts WHERE number = $1', [number])
      await tx.query(
        `UPDATE index_numbers SET indexed = 0, top_ordinal = 0, full_done = false, cp_next = NULL, cp_total = NULL, cp_check = NULL, progress_done = 0 WHERE number = $1`,
        [number],
      )
    })
  }

  /** The full walk, newest first, from the checkpoint if there is one. Returns rows inserted. */
  async function fullWalk(row: NumberRow, signal: AbortSignal, load_: { bulk: boolean }): Promise<number> {
    const { number, tid } = row
    let inserted = 0
    let next: number
    let totalKnown: number
    let check: string | null
    let pending: Promise<Page>
    let pendingStart: number
    if (row.cp_next !== null && row.cp_total !== null && row.top_ordinal > 0) {
      // Resume: ordinals above cp_next are stored; ask again for cp_next + 1 as the overlap.
      next = row.cp_next
      totalKnown = row.cp_total
      check = row.cp_check
      pendingStart = Math.max(1, totalKnown - next + 1 - (check ? 1 : 0))
      log(`index: ${number}: resuming the full walk at ordinal ${next} of ${totalKnown}`)
    } else {
      next = Number.POSITIVE_INFINITY
      totalKnown = 0
      check = null
      pendingStart = 1
    }
    if (next <= 0) return 0
    // Pages asked for ahead of need, by start position: the upstream prepares them while this
    // server parses and stores, and rows are stored STORE_ROWS at a time (one COPY and one
    // roll-up update per batch, not per page). A page asked for ahead carries its own total, so
    // it stays usable when messages arrive meanwhile (its ordinals are computed from it).
    const ahead = new Map<number, Promise<Page>>()
    const stride = Math.max(1, pageCap - 1) // consecutive pages share one record (the overlap)
    const pageAt = (start: number): Promise<Page> => {
      const got = ahead.get(start)
      for (const k of [...ahead.keys()]) if (k <= start) ahead.delete(k)
      const p = got ?? fetchPage(number, tid, start, start + pageCap - 1, signal)
      if (totalKnown > 0)
        for (let k = 1; k <= AHEAD; k++) {
          const s = start + k * stride
          // The page before it reaches position s: needed only while s is short of the total.
          if (s >= totalKnown || ahead.has(s)) continue
          const q = fetchPage(number, tid, s, s + pageCap - 1, signal)
          q.catch(() => {}) // a page asked for ahead may go unused
          ahead.set(s, q)
        }
      return p
    }
    let buffered: Array<{ ordinal: number; r: PageRecord }> = []
    let bufferedPage: Page | null = null
    let bufferedCp: unknown[] = []
    const flush = async () => {
      if (!bufferedPage) return
      // The batch goes in with the checkpoint of its last page: a crash loses at most a batch.
      const storeStart = performance.now()
      inserted += await store(
        number,
        tid,
        bufferedPage,
        buffered,
        ', cp_next = $9, cp_total = $10, cp_check = $11, full_done = ($9 = 0)',
        bufferedCp,
        true,
      )
      buffered = []
      bufferedPage = null
      stats.storeMs += performance.now() - storeStart
    }
    pending = pageAt(pendingStart)
    let stalls = 0
    let topStored = row.top_ordinal
    for (;;) {
      const waitStart = performance.now()
      let page: Page
      try {
        page = await pending
      } catch (err) {
        // A pause, a stop or a failure keeps what was fetched before it.
        await flush().catch((e: unknown) =>
          log(`index: ${number}: could not store the last pages: ${e instanceof Error ? e.message : String(e)}`),
        )
        throw err
      }
      stats.waitMs += performance.now() - waitStart
      const start = pendingStart
      if (page.total < totalKnown) throw new Rewalk(`the upstream's total went down from ${totalKnown} to ${page.total}`)
      checkOrder(page.records)
      if (page.total === 0 || (next === Number.POSITIVE_INFINITY && page.records.length === 0)) {
        await store(number, tid, page, [], ', cp_next = 0, cp_total = $9, cp_check = NULL', [page.total])
        return inserted
      }
      if (page.records.length === 0)
        throw new Fail(`The messaging service returned no records for positions ${start}–${start + pageCap - 1} of ${page.total}.`)
      if (!Number.isFinite(next) && page.total >= BULK_MIN && !load_.bulk) {
        // A large first walk into a small index: load without the secondary indexes, build them after.
        const held = await db.query<{ n: number }>('SELECT COALESCE(sum(indexed), 0)::int AS n FROM index_numbers')
        if ((held.rows[0]?.n ?? 0) * 2 < page.total && (await dropIndexes(db))) {
          load_.bulk = true
          bulkLoads += 1
          log(`index: ${number}: bulk load of ${page.total} messages (indexes built at the end)`)
        }
      }
      const rows = page.records.map((r, i) => ({ ordinal: page.total - (start + i) + 1, r }))
      const hi = rows[0]!.ordinal
      const lo = rows[rows.length - 1]!.ordinal
      if (check !== null && Number.isFinite(next)) {
        const overlap = rows.find((x) => x.ordinal === next + 1)
        if (!overlap) {
          // More messages arrived between two requests than a page holds: ask again.
          if (++stalls > MAX_STALLS) throw new Fail('The history grows faster than the index can page through it; try again later.')
          totalKnown = page.total
          pendingStart = Math.max(1, totalKnown - next + 1 - 1)
          ahead.clear()
          pending = pageAt(pendingStart)
          continue
        }
        if (identity(overlap.r) !== check) throw new Rewalk(`record ${next + 1} changed between pages`)
      }
      stalls = 0
      const keep = Number.isFinite(next) ? rows.filter((x) => x.ordinal <= next) : rows
      // Records above the walk's band (arrived during it) are correct too; storing them is free.
      const above = Number.isFinite(next) ? rows.filter((x) => x.ordinal > next + 1) : []
      const newNext = Math.min(Number.isFinite(next) ? next : hi, lo - 1)
      const lowest = rows[rows.length - 1]!
      const newCheck = identity(lowest.r)
      totalKnown = page.total
      // Ask for the next page before storing this one: the upstream works while we insert.
      if (newNext > 0) {
        pendingStart = totalKnown - newNext + 1 - 1
        pending = pageAt(pendingStart)
        pending.catch(() => {}) // observed below; a store failure must not leave it unhandled
        // Let the request reach the socket before PGlite's synchronous work holds the thread, so
        // the upstream prepares the next page while this one is stored.
        await new Promise<void>((resolve) => setImmediate(resolve))
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
      // Below the checkpoint nothing is stored (it moves in the same transaction as the rows), and
      // above the stored top nothing is either: those rows load without conflict checks.
      for (const x of above) if (x.ordinal > topStored) buffered.push(x)
      for (const x of keep) buffered.push(x)
      topStored = Math.max(topStored, hi)
      bufferedPage = page
      bufferedCp = [newNext, totalKnown, newCheck]
      if (buffered.length >= STORE_ROWS || newNext <= 0) await flush()
      next = newNext
      check = newCheck
      if (next <= 0) return inserted
      if (signal.aborted) {
        await flush()
        throw new Aborted()
      }
    }
  }

  /**
   * Catch-up from the stored top to the upstream's newest, with OVERLAP stored records asked
   * for again and compared. Returns rows inserted; throws Rewalk when the overlap disagrees.
   */
  async function catchUp(row: NumberRow, signal: AbortSignal): Promise<number> {
    const { number, tid } = row
    // The probe: one record and the envelope.
    const probe = await fetchPage(number, tid, 1, 1, signal)
    let top = row.top_ordinal
    if (probe.total < top) throw new Rewalk(`the upstream's total went down from ${top} to ${probe.total}`)
    if (probe.total === top) {
      const stored = await db.query<{ system_id: string | null; message_id: string | null }>(
        'SELECT system_id, message_id FROM index_messages WHERE number = $1 AND ordinal = $2',
        [number, top],
      )
      const s = stored.rows[0]
      const newest = probe.records[0]
      if (top > 0 && (!s || !newest || identity({ systemId: s.system_id, messageId: s.message_id }) !== identity(newest)))
        throw new Rewalk('the newest record differs from the stored one with the same total')
      await store(number, tid, probe, [], '', [])
      return 0
    }
    let inserted = 0
    let totalKnown = probe.total
    let lo = top + 1
    let stalls = 0
    while (lo <= totalKnown) {
      const from = Math.max(1, lo - OVERLAP)
      const hi = Math.min(totalKnown, from + pageCap - 1)
      const start = totalKnown - hi + 1
      const end = totalKnown - from + 1
      const page = await fetchPage(number, tid, start, end, signal)
      if (page.total < totalKnown) throw new Rewalk(`the upstream's total went down from ${totalKnown} to ${page.total}`)
      checkOrder(page.records)
      const rows = page.records.map((r, i) => ({ ordinal: page.total - (start + i) + 1, r }))
      totalKnown = page.total
      if (rows.length === 0) throw new Fail(`The messaging service returned no records for positions ${start}–${end} of ${page.total}.`)
      const pageLo = rows[rows.length - 1]!.ordinal
      if (pageLo > lo) {
        // Newer messages pushed the range past the gap: ask again with the new total.
        if (++stalls > MAX_STALLS) throw new Fail('The history grows faster than the index can page through it; try again later.')
        continue
      }
      stalls = 0
      const overlap = rows.filter((x) => x.ordinal <= top)
      if (overlap.length > 0) {
        const stored = await db.query<{ ordinal: number; system_id: string | null; message_id: string | null }>(
          'SELECT ordinal, system_id, message_id FROM index_messages WHERE number = $1 AND ordinal = ANY($2::int[])',
          [number, overlap.map((x) => x.ordinal)],
        )
        const byOrdinal = new Map(stored.rows.map((s) => [s.ordinal, identity({ systemId: s.system_id, messageId: s.message_id })]))
        for (const x of overlap)
          if (byOrdinal.get(x.ordinal) !== identity(x.r)) throw new Rewalk(`record ${x.ordinal} does not match the stored one`)
      }
      const fresh = rows.filter((x) => x.ordinal >= lo)
      inserted += await store(number, tid, page, fresh, '', [])
      const pageHi = rows[0]!.ordinal
      top = Math.max(top, pageHi)
      lo = pageHi + 1
    }
    return inserted
  }

  async function syncNumber(number: string, signal: AbortSignal): Promise<void> {
    let row = await load(number)
    if (!row) return
    const started = Date.now()
    await db.query(`UPDATE index_numbers SET state = 'syncing', error = NULL, started_at = now() WHERE number = $1`, [number])
    let inserted = 0
    const load_ = { bulk: false }
    try {
      for (let rewalks = 0; ; rewalks++) {
        try {
          if (!row.full_done) {
            inserted += await fullWalk(row, signal, load_)
            row = (await load(number))!
          }
          inserted += await catchUp(row, signal)
          break
        } catch (err) {
          if (!(err instanceof Rewalk)) throw err
          if (rewalks >= MAX_REWALKS)
            throw new Fail(`The upstream's history kept changing under the index (${err.message}); try again later.`)
          log(`index: ${number}: ${err.message}; walking the history again`)
          await wipe(number)
          row = (await load(number))!
        }
      }
      if (inserted > 10_000) {
        // Fresh statistics and visibility for the planner after a bulk load (PGlite has no autovacuum).
        const vacuumStart = performance.now()
        await db
          .query('VACUUM (ANALYZE) index_messages')
          .catch((e: unknown) => log(`index: vacuum failed: ${e instanceof Error ? e.message : String(e)}`))
        stats.vacuumMs += performance.now() - vacuumStart
      }
    } finally {
      if (load_.bulk) bulkLoads -= 1
      // The indexes come back once no bulk load of this server is running, unless it is shutting
      // down: the next start resumes the walk and builds them at its end.
      if (load_.bulk && bulkLoads === 0 && !signal.aborted) await ensureIndexes(db, log)
    }
    await db.query(
      `UPDATE index_numbers SET state = 'idle', error = NULL, finished_at = now(), last_synced_at = now(), progress_done = indexed, progress_total = upstream_total WHERE number = $1`,
      [number],
    )
    log(`index: ${number}: synced, ${inserted} new messages in ${Date.now() - started} ms`)
  }

  /** One syncer per number across servers (PostgreSQL advisory lock on a held connection). */
  async function withLock(number: string, fn: () => Promise<void>): Promise<boolean> {
    if (locks.has(number)) return false
    locks.add(number)
    try {
      if (db.engine !== 'postgres') {
        await fn()
        return true
      }
      return await db.withConnection(async (conn) => {
        const r = await conn.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_CLASS, number])
        if (!r.rows[0]?.ok) return false
        try {
          await fn()
        } finally {
          await conn.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, number])
        }
        return true
      })
    } finally {
      locks.delete(number)
    }
  }

  async function run(number: string) {
    const controller = new AbortController()
    const done = (async () => {
      try {
        const got = await withLock(number, () =>
          syncNumber(number, controller.signal).catch(async (err: unknown) => {
            if (err instanceof Aborted || controller.signal.aborted) {
              // Stopped (shutdown or forget): the checkpoint stays; the next start resumes it.
              await setState(number, 'queued', null).catch(() => {})
              return
            }
            if (err instanceof Pause) {
              log(`index: ${number}: ${err.message}`)
              await setState(number, 'paused', err.message).catch(() => {})
              return
            }
            const message = err instanceof Fail ? err.message : `The sync failed: ${err instanceof Error ? err.message : String(err)}`
            log(`index: ${number}: ${message}`)
            await setState(number, 'error', message).catch(() => {})
          }),
        )
        if (!got) log(`index: ${number}: another server (or sync) holds this number; skipped`)
      } catch (err) {
        log(`index: ${number}: ${err instanceof Error ? err.message : String(err)}`)
      }
    })()
    running.set(number, { controller, done })
    await done
    running.delete(number)
  }

  function pump() {
    while (!closed && running.size < opts.concurrency && queue.length > 0) {
      const number = queue.shift()!
      queued.delete(number)
      void run(number).finally(() => {
        pump()
        checkIdle()
      })
    }
    checkIdle()
  }

  async function request({ number, tid }: SyncRequest) {
    if (closed || !NUMBER_RE.test(number)) return
    if (tid !== undefined) {
      await db.query(`INSERT INTO index_numbers (number, tid) VALUES ($1, $2) ON CONFLICT (number) DO UPDATE SET tid = EXCLUDED.tid`, [
        number,
        tid,
      ])
    }
    if (queued.has(number) || running.has(number)) return
    // 'syncing' may belong to another server: leave its state alone.
    await db.query(`UPDATE index_numbers SET state = 'queued' WHERE number = $1 AND state <> 'syncing'`, [number])
    queued.add(number)
    queue.push(number)
    pump()
  }

  async function syncAll(): Promise<number> {
    const res = await forwarder.forward('allownednumbers', [])
    stats.requests += 1
    const json = JSON.parse(res.body.toString('utf8')) as { data?: unknown }
    const list = Array.isArray(json.data) ? json.data : []
    const numbers: string[] = []
    const tids: string[] = []
    for (const item of list) {
      if (!item || typeof item !== 'object') continue
      const o = item as Record<string, unknown>
      const n = typeof o.number === 'string' || typeof o.number === 'number' ? String(o.number).replace(/\D/g, '') : ''
      const t = typeof o.tid === 'string' || typeof o.tid === 'number' ? String(o.tid) : ''
      if (NUMBER_RE.test(n) && t) {
        numbers.push(n)
        tids.push(t)
      }
    }
    await db.query(
      `INSERT INTO index_numbers (number, tid, listed) SELECT n, t, true FROM unnest($1::text[], $2::text[]) AS u(n, t)
       ON CONFLICT (number) DO UPDATE SET tid = EXCLUDED.tid, listed = true`,
      [numbers, tids],
    )
    for (const n of numbers) await request({ number: n })
    return numbers.length
  }

  async function resumePending() {
    const r = await db.query<{ number: string }>(`SELECT number FROM index_numbers WHERE state IN ('queued', 'syncing') ORDER BY number`)
    for (const { number } of r.rows) await request({ number })
  }

  async function stop(number?: string) {
    for (const n of number ? [number] : [...queue]) {
      const i = queue.indexOf(n)
      if (i >= 0) queue.splice(i, 1)
      queued.delete(n)
    }
    const targets = number ? [running.get(number)].filter((x) => x !== undefined) : [...running.values()]
    for (const t of targets) t.controller.abort()
    await Promise.all(targets.map((t) => t.done))
    checkIdle()
  }

  return {
    request,
    syncAll,
    resumePending,
    stop,
    idle: () =>
      new Promise<void>((resolve) => {
        if (queue.length === 0 && running.size === 0) return resolve()
        idleWaiters.push(resolve)
      }),
    isBusy: (number) => queued.has(number) || running.has(number),
    stats,
    close: async () => {
      closed = true
      await stop()
    },
  }
}

/**
 * The rows of one page. A duplicate ordinal is skipped, never doubled; the answer says how many
 * went in and, only when some were skipped, which, so the roll-ups count exactly the rows stored.
 */
export const INSERT_SQL = `
WITH ins AS (
  INSERT INTO index_messages (number, ordinal, fetched_tid, tid, system_id, message_id, date, date_raw, phone, party_digits, direction, body, mms, media_url, status, status_code, body_id)
  SELECT $1, v.ordinal, $2, v.tid, v.system_id, v.message_id, v.date, v.date_raw, v.phone, v.party_digits, v.direction, v.body, v.mms, v.media_url, v.status, v.status_code, v.body_id
  FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::bool[], $14::text[], $15::text[], $16::int[], $18::int[])
    AS v(ordinal, tid, system_id, message_id, date, date_raw, phone, party_digits, direction, body, mms, media_url, status, status_code, body_id)
  ON CONFLICT (number, ordinal) DO NOTHING
  RETURNING ordinal
)
SELECT count(*)::int AS n, CASE WHEN count(*) < $17 THEN array_agg(ordinal) END AS got FROM ins`

/** The daily roll-up, added to (a page's few days, summed in JavaScript from the rows stored). */
const DAILY_SQL = `
INSERT INTO index_daily (number, day, inbound, outbound, failed)
SELECT $1, d, i, o, f FROM unnest($2::date[], $3::int[], $4::int[], $5::int[]) AS u(d, i, o, f)
ON CONFLICT (number, day) DO UPDATE SET
  inbound = index_daily.inbound + EXCLUDED.inbound,
  outbound = index_daily.outbound + EXCLUDED.outbound,
  failed = index_daily.failed + EXCLUDED.failed`

/**
 * The ids of a page's distinct bodies ($1, answered by position k, 1-based), adding the new ones.
 * Two syncs on one PostgreSQL may add the same body at once: the copies are harmless (see
 * migration 002), and the lowest id is used from then on.
 */
const BODY_IDS_SQL = `
WITH input AS (SELECT b, k FROM unnest($1::text[]) WITH ORDINALITY AS u(b, k)),
found AS (
  SELECT i.k, min(x.id) AS id FROM input i JOIN index_bodies x ON md5(x.body) = md5(i.b) AND x.body = i.b GROUP BY i.k
),
added AS (
  INSERT INTO index_bodies (body) SELECT i.b FROM input i WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.k = i.k) ORDER BY i.k
  RETURNING id, body
)
SELECT k::int AS k, id FROM found
UNION ALL
SELECT i.k::int AS k, a.id FROM added a JOIN input i ON i.b = a.body`

const BODY_COUNTS_SQL = `
INSERT INTO index_body_counts (body_id, number, count)
SELECT b, $1, c FROM unnest($2::int[], $3::int[]) AS u(b, c)
ON CONFLICT (body_id, number) DO UPDATE SET count = index_body_counts.count + EXCLUDED.count`

const PARTIES_SQL = `
INSERT INTO index_parties (number, party, count, last_date)
SELECT $1, p, c, l FROM unnest($2::text[], $3::int[], $4::timestamptz[]) AS u(p, c, l)
ON CONFLICT (number, party) DO UPDATE SET
  count = index_parties.count + EXCLUDED.count,
  last_date = GREATEST(index_parties.last_date, EXCLUDED.last_date)`

/**
 * The secondary indexes of index_messages (as in migration 001). A first bulk load of a large
 * history into a small table drops them and builds them once at the end: building a trigram
 * index in one pass costs a fraction of maintaining it row by row.
 */
export const SECONDARY_INDEXES = [
  'CREATE INDEX IF NOT EXISTS index_messages_date ON index_messages (date DESC, number DESC, ordinal DESC) INCLUDE (status_code)',
  'CREATE INDEX IF NOT EXISTS index_messages_number_date ON index_messages (number, date DESC, ordinal DESC)',
  'CREATE INDEX IF NOT EXISTS index_messages_thread ON index_messages (number, party_digits, date DESC, ordinal DESC)',
  'CREATE INDEX IF NOT EXISTS index_messages_errors ON index_messages (date DESC) WHERE status_code >= 400',
  'CREATE INDEX IF NOT EXISTS index_messages_body ON index_messages (body_id)',
]
const SECONDARY_NAMES = [
  'index_messages_date',
  'index_messages_number_date',
  'index_messages_thread',
  'index_messages_errors',
  'index_messages_body',
]

/** Re-creates any secondary index that is missing (after a bulk load, or one cut short by a crash). */
export async function ensureIndexes(db: Db, log: (line: string) => void = () => {}): Promise<void> {
  const r = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = $1 AND indexname = ANY($2::text[])',
    ['index_messages', SECONDARY_NAMES],
  )
  if ((r.rows[0]?.n ?? 0) === SECONDARY_NAMES.length) return
  const started = Date.now()
  await db.transaction(async (tx) => {
    await tx.query(`SET LOCAL statement_timeout = 0`)
    await tx.query(`SET LOCAL maintenance_work_mem = '128MB'`)
    for (const sql of SECONDARY_INDEXES) await tx.query(sql)
  })
  log(`index: secondary indexes built in ${Date.now() - started} ms`)
}

/** Drops the secondary indexes for a bulk load; false when another session is using the table. */
async function dropIndexes(db: Db): Promise<boolean> {
  try {
    await db.transaction(async (tx) => {
      await tx.query(`SET LOCAL lock_timeout = '2s'`)
      for (const name of SECONDARY_NAMES) await tx.query(`DROP INDEX IF EXISTS ${name}`)
    })
    return true
  } catch {
    return false
  }
}

const COPY_SQL = `COPY index_messages (number, ordinal, fetched_tid, tid, system_id, message_id, date, date_raw, phone, party_digits, direction, body, mms, media_url, status, status_code, body_id) FROM '/dev/blob' WITH (FORMAT csv)`

interface CopyCapable {
  copyFrom: (sql: string, data: string) => Promise<void>
}
const canCopy = (tx: unknown): tx is CopyCapable => typeof (tx as Partial<CopyCapable>).copyFrom === 'function'

/** COPY's CSV: strings always quoted (so "" is an empty string and an unquoted empty is NULL). */
const cq = (v: string | null) => (v === null ? '' : `"${v.includes('"') ? v.replace(/"/g, '""') : v}"`)

function copyCsv(
  number: string,
  tid: string,
  rows: Array<{ ordinal: number; r: PageRecord }>,
  dates: string[],
  bodyIdOf: (b: string | null) => number | null,
): string {
  let out = ''
  const head = `${cq(number)},`
  const fetched = cq(tid)
  rows.forEach(({ ordinal, r }, k) => {
    out += `${head}${ordinal},${fetched},${cq(r.tid)},${cq(r.systemId)},${cq(r.messageId)},${dates[k]},${cq(r.dateRaw)},${cq(r.phone)},${cq(r.partyDigits)},${cq(r.direction)},${cq(r.body)},${r.mms},${cq(r.mediaUrl)},${cq(r.status)},${r.statusCode ?? ''},${bodyIdOf(r.body) ?? ''}\n`
  })
  return out
}
