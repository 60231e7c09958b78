import type { Queryable } from '../../db/types.ts'
import { paramsOf, type RuleId, type RuleRow } from '../rules.ts'
import type { Condition } from '../types.ts'
import { accessLogBroken, type Verdict } from './access-log.ts'
import { customersWaiting, customersWaitingAll } from './customer-waiting.ts'
import { failureSpikes } from './failure-spike.ts'
import { sentAfterOptOut } from './sent-after-opt-out.ts'
import { credentialsRefused, indexBehind, syncFailing, syncStalled, upkeepRows } from './upkeep.ts'
import { callbackChanged, certExpiring, endpointFailing, watchRows } from './watch.ts'

export interface Gathered {
  conditions: Condition[]
  /** Rules that were read this time: only their alerts may resolve (a rule whose read failed keeps its alerts as they were). */
  evaluated: Set<RuleId>
  problems: string[]
}

/** What every enabled rule finds now. One rule's failure (a statement bound) leaves the others. */
export async function gatherConditions(
  db: Queryable,
  rules: readonly RuleRow[],
  now: Date,
  hooks: { verifyLog: (() => Promise<Verdict>) | null; firing: (rule: RuleId) => ReadonlySet<string> },
): Promise<Gathered> {
  const on = new Map(rules.filter((r) => r.enabled).map((r) => [r.id, r]))
  const out: Gathered = { conditions: [], evaluated: new Set(), problems: [] }
  const run = async (ids: RuleId[], fn: () => Promise<Condition[]>) => {
    if (!ids.some((id) => on.has(id))) return
    try {
      const found = await fn()
      out.conditions.push(...found.filter((c) => on.has(c.rule)))
      for (const id of ids) if (on.has(id)) out.evaluated.add(id)
    } catch (err) {
      out.problems.push(`${ids.join(', ')}: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  const p = <R extends RuleId>(id: R) => paramsOf(id, on.get(id)?.params)
  await run(['failure-spike'], () => failureSpikes(db, p('failure-spike'), now))
  await run(['customer-waiting'], () => customersWaiting(db, p('customer-waiting'), now))
  await run(['customer-waiting-all'], () => customersWaitingAll(db, p('customer-waiting-all'), now))
  await run(['sent-after-opt-out'], () => sentAfterOptOut(db, p('sent-after-opt-out'), now))
  await run(['sync-stalled', 'sync-failing', 'credentials-refused', 'index-behind'], async () => {
    const rows = await upkeepRows(db)
    return [
      ...syncStalled(rows, p('sync-stalled'), now),
      ...syncFailing(rows, p('sync-failing')),
      ...credentialsRefused(rows),
      ...indexBehind(rows, p('index-behind')),
    ]
  })
  await run(['access-log'], () => accessLogBroken(db, p('access-log'), now, hooks.verifyLog))
  await run(['callback-changed', 'endpoint-failing', 'cert-expiring'], async () => {
    const holdHours = Math.max(p('callback-changed').holdHours, p('cert-expiring').holdHours)
    const rows = await watchRows(db, { firing: hooks.firing('endpoint-failing'), since: new Date(now.getTime() - holdHours * 3_600_000) })
    return [
      ...callbackChanged(rows, p('callback-changed'), now),
      ...endpointFailing(rows, p('endpoint-failing'), hooks.firing('endpoint-failing')),
      ...certExpiring(rows, p('cert-expiring'), now),
    ]
  })
  return out
}
