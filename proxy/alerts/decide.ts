import type { Db, Queryable } from '../db/types.ts'
import { releaseAt } from './quiet-hours.ts'
import { RULES, type RuleId, type RuleRow } from './rules.ts'
import { ALERT_COLUMNS, toAlert, type AlertRow } from './sql/alerts-read.ts'
import { enqueueNotice } from './sql/outbox-enqueue.ts'
import { activeSilences, silenced } from './sql/silences.ts'
import type { Channel, Condition, Notice, NoticeAlert } from './types.ts'

/**
 * The lifecycle, decided in one transaction with the notices it calls for: an alert opens when
 * its rule's condition holds for a subject (one firing row per rule and subject: the dedup key),
 * is updated while it holds, and resolves when it stops. Notices, one per rule per channel, so the
 * numbers that fire together in one evaluation share one:
 * - firing: an alert with no notice yet, unless silenced (a silence that ends lets it out then);
 * - reminder: a firing alert, not acknowledged, not silenced, last notified a rule's interval ago;
 * - resolved: an alert that had a notice and resolves now.
 * Each notice goes to the outbox in the same transaction as the decision, so a crash loses
 * neither; two servers evaluating at once take turns on a transaction-scoped advisory lock.
 */

/** Arbitrary constant: the advisory-lock key of the alerts' evaluation (the migrations' is 7_349_210_001). */
const EVAL_LOCK_KEY = 7_349_210_620

export interface Decided {
  opened: number
  resolved: number
  notices: number
}

export interface DecideInput {
  rules: readonly RuleRow[]
  conditions: readonly Condition[]
  evaluated: ReadonlySet<RuleId>
  channels: readonly Channel[]
  now: Date
  publicUrl: string | null
}

const keyOf = (rule: string, subject: string) => `${rule}\u0000${subject}`

function noticeAlert(a: AlertRow, base: string): NoticeAlert {
  return {
    id: a.id,
    subject: a.subject,
    number: a.number,
    title: a.title,
    detail: a.detail,
    count: a.count,
    since: a.startedAt,
    resolvedAt: a.resolvedAt,
    link: a.link === null ? null : `${base}${a.link}`,
    ...(a.phones ? { phones: a.phones } : {}),
  }
}

/** The notice as one channel gets it: customer phones only where its details are on. */
function forChannel(n: Notice, c: Channel): Notice {
  return c.details ? n : { ...n, alerts: n.alerts.map(({ phones: _phones, ...a }) => a) }
}

export async function enqueueForChannels(
  tx: Queryable,
  notice: Notice,
  kind: 'firing' | 'reminder' | 'resolved' | 'test',
  channels: readonly Channel[],
  now: Date,
): Promise<number> {
  let n = 0
  for (const c of channels) {
    if (!c.enabled) continue
    const at = notice.urgent || kind === 'test' ? now.getTime() : releaseAt(now.getTime(), c.quietStart, c.quietEnd, c.quietZone)
    await enqueueNotice(tx, { channel: c.id, kind, notice: forChannel(notice, c), runAt: new Date(at), now })
    n++
  }
  return n
}

