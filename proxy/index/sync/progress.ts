import type { IndexProgress } from '../../../contract/index-api.ts'
import type { Queryable } from '../../db/types.ts'
import type { SyncProgress } from './types.ts'

/**
 * The account's indexing as a whole: numbers done, messages held and left, and this server's rate.
 * A number's total is learnt only when its sync first reads it, so while most of a large account
 * is still queued the known totals say almost nothing is left; each number not yet read counts as
 * the median of those read (not the mean: one million-message number would make every other
 * number look like a hundred thousand), so the time left comes from the measured rate from the
 * first minute instead of "not known yet" until the last numbers start.
 */
/** A row indexed whole: its walk holds the upstream's newest, and its last sync did not stop short. */
const DONE = (t: string) =>
  `(${t}.full_done AND ${t}.top_ordinal >= COALESCE(${t}.upstream_total, 0) AND ${t}.state NOT IN ('error', 'paused'))`

export async function overallProgress(db: Queryable, mine: SyncProgress, now = Date.now()): Promise<IndexProgress> {
  const r = await db.query<{
    total: number
    done: number
    messages: number
    goal: number
    running: number
    unread?: number
    median?: number | null
  }>(
    // Numbers, not lines: a number listed under a second tid that serves a history of its own (a
    // further line, contract/lines.ts) is one number, done when it and its lines are.
    `SELECT count(*) FILTER (WHERE line_of IS NULL)::int AS total,
            count(*) FILTER (WHERE line_of IS NULL AND ${DONE('n')} AND NOT EXISTS (
              SELECT 1 FROM index_numbers l WHERE l.line_of = n.number AND l.removed_at IS NULL AND NOT ${DONE('l')}))::int AS done,
            COALESCE(sum(indexed), 0)::bigint::float8 AS messages,
            COALESCE(sum(GREATEST(COALESCE(upstream_total, 0), indexed)), 0)::bigint::float8 AS goal,
            count(*) FILTER (WHERE state IN ('queued', 'syncing'))::int AS running,
            count(*) FILTER (WHERE upstream_total IS NULL AND NOT full_done)::int AS unread,
            (percentile_cont(0.5) WITHIN GROUP (ORDER BY upstream_total) FILTER (WHERE upstream_total IS NOT NULL))::float8 AS median
     FROM index_numbers n WHERE removed_at IS NULL`,
  )
  const x = r.rows[0] ?? { total: 0, done: 0, messages: 0, goal: 0, running: 0 }
  const seconds = mine.since === null ? 0 : (now - mine.since) / 1000
  const rate = seconds >= 1 && mine.messages > 0 ? mine.messages / seconds : null
  const left = Math.max(0, x.goal - x.messages) + Math.round((x.unread ?? 0) * (x.median ?? 0))
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
