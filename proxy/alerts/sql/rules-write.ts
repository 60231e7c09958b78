import type { Queryable } from '../../db/types.ts'
import type { RuleId } from '../rules.ts'

export async function writeRule(
  db: Queryable,
  id: RuleId,
  r: { enabled: boolean; urgent: boolean; params: Record<string, number>; reminderMinutes: number },
  by: string,
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO alert_rules (id, enabled, urgent, params, reminder_minutes, updated_at, updated_by)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7)
     ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled, urgent = excluded.urgent, params = excluded.params,
       reminder_minutes = excluded.reminder_minutes, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
    [id, r.enabled, r.urgent, JSON.stringify(r.params), r.reminderMinutes, now, by],
  )
}
