import type { Db } from '../../db/types.ts'
import { nextRun } from '../backoff.ts'
import type { Delivery } from '../types.ts'
import type { Claimed } from './outbox-claim.ts'

/**
 * An attempt's outcome: logged (when, status, time taken), and the row sent, rescheduled by the
 * back-off, or dead (at once when `retry` is false: a test notice, a channel that is gone). Only the claim's holder settles it: a claim taken over after its lease
 * passed belongs to the other server now.
 */
export async function settle(
  db: Db,
  row: Claimed,
  owner: string,
  d: Delivery,
  now: Date,
  opts: { retry: boolean } = { retry: true },
): Promise<'sent' | 'retry' | 'dead'> {
  const next = d.ok || !opts.retry ? null : nextRun(row.createdAt.getTime(), now.getTime(), row.attempts)
  const state = d.ok ? 'sent' : next === null ? 'dead' : 'retry'
  await db.transaction(async (tx) => {
    await tx.query(`INSERT INTO alert_attempts (outbox_id, at, status, ms, error) VALUES ($1::bigint, $2, $3, $4, $5)`, [
      row.id,
      now,
      d.status,
      d.ms,
      d.error?.slice(0, 500) ?? null,
    ])
    await tx.query(
      `UPDATE alert_outbox SET locked_by = NULL, locked_at = NULL,
              state = CASE $3 WHEN 'sent' THEN 'sent' WHEN 'dead' THEN 'dead' ELSE 'pending' END,
              sent_at = CASE WHEN $3 = 'sent' THEN $4::timestamptz ELSE sent_at END,
              run_at = COALESCE($5::timestamptz, run_at),
              last_error = $6
        WHERE id = $1::bigint AND locked_by = $2`,
      [row.id, owner, state, now, next === null ? null : new Date(next), d.error?.slice(0, 500) ?? null],
    )
  })
  return state
}
