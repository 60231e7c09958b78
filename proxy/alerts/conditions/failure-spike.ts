import type { Queryable } from '../../db/types.ts'
import type { Condition } from '../types.ts'

/**
 * Outbound messages the provider refused (status 400 and up), per number, over the window, from
 * the index's quarter-hour roll-ups (index_quarter_hours.failed_out, kept by the sync): a few rows
 * per number rather than its messages. A spike is a count and a rate over the minimums, at a
 * volume worth judging, and the rate `factor` times the number's own trailing rate (a number that
 * always fails a third of its sends is not spiking at a third).
 */
export async function failureSpikes(
  db: Queryable,
  p: { windowMinutes: number; minOutbound: number; minFailed: number; minRate: number; baselineHours: number; factor: number },
  now: Date,
): Promise<Condition[]> {
  // The slot holding `now - window` counts whole: roll-ups are per quarter hour.
  const from = new Date(Math.floor((now.getTime() - p.windowMinutes * 60_000) / 900_000) * 900_000)
  const baseFrom = new Date(from.getTime() - p.baselineHours * 3_600_000)
  const r = await db.query<{ number: string; outbound: number; failed: number; b_out: number; b_failed: number }>(
    `WITH win AS (
       SELECT number, sum(outbound)::int AS outbound, sum(failed_out)::int AS failed
         FROM index_quarter_hours WHERE slot >= $1 AND slot <= $2 GROUP BY number
     )
     SELECT w.number, w.outbound, w.failed,
            COALESCE(b.outbound, 0)::int AS b_out, COALESCE(b.failed, 0)::int AS b_failed
       FROM win w
       LEFT JOIN LATERAL (
         SELECT sum(q.outbound) AS outbound, sum(q.failed_out) AS failed FROM index_quarter_hours q
          WHERE q.number = w.number AND q.slot >= $3 AND q.slot < $1
       ) b ON true
      WHERE w.outbound >= $4 AND w.failed >= $5 AND w.failed::float8 / w.outbound >= $6
      ORDER BY w.number`,
    [from, now, baseFrom, p.minOutbound, p.minFailed, p.minRate],
  )
  const day = from.toISOString().slice(0, 10)
  return r.rows
    .filter((x) => {
      const base = x.b_out > 0 ? x.b_failed / x.b_out : 0
      return x.failed / x.outbound >= base * p.factor
    })
    .map((x) => {
      const pct = Math.round((x.failed / x.outbound) * 100)
      const base = x.b_out > 0 ? Math.round((x.b_failed / x.b_out) * 1000) / 10 : 0
      return {
        rule: 'failure-spike',
        subject: x.number,
        number: x.number,
        title: 'Failure spike',
        detail: `${x.failed} of ${x.outbound} outbound messages refused in the last ${p.windowMinutes} min (${pct}%, usually ${base}%).`,
        count: x.failed,
        link: `/search?${new URLSearchParams({ numbers: x.number, dir: 'outbound', status: 'error', from: day, tz: 'utc' })}`,
      }
    })
}
