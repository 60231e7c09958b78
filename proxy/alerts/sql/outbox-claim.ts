import type { Queryable } from '../../db/types.ts'
import type { Notice } from '../types.ts'

export interface Claimed {
  id: string
  key: string
  channel: string
  kind: string
  notice: Notice
  attempts: number
  createdAt: Date
}

/**
 * Due notices claimed for `owner`: FOR UPDATE SKIP LOCKED lets two servers on one PostgreSQL
 * claim at once without waiting on or taking each other's rows, and the claim (locked_by,
 * locked_at) outlives the statement, so a row being sent is not claimed again until the lease
 * passes (a server killed mid-send: its row goes out again, with the same key). PGlite has one
 * connection, where the statement is simply alone.
 */
export async function claimDue(db: Queryable, owner: string, now: Date, limit: number, leaseMs: number): Promise<Claimed[]> {
  const r = await db.query<{ id: string; key: string; channel: string; kind: string; payload: Notice; attempts: number; created_at: Date }>(
    `UPDATE alert_outbox o SET locked_by = $1, locked_at = $2, attempts = o.attempts + 1
      WHERE o.id IN (
        SELECT id FROM alert_outbox
         WHERE state = 'pending' AND run_at <= $2
           AND (locked_at IS NULL OR locked_at < $2::timestamptz - make_interval(secs => $4::double precision / 1000))
         ORDER BY run_at, id
         LIMIT $3
         FOR UPDATE SKIP LOCKED)
      RETURNING o.id::text AS id, o.key, o.channel, o.kind, o.payload, o.attempts, o.created_at`,
    [owner, now, limit, leaseMs],
  )
  return r.rows.map((x) => ({
    id: x.id,
    key: x.key,
    channel: x.channel,
    kind: x.kind,
    notice: typeof x.payload === 'string' ? (JSON.parse(x.payload) as Notice) : x.payload,
    attempts: x.attempts,
    createdAt: new Date(x.created_at),
  }))
}
