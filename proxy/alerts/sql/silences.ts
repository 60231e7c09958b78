import type { Queryable } from '../../db/types.ts'

export interface Silence {
  id: string
  rule: string | null
  number: string | null
  until: string
  createdBy: string
  createdAt: string
}

export async function addSilence(
  db: Queryable,
  s: { rule: string | null; number: string | null; until: Date; by: string; now: Date },
): Promise<string> {
  const r = await db.query<{ id: string }>(
    `INSERT INTO alert_silences (rule, number, until, created_by, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id::text AS id`,
    [s.rule, s.number, s.until, s.by, s.now],
  )
  return r.rows[0]!.id
}

export async function endSilence(db: Queryable, id: string): Promise<boolean> {
  return (await db.query(`DELETE FROM alert_silences WHERE id = $1::bigint RETURNING id`, [id])).rows.length > 0
}

/** Silences in force at `now`. */
export async function activeSilences(db: Queryable, now: Date): Promise<Silence[]> {
  const r = await db.query<{ id: string; rule: string | null; number: string | null; until: Date; created_by: string; created_at: Date }>(
    `SELECT id::text AS id, rule, number, until, created_by, created_at FROM alert_silences WHERE until > $1 ORDER BY until, id`,
    [now],
  )
  return r.rows.map((x) => ({
    id: x.id,
    rule: x.rule,
    number: x.number,
    until: new Date(x.until).toISOString(),
    createdBy: x.created_by,
    createdAt: new Date(x.created_at).toISOString(),
  }))
}

/** Whether a silence covers this rule and number: by rule, by number, or by both together. */
export const silenced = (list: readonly Pick<Silence, 'rule' | 'number'>[], rule: string, number: string | null) =>
  list.some((s) => (s.rule === null || s.rule === rule) && (s.number === null || s.number === number))
