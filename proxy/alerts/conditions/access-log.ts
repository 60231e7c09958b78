import type { Queryable } from '../../db/types.ts'
import type { Condition } from '../types.ts'

/** What access.verifyLog answers (proxy/access/access-log.ts LogVerdict), as much of it as the rule reads. */
export interface Verdict {
  intact: boolean
  message: string
}

/**
 * The access log's chain, recomputed at most every `everyMinutes` (it reads the whole log); the
 * last verdict is kept in alert_checks so every evaluation in between, and another server, reads it.
 */
export async function accessLogBroken(
  db: Queryable,
  p: { everyMinutes: number },
  now: Date,
  verifyLog: (() => Promise<Verdict>) | null,
): Promise<Condition[]> {
  if (!verifyLog) return []
  const last = (
    await db.query<{ at: Date; ok: boolean; message: string }>(`SELECT at, ok, message FROM alert_checks WHERE name = 'access-log'`)
  ).rows[0]
  let verdict = last ? { ok: last.ok, message: last.message, at: new Date(last.at) } : null
  if (!verdict || now.getTime() - verdict.at.getTime() >= p.everyMinutes * 60_000) {
    let v: Verdict
    try {
      v = await verifyLog()
    } catch (err) {
      v = { intact: false, message: `The access log could not be verified: ${err instanceof Error ? err.message : String(err)}` }
    }
    verdict = { ok: v.intact, message: v.message.slice(0, 500), at: now }
    await db.query(
      `INSERT INTO alert_checks (name, at, ok, message) VALUES ('access-log', $1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET at = excluded.at, ok = excluded.ok, message = excluded.message`,
      [now, verdict.ok, verdict.message],
    )
  }
  if (verdict.ok) return []
  return [
    {
      rule: 'access-log',
      subject: 'all',
      number: null,
      title: 'Access log does not verify',
      detail: verdict.message,
      count: null,
      link: '/admin/access-log',
    },
  ]
}