export async function decide(db: Db, input: DecideInput): Promise<Decided> {
  const { now } = input
  const base = input.publicUrl ?? ''
  const rules = new Map(input.rules.map((r) => [r.id, r]))
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [EVAL_LOCK_KEY])
    const open = (
      await tx.query<Parameters<typeof toAlert>[0]>(`SELECT ${ALERT_COLUMNS} FROM alert_alerts WHERE state = 'firing'`)
    ).rows.map(toAlert)
    const byKey = new Map(open.map((a) => [keyOf(a.rule, a.subject), a]))
    const silences = await activeSilences(tx, now)
    const firing: AlertRow[] = []
    const resolvedNow: AlertRow[] = []
    // Each condition once (the first of a rule and subject), in the order the rules gave them.
    const held: Condition[] = []
    const seen = new Set<string>()
    for (const c of input.conditions) {
      const k = keyOf(c.rule, c.subject)
      if (seen.has(k)) continue
      seen.add(k)
      held.push(c)
    }
    // One statement for the alerts that still hold and one for those that open, not one per alert:
    // an evaluation with 212 open alerts spent about 240 ms on their UPDATEs, one by one.
    const columns = (cs: readonly Condition[]) => [
      cs.map((c) => c.title),
      cs.map((c) => c.detail),
      cs.map((c) => c.count),
      cs.map((c) => c.link),
      cs.map((c) => (c.phones && c.phones.length ? JSON.stringify(c.phones) : null)),
      cs.map((c) => c.number),
    ]
    const stillHeld = held.filter((c) => byKey.has(keyOf(c.rule, c.subject)))
    const opening = held.filter((c) => !byKey.has(keyOf(c.rule, c.subject)))
    const written = new Map<string, AlertRow>()
    if (stillHeld.length) {
      const r = await tx.query<Parameters<typeof toAlert>[0]>(
        `UPDATE alert_alerts SET title = u.u_title, detail = u.u_detail, count = u.u_count, link = u.u_link,
                private = u.u_private::jsonb, updated_at = $8, number = u.u_number
           FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[])
                AS u(u_id, u_title, u_detail, u_count, u_link, u_private, u_number)
          WHERE id = u.u_id RETURNING ${ALERT_COLUMNS}`,
        [stillHeld.map((c) => byKey.get(keyOf(c.rule, c.subject))!.id), ...columns(stillHeld), now],
      )
      for (const row of r.rows.map(toAlert)) written.set(keyOf(row.rule, row.subject), row)
    }
    if (opening.length) {
      const r = await tx.query<Parameters<typeof toAlert>[0]>(
        `INSERT INTO alert_alerts (rule, subject, title, detail, count, link, private, number, started_at, updated_at)
         SELECT u_rule, u_subject, u_title, u_detail, u_count, u_link, u_private::jsonb, u_number, $9, $9
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[])
                AS u(u_rule, u_subject, u_title, u_detail, u_count, u_link, u_private, u_number)
         RETURNING ${ALERT_COLUMNS}`,
        [opening.map((c) => c.rule), opening.map((c) => c.subject), ...columns(opening), now],
      )
      for (const row of r.rows.map(toAlert)) written.set(keyOf(row.rule, row.subject), row)
    }
    for (const c of held) firing.push(written.get(keyOf(c.rule, c.subject))!)
    const opened = opening.length
    const resolving: AlertRow[] = []
    for (const a of open) {
      if (seen.has(keyOf(a.rule, a.subject))) continue
      const rule = rules.get(a.rule as RuleId)
      // An alert resolves when its rule read cleanly and no longer finds it, or when the rule is off.
      if (rule && rule.enabled && !input.evaluated.has(rule.id)) {
        firing.push(a)
        continue
      }
      resolving.push(a)
    }
    if (resolving.length) {
      const r = await tx.query<Parameters<typeof toAlert>[0]>(
        `UPDATE alert_alerts SET state = 'resolved', resolved_at = $2, updated_at = $2 WHERE id = ANY($1::bigint[]) RETURNING ${ALERT_COLUMNS}`,
        [resolving.map((a) => a.id), now],
      )
      const byId = new Map(r.rows.map(toAlert).map((a) => [a.id, a]))
      for (const a of resolving) resolvedNow.push(byId.get(a.id)!)
    }

    // The notices, grouped per rule and kind.
    const groups = new Map<string, { kind: 'firing' | 'reminder' | 'resolved'; rule: string; alerts: AlertRow[] }>()
    const add = (kind: 'firing' | 'reminder' | 'resolved', a: AlertRow) => {
      const k = `${kind}\u0000${a.rule}`
      const g = groups.get(k) ?? { kind, rule: a.rule, alerts: [] }
      g.alerts.push(a)
      groups.set(k, g)
    }
    for (const a of firing) {
      if (silenced(silences, a.rule, a.number)) continue
      if (a.notifiedAt === null) add('firing', a)
      else if (a.ackedAt === null) {
        const every = (rules.get(a.rule as RuleId)?.reminderMinutes ?? 240) * 60_000
        if (now.getTime() - Date.parse(a.notifiedAt) >= every) add('reminder', a)
      }
    }
    for (const a of resolvedNow) if (a.notifiedAt !== null && !silenced(silences, a.rule, a.number)) add('resolved', a)

    let notices = 0
    for (const g of groups.values()) {
      const rule = rules.get(g.rule as RuleId)
      const notice: Notice = {
        type: `alert.${g.kind}`,
        rule: g.rule,
        ruleTitle: RULES[g.rule as RuleId]?.title ?? g.rule,
        urgent: rule?.urgent ?? false,
        at: now.toISOString(),
        alerts: g.alerts.map((a) => noticeAlert(a, base)),
        link: `${base}/alerts`,
      }
      notices += await enqueueForChannels(tx, notice, g.kind, input.channels, now)
      await tx.query(`UPDATE alert_alerts SET notified_at = $2 WHERE id = ANY($1::bigint[])`, [g.alerts.map((a) => a.id), now])
    }
    return { opened, resolved: resolvedNow.length, notices }
  })
}
