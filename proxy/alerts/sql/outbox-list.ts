import type { Queryable } from '../../db/types.ts'

export interface DeliveryRow {
  id: string
  key: string
  channel: string
  kind: string
  title: string
  state: 'pending' | 'sent' | 'dead'
  attempts: number
  runAt: string
  createdAt: string
  sentAt: string | null
  lastError: string | null
  log: Array<{ at: string; status: number | null; ms: number; error: string | null }>
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

/** The newest notices (every channel, or one), each with its attempts. */
export async function recentDeliveries(db: Queryable, limit: number, channel: string | null = null): Promise<DeliveryRow[]> {
  const r = await db.query<{
    id: string
    key: string
    channel: string
    kind: string
    title: string | null
    state: DeliveryRow['state']
    attempts: number
    run_at: Date
    created_at: Date
    sent_at: Date | null
    last_error: string | null
    log: Array<{ at: string; status: number | null; ms: number; error: string | null }> | string | null
  }>(
    `SELECT o.id::text AS id, o.key, o.channel, o.kind, o.payload->>'ruleTitle' AS title, o.state, o.attempts, o.run_at,
            o.created_at, o.sent_at, o.last_error,
            (SELECT COALESCE(json_agg(json_build_object('at', a.at, 'status', a.status, 'ms', a.ms, 'error', a.error) ORDER BY a.id), '[]'::json)
               FROM alert_attempts a WHERE a.outbox_id = o.id) AS log
       FROM alert_outbox o
      WHERE $2::text IS NULL OR o.channel = $2
      ORDER BY o.id DESC LIMIT $1`,
    [limit, channel],
  )
  return r.rows.map((x) => {
    const log = (typeof x.log === 'string' ? JSON.parse(x.log) : (x.log ?? [])) as DeliveryRow['log']
    return {
      id: x.id,
      key: x.key,
      channel: x.channel,
      kind: x.kind,
      title: x.title ?? '',
      state: x.state,
      attempts: x.attempts,
      runAt: iso(x.run_at)!,
      createdAt: iso(x.created_at)!,
      sentAt: iso(x.sent_at),
      lastError: x.last_error,
      log: log.map((l) => ({ ...l, at: new Date(l.at).toISOString() })),
    }
  })
}
