import type { Queryable } from '../../db/types.ts'

/** How long a settled notice (sent or dead) and its attempts stay for the delivery log. */
export const KEEP_SETTLED_MS = 30 * 86_400_000

/**
 * Settled notices older than KEEP_SETTLED_MS go, with their attempts: a notice to a channel with
 * details on holds customer phones, which should not outlive the delivery log that explains it.
 */
export async function purgeSettled(db: Queryable, now: Date): Promise<number> {
  const r = await db.query(`DELETE FROM alert_outbox WHERE state <> 'pending' AND created_at < $1 RETURNING id`, [
    new Date(now.getTime() - KEEP_SETTLED_MS),
  ])
  return r.rows.length
}
