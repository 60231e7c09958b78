import type { Queryable } from '../../db/types.ts'
import { isRuleId, paramsOf, RULE_IDS, type RuleRow } from '../rules.ts'

/** Every rule, in the order of RULES; one missing from the table (a rule newer than its row) reads as on, with defaults. */
export async function readRules(db: Queryable): Promise<RuleRow[]> {
  const r = await db.query<{
    id: string
    enabled: boolean
    urgent: boolean
    params: unknown
    reminder_minutes: number
    updated_at: Date
    updated_by: string | null
  }>(`SELECT id, enabled, urgent, params, reminder_minutes, updated_at, updated_by FROM alert_rules`)
  const byId = new Map(r.rows.filter((x) => isRuleId(x.id)).map((x) => [x.id, x]))
  return RULE_IDS.map((id) => {
    const x = byId.get(id)
    const stored = typeof x?.params === 'string' ? JSON.parse(x.params) : x?.params
    return {
      id,
      enabled: x?.enabled ?? true,
      urgent: x?.urgent ?? false,
      params: paramsOf(id, stored) as Record<string, number>,
      reminderMinutes: x?.reminder_minutes ?? 240,
      updatedAt: new Date(x?.updated_at ?? 0).toISOString(),
      updatedBy: x?.updated_by ?? null,
    }
  })
}
