import type { IndexProgress } from '../../../contract/index-api.ts'
import type { Queryable } from '../../db/types.ts'
import type { SyncProgress } from './types.ts'

/** The account's indexing as a whole: numbers done, messages held and left, and this server's rate. */
export async function overallProgress(db: Queryable, mine: SyncProgress, now = Date.now()): Promise<IndexProgress> {
  const r = await db.query<{ total: number; done: number; messages: number; goal: number; running: number }>(
    `SELECT count(*)::int AS total,
            count(*) FILTER (WHERE full_done AND top_ordinal >= COALESCE(upstream_total, 0) AND state NOT IN ('error', 'paused'))::int AS done,
            COALESCE(sum(indexed), 0)::bigint::float8 AS messages,
            COALESCE(sum(GREATEST(COALESCE(upstream_total, 0), indexed)), 0)::bigint::float8 AS goal,
            count(*) FILTER (WHERE state IN ('queued', 'syncing'))::int AS running
     FROM index_numbers WHERE removed_at IS NULL`,
  )
  const x = r.rows[0] ?? { total: 0, done: 0, messages: 0, goal: 0, running: 0 }
  const seconds = mine.since === null ? 0 : (now - mine.since) / 1000
  const rate = seconds >= 1 && mine.messages > 0 ? mine.messages / seconds : null
  const left = Math.max(0, x.goal - x.messages)
  return {
    numbersTotal: x.total,
    numbersDone: x.done,
    messages: x.messages,
    messagesTotal: x.goal,
    ratePerSecond: rate === null ? null : Math.round(rate),
    secondsLeft: rate === null || left === 0 ? null : Math.ceil(left / rate),
    running: x.running > 0,
  }
}
