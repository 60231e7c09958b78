import type { Queryable } from '../../db/types.ts'
import type { Condition } from '../types.ts'

/**
 * The index's upkeep, from its numbers' sync state (index_numbers: state, the lease's heartbeat
 * locked_at, failures in a row, the upstream's total against what is stored; migrations 001,
 * 004, 420). A refusal of the credentials pauses each number with words that name
 * API_AUTH_TOKEN (proxy/index/sync/fetch.ts): one account-wide alert, not one per number.
 */

type Row = { number: string; state: string; error: string | null; failures: number; locked_at: Date | null; behind: number | null }

/**
 * The numbers any upkeep rule could fire on: syncing (stalled), stopped by an error (failing),
 * paused (credentials), or behind. Not the rest: every evaluation read all 10,000 of a large
 * account, and building them held the server's thread (and its collector) for tens of ms.
 */
export async function upkeepRows(db: Queryable): Promise<Row[]> {
  return (
    await db.query<Row>(
      `SELECT number, state, error, failures, locked_at,
              CASE WHEN upstream_total IS NULL THEN NULL ELSE upstream_total - indexed END AS behind
         FROM index_numbers
        WHERE removed_at IS NULL AND forgotten_at IS NULL
          AND (state IN ('syncing', 'error', 'paused') OR (state <> 'queued' AND upstream_total - indexed > 0))
        ORDER BY number`,
    )
  ).rows
}

const INDEX_LINK = '/index'

export function syncStalled(rows: Row[], p: { minutes: number }, now: Date): Condition[] {
  const before = now.getTime() - p.minutes * 60_000
  return rows
    .filter((r) => r.state === 'syncing' && (r.locked_at === null || new Date(r.locked_at).getTime() < before))
    .map((r) => ({
      rule: 'sync-stalled',
      subject: r.number,
      number: r.number,
      title: 'Sync stalled',
      detail: `The sync of ${r.number} has not moved for more than ${p.minutes} min.`,
      count: null,
      link: INDEX_LINK,
    }))
}

export function syncFailing(rows: Row[], p: { failures: number }): Condition[] {
  return rows
    .filter((r) => r.state === 'error' && r.failures >= p.failures)
    .map((r) => ({
      rule: 'sync-failing',
      subject: r.number,
      number: r.number,
      title: 'Sync failing',
      detail: `The sync of ${r.number} failed ${r.failures} times in a row${r.error ? `: ${r.error.slice(0, 200)}` : '.'}`,
      count: r.failures,
      link: INDEX_LINK,
    }))
}

export function credentialsRefused(rows: Row[]): Condition[] {
  const refused = rows.filter((r) => r.state === 'paused' && /API_AUTH_TOKEN|credentials/i.test(r.error ?? ''))
  if (refused.length === 0) return []
  return [
    {
      rule: 'credentials-refused',
      subject: 'all',
      number: null,
      title: 'Credentials refused',
      detail: `The messaging service refused the account's credentials; ${refused.length} number${refused.length === 1 ? ' is' : 's are'} paused. Check API_SYS_ID and API_AUTH_TOKEN.`,
      count: refused.length,
      link: INDEX_LINK,
    },
  ]
}

export function indexBehind(rows: Row[], p: { messages: number }): Condition[] {
  return rows
    .filter((r) => r.state !== 'syncing' && r.state !== 'queued' && r.behind !== null && r.behind > p.messages)
    .map((r) => ({
      rule: 'index-behind',
      subject: r.number,
      number: r.number,
      title: 'Index behind',
      detail: `The index of ${r.number} holds ${r.behind} fewer messages than the messaging service reports.`,
      count: r.behind,
      link: INDEX_LINK,
    }))
}
