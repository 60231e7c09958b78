import type { Queryable } from '../../db/types.ts'
import type { Condition } from '../types.ts'

/**
 * Messages sent to a customer who had opted out, per number, whose last such send falls within
 * the look-back: the desk's opt-out periods (desk_opt_periods, migration 500) count them, the one
 * allowed confirmation left out.
 */
export async function sentAfterOptOut(db: Queryable, p: { lookbackHours: number }, now: Date): Promise<Condition[]> {
  const r = await db.query<{ number: string; sends: number; customers: number; last: Date; parties: string[] }>(
    `SELECT number, sum(sends)::int AS sends, count(DISTINCT party)::int AS customers, max(last_send) AS last,
            (array_agg(DISTINCT party))[1:5] AS parties
       FROM desk_opt_periods
      WHERE sends > 0 AND last_send >= $1
      GROUP BY number ORDER BY number`,
    [new Date(now.getTime() - p.lookbackHours * 3_600_000)],
  )
  return r.rows.map((x) => ({
    rule: 'sent-after-opt-out',
    subject: x.number,
    number: x.number,
    title: 'Sent after opt-out',
    detail: `${x.sends} message${x.sends === 1 ? '' : 's'} sent to ${x.customers} customer${x.customers === 1 ? '' : 's'} who had opted out (last at ${new Date(x.last).toISOString()}).`,
    count: x.sends,
    link: `/desk/opt-outs?${new URLSearchParams({ number: x.number, state: 'opted-out' })}`,
    phones: x.parties,
  }))
}
