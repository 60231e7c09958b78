import type { Queryable } from '../../db/types.ts'
import type { Condition } from '../types.ts'

/**
 * The callback watch's findings as kept by recordFinding (alert_findings). A change and an
 * expiring certificate hold for `holdHours` after the watch last said so; an endpoint fires after
 * `failures` failed checks in a row and, once firing, resolves only after `recoveries` good ones.
 */

type Row = { kind: string; subject: string; number: string | null; detail: string; at: Date; fails: number; goods: number }

/**
 * The findings any watch rule could fire on: an endpoint failing now or firing still (it resolves
 * on its good checks), and a change or a certificate said since `since`. Not every endpoint that
 * answers (a row per callback URL, a thousand on a large account, read at every evaluation).
 */
export async function watchRows(db: Queryable, only: { firing: ReadonlySet<string>; since: Date }): Promise<Row[]> {
  return (
    await db.query<Row>(
      `SELECT kind, subject, number, detail, at, fails, goods FROM alert_findings
        WHERE (kind = 'endpoint' AND (fails > 0 OR subject = ANY($1::text[]))) OR (kind <> 'endpoint' AND at >= $2)
        ORDER BY kind, subject`,
      [[...only.firing], only.since],
    )
  ).rows
}

const recent = (r: Row, hours: number, now: Date) => now.getTime() - new Date(r.at).getTime() < hours * 3_600_000

export function callbackChanged(rows: Row[], p: { holdHours: number }, now: Date): Condition[] {
  return rows
    .filter((r) => r.kind === 'callback.changed' && recent(r, p.holdHours, now))
    .map((r) => ({
      rule: 'callback-changed',
      subject: r.subject,
      number: r.number,
      title: 'Callback changed',
      detail: r.detail,
      count: null,
      link: '/alerts',
    }))
}

export function endpointFailing(rows: Row[], p: { failures: number; recoveries: number }, firing: ReadonlySet<string>): Condition[] {
  return rows
    .filter((r) => r.kind === 'endpoint' && (r.fails >= p.failures || (firing.has(r.subject) && r.goods < p.recoveries)))
    .map((r) => ({
      rule: 'endpoint-failing',
      subject: r.subject,
      number: r.number,
      title: 'Endpoint failing',
      detail:
        r.fails > 0
          ? `${r.fails} failed checks in a row: ${r.detail}`
          : `Recovering: ${r.goods} good check${r.goods === 1 ? '' : 's'} so far.`,
      count: r.fails,
      link: '/alerts',
    }))
}

/** The days left, when the watch's words give them ("expires in 9 days"); null when they do not. */
const daysIn = (detail: string) => {
  const m = /(\d+)\s*days?/i.exec(detail)
  return m ? Number(m[1]) : null
}

export function certExpiring(rows: Row[], p: { days: number; holdHours: number }, now: Date): Condition[] {
  return rows
    .filter((r) => r.kind === 'cert.expiring' && recent(r, p.holdHours, now) && (daysIn(r.detail) ?? 0) <= p.days)
    .map((r) => ({
      rule: 'cert-expiring',
      subject: r.subject,
      number: r.number,
      title: 'Certificate expiring',
      detail: r.detail,
      count: daysIn(r.detail),
      link: '/alerts',
    }))
}
