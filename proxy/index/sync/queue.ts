import { randomUUID } from 'node:crypto'
import { listAccount, recordListing } from './account.ts'
import { addLine, lineTids } from './lines.ts'
import { dueNumbers } from './leases.ts'
import { createLimiter } from '../../kernel/pace.ts'
import { syncNumber } from './number.ts'
import { pageWorker } from './pages.ts'
import { RESUMES, LINE_KEY, type SyncContext, type Syncer, type SyncOptions, type SyncRequest } from './types.ts'

/** Default lease: a server that has not renewed its claim on a number for this long is presumed dead. */
const LEASE_MS = 30_000

/**
 * Keeps the index in step with the upstream: a queue of numbers, `concurrency` synced at once
 * by this server, each under a lease so that servers sharing one PostgreSQL sync a number once
 * and take over a dead server's numbers.
 */
export function createSyncer(opts: SyncOptions): Syncer {
  const ctx = contextOf(opts)
  const q = {
    ctx,
    concurrency: opts.concurrency,
    queue: [] as string[],
    queued: new Set<string>(),
    running: new Map<string, { controller: AbortController; done: Promise<void> }>(),
    again: new Set<string>(),
    closed: false,
    idleWaiters: [] as Array<() => void>,
    listingFailure: null as Queue['listingFailure'],
  }
  // A further line a sync found (lines.ts) goes next, as part of its number's sync (behind the
  // rest of an account's numbers, it waited for a million-message walk to end).
  ctx.lines.found = (key) => void request(q, { number: key, auto: true }).catch((e: unknown) => ctx.log(`index: ${String(e)}`))
  // Numbers left queued or syncing under an expired lease are picked up every lease period.
  const sweep = setInterval(() => void requestDue(q).catch((e: unknown) => ctx.log(`index: ${String(e)}`)), ctx.leaseMs)
  sweep.unref()
  return {
    request: (req) => request(q, req),
    enqueue: (numbers) => requestMany(q, numbers),
    listedTids: async (number) => (await listAccount(ctx)).get(number) ?? null,
    syncAll: (opts) => syncAll(q, opts),
    listingFailure: () => q.listingFailure,
    syncAllOnce: async () => {
      const listed = await ctx.db.query('SELECT 1 FROM index_numbers WHERE listed LIMIT 1')
      return listed.rows.length > 0 ? 0 : syncAll(q, { revive: false })
    },
    resumePending: () => requestDue(q),
    stop: (number) => stop(q, number),
    idle: () =>
      new Promise<void>((resolve) => {
        if (q.queue.length === 0 && q.running.size === 0) return resolve()
        q.idleWaiters.push(resolve)
      }),
    isBusy: (number) => q.queued.has(number) || q.running.has(number),
    stats: ctx.stats,
    progress: ctx.progress,
    close: async () => {
      q.closed = true
      clearInterval(sweep)
      await stop(q)
      await ctx.pages.close()
    },
  }
}

type Queue = {
  ctx: SyncContext
  concurrency: number
  queue: string[]
  queued: Set<string>
  running: Map<string, { controller: AbortController; done: Promise<void> }>
  /** Numbers a person asked for while their sync ran: synced once more when it ends. */
  again: Set<string>
  closed: boolean
  idleWaiters: Array<() => void>
  /** Why the last listing of the account failed, and when; null once one succeeds. */
  listingFailure: { message: string; at: string } | null
}

