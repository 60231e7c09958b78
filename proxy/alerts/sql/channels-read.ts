import type { Queryable } from '../../db/types.ts'
import type { Channel } from '../types.ts'

type Row = {
  id: string
  kind: Channel['kind']
  name: string
  target: string
  secret: string | null
  enabled: boolean
  details: boolean
  witness: boolean
  quiet_start: number | null
  quiet_end: number | null
  quiet_zone: string
}

const toChannel = (r: Row): Channel => ({
  id: r.id,
  kind: r.kind,
  name: r.name,
  target: r.target,
  secret: r.secret,
  enabled: r.enabled,
  details: r.details,
  witness: r.witness,
  quietStart: r.quiet_start,
  quietEnd: r.quiet_end,
  quietZone: r.quiet_zone,
  source: 'ui',
})

const COLUMNS = `id::text AS id, kind, name, target, secret, enabled, details, witness, quiet_start, quiet_end, quiet_zone`

/** The channels saved in the UI (the server's own, from its configuration, are added by the room). */
export async function storedChannels(db: Queryable): Promise<Channel[]> {
  return (await db.query<Row>(`SELECT ${COLUMNS} FROM alert_channels ORDER BY id`)).rows.map(toChannel)
}

export async function storedChannel(db: Queryable, id: string): Promise<Channel | null> {
  if (!/^\d{1,18}$/.test(id)) return null
  const row = (await db.query<Row>(`SELECT ${COLUMNS} FROM alert_channels WHERE id = $1::bigint`, [id])).rows[0]
  return row ? toChannel(row) : null
}
