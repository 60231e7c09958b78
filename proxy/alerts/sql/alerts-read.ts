import type { Queryable } from '../../db/types.ts'

export interface AlertRow {
  id: string
  rule: string
  subject: string
  number: string | null
  state: 'firing' | 'resolved'
  title: string
  detail: string
  count: number | null
  link: string | null
  phones: string[] | null
  startedAt: string
  updatedAt: string
  resolvedAt: string | null
  notifiedAt: string | null
  ackedAt: string | null
  ackedBy: string | null
}

type Raw = {
  id: string
  rule: string
  subject: string
  number: string | null
  state: AlertRow['state']
  title: string
  detail: string
  count: number | null
  link: string | null
  private: unknown
  started_at: Date
  updated_at: Date
  resolved_at: Date | null
  notified_at: Date | null
  acked_at: Date | null
  acked_by: string | null
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString())

export const toAlert = (r: Raw): AlertRow => {
  const priv = typeof r.private === 'string' ? (JSON.parse(r.private) as unknown) : r.private
  return {
    id: r.id,
    rule: r.rule,
    subject: r.subject,
    number: r.number,
    state: r.state,
    title: r.title,
    detail: r.detail,
    count: r.count,
    link: r.link,
    phones: Array.isArray(priv) ? (priv as string[]) : null,
    startedAt: iso(r.started_at)!,
    updatedAt: iso(r.updated_at)!,
    resolvedAt: iso(r.resolved_at),
    notifiedAt: iso(r.notified_at),
    ackedAt: iso(r.acked_at),
    ackedBy: r.acked_by,
  }
}

export const ALERT_COLUMNS = `id::text AS id, rule, subject, number, state, title, detail, count, link, private, started_at, updated_at,
  resolved_at, notified_at, acked_at, acked_by`

export async function firingAlerts(db: Queryable): Promise<AlertRow[]> {
  return (
    await db.query<Raw>(`SELECT ${ALERT_COLUMNS} FROM alert_alerts WHERE state = 'firing' ORDER BY started_at DESC, id DESC`)
  ).rows.map(toAlert)
}

/** The history: the newest resolved alerts. */
export async function resolvedAlerts(db: Queryable, limit: number): Promise<AlertRow[]> {
  return (
    await db.query<Raw>(`SELECT ${ALERT_COLUMNS} FROM alert_alerts WHERE state = 'resolved' ORDER BY resolved_at DESC, id DESC LIMIT $1`, [
      limit,
    ])
  ).rows.map(toAlert)
}
