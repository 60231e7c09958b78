import type { Queryable } from '../../db/types.ts'

/**
 * Acknowledges a firing alert: no reminders until it resolves (the resolved notice still goes).
 * A new firing of the same rule and subject is a new row, unacknowledged. False when there is
 * no firing alert with that id.
 */
export async function acknowledge(db: Queryable, id: string, by: string, now: Date): Promise<boolean> {
  const r = await db.query(
    `UPDATE alert_alerts SET acked_at = $3, acked_by = $2 WHERE id = $1::bigint AND state = 'firing' AND acked_at IS NULL RETURNING id`,
    [id, by, now],
  )
  return r.rows.length > 0
}