function contextOf(opts: SyncOptions): SyncContext {
  return {
    db: opts.db,
    forwarder: opts.forwarder,
    // Consecutive pages share one record (the overlap): a page of one record would hold only that one and never move on.
    pageCap: Math.max(2, opts.pageCap),
    log: opts.log ?? (() => {}),
    maxRetries: opts.maxRetries ?? 5,
    backoffMs: opts.backoffMs ?? 500,
    bulkMin: opts.bulkMin ?? 100_000,
    storeRows: opts.storeRows ?? 10000,
    pageWorkerMin: opts.pageWorkerMin ?? 20_000,
    pages: pageWorker(),
    leaseMs: opts.leaseMs ?? LEASE_MS,
    errorRetryMs: opts.errorRetryMs ?? 60_000,
    owner: randomUUID(),
    limit: opts.pace ?? createLimiter(opts.rate),
    stats: { requests: 0, waitMs: 0, prepareMs: 0, storeMs: 0, overlappedBatches: 0, vacuumMs: 0, deskMs: 0 },
    progress: { messages: 0, since: null },
    bulk: { loads: 0 },
    desk: opts.desk ?? true,
    hooks: opts.hooks,
    lines: { probed: new Set(), found: () => {} },
  }
}

function checkIdle(q: Queue) {
  if (q.queue.length > 0 || q.running.size > 0) return
  const waiters = q.idleWaiters
  q.idleWaiters = []
  for (const f of waiters) f()
}

async function request(q: Queue, { number, tid, auto }: SyncRequest): Promise<void> {
  if (q.closed || !LINE_KEY.test(number)) return
  if (auto) {
    const forgotten = await q.ctx.db.query('SELECT 1 FROM index_numbers WHERE number = $1 AND forgotten_at IS NOT NULL', [number])
    if (forgotten.rows.length > 0) return
  }
  // A tid other than the one the number's row syncs under (a history served under it): a further
  // line's goes to that line; while the row is sound and holds messages, it is a second history of
  // the number, a further line of its own (lines.ts). A row paused or failing takes the tid (a
  // number moved to a new tid), as before. Taken by a sound row, the number's messages were walked
  // again under the other tid and its own history became the line.
  if (tid !== undefined && !number.includes('~')) {
    const own = await q.ctx.db.query<{ tid: string; state: string; indexed: number; removed: boolean }>(
      'SELECT tid, state, indexed, removed_at IS NOT NULL AS removed FROM index_numbers WHERE number = $1',
      [number],
    )
    const row = own.rows[0]
    if (row && row.tid !== tid) {
      const sound = row.indexed > 0 && !row.removed && row.state !== 'paused' && row.state !== 'error'
      const line = (await lineTids(q.ctx, number)).get(tid) ?? (sound ? await addLine(q.ctx, number, tid) : null)
      if (line) return request(q, { number: line, auto })
    }
  }
  if (tid !== undefined)
    await q.ctx.db.query(
      `INSERT INTO index_numbers (number, tid) VALUES ($1, $2) ON CONFLICT (number) DO UPDATE SET tid = EXCLUDED.tid,
         -- A refusal's mark goes; the listing's stays for the sync's end to judge (see clearRemoval in number.ts).
         removed_at = CASE WHEN index_numbers.removed_by = 'listing' THEN index_numbers.removed_at END,
         removed_by = CASE WHEN index_numbers.removed_by = 'listing' THEN 'listing' END`,
      [number, tid],
    )
  // The sync running began before this request: its answer may be older than what the person saw
  // (a refusal since lifted, messages since arrived). One more sync follows it. Before, the request
  // was dropped, and a number whose running sync was refused stayed paused though asked for again.
  if (q.running.has(number)) {
    if (!auto) q.again.add(number)
    return
  }
  // A number asked for by name (a history opened, a sync button) goes before those queued in the
  // background by "index all", the sweep or the re-sync: behind a 60-number account and a
  // million-message walk, it waited minutes.
  if (q.queued.has(number)) {
    q.queue.splice(q.queue.indexOf(number), 1)
    q.queue.unshift(number)
    return
  }
  // 'syncing' may belong to another server: leave its state alone (its lease says whose it is).
  await q.ctx.db.query(`UPDATE index_numbers SET state = 'queued', forgotten_at = NULL WHERE number = $1 AND state <> 'syncing'`, [number])
  if (q.queued.has(number) || q.running.has(number)) return
  q.queued.add(number)
  q.queue.unshift(number)
  pump(q)
}

