import type { Queryable } from '../../db/types.ts'
import type { ChannelKind } from '../types.ts'

export interface ChannelFields {
  name: string
  target: string
  /** undefined: keep the stored one. */
  secret?: string | null
  enabled: boolean
  details: boolean
  witness: boolean
  quietStart: number | null
  quietEnd: number | null
  quietZone: string
}

export async function insertChannel(db: Queryable, kind: ChannelKind, f: ChannelFields): Promise<string> {
  const r = await db.query<{ id: string }>(
    `INSERT INTO alert_channels (kind, name, target, secret, enabled, details, quiet_start, quiet_end, quiet_zone, witness)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id::text AS id`,
    [kind, f.name, f.target, f.secret ?? null, f.enabled, f.details, f.quietStart, f.quietEnd, f.quietZone, f.witness],
  )
  return r.rows[0]!.id
}

export async function updateChannel(db: Queryable, id: string, f: ChannelFields, now: Date): Promise<void> {
  await db.query(
    `UPDATE alert_channels SET name = $2, target = $3, secret = CASE WHEN $4::boolean THEN $5 ELSE secret END,
            enabled = $6, details = $7, quiet_start = $8, quiet_end = $9, quiet_zone = $10, updated_at = $11,
            witness = $12
      WHERE id = $1::bigint`,
    [
      id,
      f.name,
      f.target,
      f.secret !== undefined,
      f.secret ?? null,
      f.enabled,
      f.details,
      f.quietStart,
      f.quietEnd,
      f.quietZone,
      now,
      f.witness,
    ],
  )
}

/** Removes a channel; its pending notices are dead (there is nowhere left to send them). */
export async function deleteChannel(db: Queryable, id: string): Promise<void> {
  await db.query(`DELETE FROM alert_channels WHERE id = $1::bigint`, [id])
  await db.query(
    `UPDATE alert_outbox SET state = 'dead', last_error = 'The channel was removed.' WHERE channel = $1 AND state = 'pending'`,
    [id],
  )
}
