import type { Db } from '../db/types.ts'
import { appendRows, lockHead, rowOf } from './access-log.ts'

export const CHECKPOINT_ACTION = 'log.checkpoint'

/**
 * The retention purge, the one DELETE on the access log. It removes the oldest stretch of the
 * chain whose entries are all older than the cutoff, and in the same transaction appends a
 * checkpoint entry naming the last removed entry and its hash, so what remains still verifies.
 */
export async function purgeAccessLog(db: Db, retainDays: number, now: number): Promise<number> {
  const cutoff = new Date(now - retainDays * 86_400_000)
  return db.transaction(async (tx) => {
    const head = await lockHead(tx)
    const keep = await tx.query<{ seq: string | number | null }>(
      'SELECT min(seq) AS seq FROM access_log WHERE at >= $1 AND seq IS NOT NULL',
      [cutoff],
    )
    const firstKept = keep.rows[0]?.seq
    const through = firstKept === null || firstKept === undefined ? head.seq : BigInt(firstKept) - 1n
    if (through < 1n) return 0
    const last = await tx.query<{ hash: string }>('SELECT hash FROM access_log WHERE seq = $1', [String(through)])
    const removed = await tx.query('DELETE FROM access_log WHERE seq <= $1 RETURNING 1', [String(through)])
    if (removed.rows.length === 0) return 0
    await appendRows(tx, [
      rowOf({
        at: new Date(now),
        actor: 'switchboard',
        via: 'system',
        address: '',
        action: CHECKPOINT_ACTION,
        details: { prunedThrough: Number(through), prunedHash: last.rows[0]?.hash ?? null, pruned: removed.rows.length, retainDays },
      }),
    ])
    return removed.rows.length
  })
}