function pump(q: Queue) {
  while (!q.closed && q.running.size < q.concurrency && q.queue.length > 0) {
    const number = q.queue.shift()!
    q.queued.delete(number)
    const controller = new AbortController()
    const done = syncNumber(q.ctx, number, controller.signal)
      .then(() => undefined)
      .catch((err: unknown) => q.ctx.log(`index: ${number}: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => {
        q.running.delete(number)
        if (q.again.delete(number) && !q.closed && !q.queued.has(number)) {
          q.queued.add(number)
          q.queue.unshift(number)
        }
        pump(q)
      })
    q.running.set(number, { controller, done })
  }
  checkIdle(q)
}

/** `revive`: numbers an admin forgot are indexed again (an admin's "Index all"); else they stay forgotten. */
async function syncAll(q: Queue, { revive = true }: { revive?: boolean } = {}): Promise<number> {
  let listing: Awaited<ReturnType<typeof listAccount>>
  try {
    listing = await listAccount(q.ctx)
  } catch (err) {
    if (q.closed) return 0
    q.listingFailure = { message: err instanceof Error ? err.message : String(err), at: new Date().toISOString() }
    throw err
  }
  // Closed while the upstream answered (a server stopping, or an index a test let go): nothing is
  // recorded. A listing recorded after its index closed marked every number listed under the next
  // index's feet, and that one's retries of its own failed first listing then stopped.
  if (q.closed) return 0
  q.listingFailure = null
  const lines = await recordListing(q.ctx, listing, revive)
  const numbers = [...listing.keys()]
  const forgotten = revive
    ? new Set<string>()
    : new Set(
        (
          await q.ctx.db.query<{ number: string }>(
            'SELECT number FROM index_numbers WHERE number = ANY($1::text[]) AND forgotten_at IS NOT NULL',
            [numbers],
          )
        ).rows.map((r) => r.number),
      )
  await requestMany(q, [...numbers.filter((n) => !forgotten.has(n)), ...lines])
  return listing.size
}

async function requestDue(q: Queue): Promise<void> {
  if (q.closed) return
  await requestMany(q, await dueNumbers(q.ctx))
}

/**
 * Queues many numbers in the background (after those queued, without tids) with one statement. The first ones start syncing
 * at once, and on PGlite their transactions then take the one connection by turns: a statement
 * per number waited for a turn each, and "index all" on 60 numbers answered after seconds.
 */
async function requestMany(q: Queue, numbers: readonly string[]): Promise<void> {
  if (q.closed) return
  const todo = [...new Set(numbers)].filter((n) => LINE_KEY.test(n) && !q.queued.has(n) && !q.running.has(n))
  if (todo.length === 0) return
  // 'syncing' may belong to another server: leave its state alone (its lease says whose it is).
  await q.ctx.db.query(`UPDATE index_numbers SET state = 'queued' WHERE number = ANY($1::text[]) AND state <> 'syncing'`, [todo])
  for (const n of todo) {
    if (q.queued.has(n) || q.running.has(n)) continue
    q.queued.add(n)
    q.queue.push(n)
  }
  pump(q)
}

async function stop(q: Queue, number?: string): Promise<void> {
  for (const n of number ? [number] : [...q.queue]) {
    const i = q.queue.indexOf(n)
    if (i >= 0) q.queue.splice(i, 1)
    q.queued.delete(n)
  }
  for (const n of number ? [number] : [...q.again]) q.again.delete(n)
  const targets = number ? [q.running.get(number)].filter((x) => x !== undefined) : [...q.running.values()]
  // The reason tells a bulk load whether to put the indexes back now (a person stopped it) or leave
  // them to the walk that resumes at the next start (the server is closing).
  for (const t of targets) t.controller.abort(q.closed ? RESUMES : 'stopped')
  await Promise.all(targets.map((t) => t.done))
  checkIdle(q)
}
