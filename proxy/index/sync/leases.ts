import type { SyncContext } from './types.ts'

/**
 * Sync leases (after graphile-worker's locked_by/locked_at): a server takes a number when no
 * one holds it or the holder's lease has expired, and renews it while it works. A server that
 * died leaves a lease that expires; then another server, or this one after a restart, takes the
 * number over. One UPDATE claims it, so two servers on one PostgreSQL cannot both win.
 */

/**
 * This server no longer holds the number's lease (another took it over after it expired): thrown
 * by a fenced write, inside its transaction, so that the transaction rolls back whole. The sync
 * stops as it does when its heartbeat finds the lease gone, writing nothing over the taker's row.
 * The fencing is graphile-worker's: completing a job checks locked_by in the same statement.
 */
export class LeaseLost extends Error {
  readonly number: string
  constructor(number: string) {
    super(`${number}: another server took this number's sync lease over`)
    this.name = 'LeaseLost'
    this.number = number
  }
}

/** Claims the number for this syncer and marks it syncing; false when a live lease is someone else's. */
export async function acquire(ctx: SyncContext, number: string): Promise<boolean> {
  const r = await ctx.db.query<{ number: string }>(
    `UPDATE index_numbers SET locked_by = $2, locked_at = now(), state = 'syncing', error = NULL, started_at = now()
     WHERE number = $1 AND (locked_by IS NULL OR locked_by = $2 OR locked_at < now() - make_interval(secs => $3::double precision / 1000))
     RETURNING number`,
    [number, ctx.owner, ctx.leaseMs],
  )
  return r.rows.length > 0
}

/**
 * Renews the lease every third of its length until `stop` is called; `lost` runs when the lease
 * was taken over meanwhile (this server stalled past its lease), so the sync stops writing.
 */
export function heartbeat(ctx: SyncContext, number: string, lost: () => void): () => void {
  let stopped = false
  const beat = async () => {
    const r = await ctx.db
      .query<{ number: string }>(`UPDATE index_numbers SET locked_at = now() WHERE number = $1 AND locked_by = $2 RETURNING number`, [
        number,
        ctx.owner,
      ])
      .catch(() => null)
    if (!stopped && r && r.rows.length === 0) lost()
  }
  const timer = setInterval(() => void beat(), Math.max(10, Math.floor(ctx.leaseMs / 3)))
  timer.unref()
  return () => {
    stopped = true
    clearInterval(timer)
  }
}

/** Ends the sync: the final state, and the lease let go, in one statement (only if still ours); false when it was not. */
export async function release(ctx: SyncContext, number: string, state: string, error: string | null, done: boolean): Promise<boolean> {
  const r = await ctx.db.query(
    `UPDATE index_numbers SET state = $3, error = $4, locked_by = NULL, locked_at = NULL,
       failed_at = CASE WHEN $3 = 'error' THEN now() WHEN $5::boolean THEN NULL ELSE failed_at END,
       failures = CASE WHEN $3 = 'error' THEN failures + 1 WHEN $5::boolean THEN 0 ELSE failures END,
       finished_at = CASE WHEN $5::boolean THEN now() ELSE finished_at END,
       last_synced_at = CASE WHEN $5::boolean THEN now() ELSE last_synced_at END,
       progress_done = CASE WHEN $5::boolean THEN indexed ELSE progress_done END,
       progress_total = CASE WHEN $5::boolean THEN upstream_total ELSE progress_total END
     WHERE number = $1 AND locked_by = $2
     RETURNING number`,
    [number, ctx.owner, state, error, done],
  )
  return r.rows.length > 0
}

/** The longest wait before a number that failed is tried again (the back-off doubles up to it). */
export const MAX_ERROR_RETRY_MS = 3_600_000

/**
 * Numbers queued, left syncing under an expired lease (a dead server's), or stopped by transient
 * failures ('error') longer ago than their back-off (ctx.errorRetryMs, doubling with each failure
 * in a row, at most MAX_ERROR_RETRY_MS); none removed from the account. A number the upstream
 * refused ('paused') waits for a person.
 */
export async function dueNumbers(ctx: SyncContext): Promise<string[]> {
  const r = await ctx.db.query<{ number: string }>(
    `SELECT number FROM index_numbers
     WHERE removed_at IS NULL AND (state = 'queued'
       OR (state = 'syncing' AND (locked_at IS NULL OR locked_at < now() - make_interval(secs => $1::double precision / 1000)))
       OR (state = 'error' AND (failed_at IS NULL OR failed_at < now() - make_interval(secs =>
             least($3::double precision, $2::double precision * power(2, least(greatest(failures - 1, 0), 20))) / 1000))))
     ORDER BY number`,
    [ctx.leaseMs, ctx.errorRetryMs, MAX_ERROR_RETRY_MS],
  )
  return r.rows.map((x) => x.number)
}
