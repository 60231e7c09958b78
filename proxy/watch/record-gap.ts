import type { Db } from '../db/types.ts'

/**
 * A listing that failed: a gap in the history, never a "removed" for every number. The next
 * successful listing's changes carry a window from the last successful one, across the gap.
 */
export async function recordGap(db: Db, at: Date, error: string): Promise<void> {
  const prev = await db.query<{ at: Date }>(`SELECT at FROM watch_listings WHERE ok ORDER BY at DESC, id DESC LIMIT 1`)
  await db.query(`INSERT INTO watch_listings (at, ok, baseline, prev_at, error) VALUES ($1, false, false, $2, $3)`, [
    at,
    prev.rows[0]?.at ?? null,
    error.slice(0, 500),
  ])
}
