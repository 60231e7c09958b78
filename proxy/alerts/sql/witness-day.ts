import type { Queryable } from '../../db/types.ts'

/**
 * The daily witness notice's day, kept in alert_checks (name 'witness'): when it was last sent,
 * and the head it carried. Servers sharing one PostgreSQL each try every interval; the claim is one
 * conditional upsert, so exactly one of them takes a given day.
 */

export async function lastDailyWitness(db: Queryable): Promise<Date | null> {
  const row = (await db.query<{ at: Date }>(`SELECT at FROM alert_checks WHERE name = 'witness'`)).rows[0]
  return row ? new Date(row.at) : null
}

/** Takes the day that starts at `dayStart` for this send (true), unless a send at or after `dayStart` took it already. */
export async function claimWitnessDay(tx: Queryable, at: Date, dayStart: Date, seq: string): Promise<boolean> {
  const r = await tx.query(
    `INSERT INTO alert_checks (name, at, ok, message) VALUES ('witness', $1, true, $2)
     ON CONFLICT (name) DO UPDATE SET at = excluded.at, ok = excluded.ok, message = excluded.message
      WHERE alert_checks.at < $3
     RETURNING name`,
    [at, `The signed head of entry ${seq} went to the witnesses.`, dayStart],
  )
  return r.rows.length === 1
}
