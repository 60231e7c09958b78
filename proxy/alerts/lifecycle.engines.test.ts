import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { OpenedDb } from '../db/open.ts'
import { ENGINES, useEngines, type Engine } from '../testing/engines.ts'
import type { Db } from '../db/types.ts'
import { addSilence } from './sql/silences.ts'
import { acknowledge } from './sql/ack.ts'
import {
  clearAlerts,
  newClock,
  openAlerts,
  SECRET,
  startReceiver,
  testConfig,
  type Clock,
  type Receiver,
} from '../testing/alert-receivers.ts'
import type { Condition, Notice } from './types.ts'
import { decide } from './decide.ts'
import type { RuleId, RuleRow } from './rules.ts'
import { insertChannel } from './sql/channels-write.ts'

/**
 * The lifecycle on both engines, each notice through a real loopback receiver: one notice per
 * firing, reminders, a resolved notice, grouping, acknowledgement, silences, quiet hours, and
 * customer phones only where a channel's details are on; the rules over the desk's, index's and
 * watch's tables and the access log's verification.
 */

const engines = useEngines()
const A = '18005550101'
const B = '18005550102'
const MIN = 60_000

async function spike(db: Db, number: string, at: number) {
  const slot = Math.floor(at / 900_000) * 900_000
  await db.query(`INSERT INTO index_quarter_hours (number, slot, inbound, outbound, failed, failed_out) VALUES ($1, $2, 0, 100, 40, 40)`, [
    number,
    new Date(slot),
  ])
}

const calm = (db: Db) => db.query(`DELETE FROM index_quarter_hours`)

describe.each(ENGINES)('the lifecycle on %s', (engine: Engine) => {
  let db: OpenedDb
  let receiver: Receiver
  let clock: Clock
  let verdict = { intact: true, message: 'The access log verifies.' }
  const notices = () => receiver.got.map((g) => (JSON.parse(g.body) as { data: Notice }).data)
  const open = (more: Parameters<typeof testConfig>[1] = {}) =>
    openAlerts(db, testConfig([{ id: 'env-webhook', kind: 'webhook', name: 'hook', target: receiver.url, secret: SECRET }], more), clock, {
      verifyLog: async () => verdict,
    })
  const round = async (alerts: ReturnType<typeof open>) => {
    const d = await alerts.evaluate()
    await alerts.drain()
    return d
  }

  beforeEach(async () => {
    db ??= await engines.open(engine)
    await clearAlerts(db)
    receiver = await startReceiver()
    clock = newClock()
    verdict = { intact: true, message: 'The access log verifies.' }
  }, 60_000) // the first opens a database: seconds of CPU on a shared machine
  afterEach(async () => {
    await receiver.close()
  })

  it('fires once, reminds at the rule’s interval, and resolves with a notice', async () => {
    const alerts = open()
    await spike(db, A, clock.now)
    expect(await round(alerts)).toMatchObject({ opened: 1, notices: 1 })
    clock.now += MIN
    expect(await round(alerts)).toMatchObject({ opened: 0, notices: 0 })
    clock.now += 59 * MIN
    // Still within the window (the spike's quarter hour is 60 min back): a reminder after 60 min.
    await spike(db, A, clock.now)
    expect(await round(alerts)).toMatchObject({ opened: 0, notices: 1 })
    await calm(db)
    clock.now += MIN
    expect(await round(alerts)).toMatchObject({ resolved: 1, notices: 1 })
    expect(notices().map((n) => n.type)).toEqual(['alert.firing', 'alert.reminder', 'alert.resolved'])
    const resolved = notices()[2]!.alerts[0]!
    expect(resolved.resolvedAt).toBe(new Date(clock.now).toISOString())
    // Nothing fires: nothing more is sent.
    clock.now += 600 * MIN
    expect(await round(alerts)).toMatchObject({ notices: 0 })
    expect(receiver.got).toHaveLength(3)
    await alerts.close()
  })

  it('puts the numbers that fire together in one notice', async () => {
    const alerts = open()
    await spike(db, A, clock.now)
    await spike(db, B, clock.now)
    expect(await round(alerts)).toMatchObject({ opened: 2, notices: 1 })
    expect(
      notices()[0]!
        .alerts.map((a) => a.number)
        .sort(),
    ).toEqual([A, B])
    await alerts.close()
  })

  it('keeps a silenced rule quiet until the silence ends, and a silenced number quiet while others fire', async () => {
    const alerts = open()
    await addSilence(db, {
      rule: 'failure-spike',
      number: null,
      until: new Date(clock.now + 30 * MIN),
      by: 'admin',
      now: new Date(clock.now),
    })
    await spike(db, A, clock.now)
    expect(await round(alerts)).toMatchObject({ opened: 1, notices: 0 })
    clock.now += 31 * MIN
    await spike(db, A, clock.now)
    // The silence is over and the alert still fires: its first notice goes now.
    expect(await round(alerts)).toMatchObject({ opened: 0, notices: 1 })
    await addSilence(db, { rule: null, number: B, until: new Date(clock.now + 600 * MIN), by: 'admin', now: new Date(clock.now) })
    await spike(db, B, clock.now)
    expect(await round(alerts)).toMatchObject({ opened: 1, notices: 0 })
    expect(notices().flatMap((n) => n.alerts.map((a) => a.number))).toEqual([A])
    await alerts.close()
  })

  it('stops reminders once acknowledged, and the acknowledgement clears itself on recovery', async () => {
    const alerts = open()
    await spike(db, A, clock.now)
    await round(alerts)
    const id = (await db.query<{ id: string }>(`SELECT id::text AS id FROM alert_alerts`)).rows[0]!.id
    expect(await acknowledge(db, id, 'admin', new Date(clock.now))).toBe(true)
    clock.now += 61 * MIN
    await spike(db, A, clock.now)
    expect(await round(alerts)).toMatchObject({ notices: 0 })
    await calm(db)
    clock.now += MIN
    expect(await round(alerts)).toMatchObject({ resolved: 1, notices: 1 })
    // Fires again: a new alert, not acknowledged, notified.
    clock.now += MIN
    await spike(db, A, clock.now)
    expect(await round(alerts)).toMatchObject({ opened: 1, notices: 1 })
    const rows = await db.query<{ state: string; acked: boolean }>(
      `SELECT state, acked_at IS NOT NULL AS acked FROM alert_alerts ORDER BY id`,
    )
    expect(rows.rows).toEqual([
      { state: 'resolved', acked: true },
      { state: 'firing', acked: false },
    ])
    expect(notices().map((n) => n.type)).toEqual(['alert.firing', 'alert.resolved', 'alert.firing'])
    await alerts.close()
  })

  it('holds a non-urgent notice through a channel’s quiet hours, and sends customer phones only where details are on', async () => {
    const quiet = await startReceiver()
    await insertChannel(db, 'webhook', {
      name: 'night desk',
      target: quiet.url,
      secret: SECRET,
      enabled: true,
      details: true,
      witness: false,
      quietStart: 8,
      quietEnd: 10,
      quietZone: 'UTC',
    })
    const alerts = open()
    // Two customers waiting since 06:00 (three hours at 09:00).
    for (const party of ['15550000001', '15550000002'])
      await db.query(`INSERT INTO desk_threads (number, party, waiting_since, unanswered, inbound) VALUES ($1, $2, $3, 1, 1)`, [
        A,
        party,
        new Date(clock.now - 180 * MIN),
      ])
    expect(await round(alerts)).toMatchObject({ opened: 1, notices: 2 })
    // The server's own channel has no quiet hours and no details: at once, no phones.
    expect(notices()).toHaveLength(1)
    const n = notices()[0]!
    expect(n.alerts[0]).toMatchObject({ number: A, count: 2, link: `https://switchboard.example.com/desk/needs-reply?number=${A}` })
    expect(JSON.stringify(n)).not.toContain('15550000001')
    expect(quiet.got).toHaveLength(0)
    clock.now += 61 * MIN
    await alerts.drain()
    expect(quiet.got).toHaveLength(1)
    const detailed = (JSON.parse(quiet.got[0]!.body) as { data: Notice }).data
    expect(detailed.alerts[0]!.phones).toEqual(['15550000001', '15550000002'])
    await quiet.close()
    await alerts.close()
  })

  it('fires one account-wide alert when customers waiting across all numbers reach its threshold, and resolves it when they drop below', async () => {
    const alerts = open()
    await db.query(`UPDATE alert_rules SET enabled = false WHERE id = 'customer-waiting'`)
    await db.query(
      `INSERT INTO alert_rules (id, params) VALUES ('customer-waiting-all', '{"minutes":60,"minThreads":3}')
       ON CONFLICT (id) DO UPDATE SET params = excluded.params`,
    )
    const wait = (number: string, party: string, minutes: number) =>
      db.query(`INSERT INTO desk_threads (number, party, waiting_since, unanswered, inbound) VALUES ($1, $2, $3, 1, 1)`, [
        number,
        party,
        new Date(clock.now - minutes * MIN),
      ])
    // Two waiting over the hour on A, one on B; one on B under the hour does not count.
    await wait(A, '15550000011', 200)
    await wait(A, '15550000012', 90)
    await wait(B, '15550000013', 30)
    expect(await round(alerts)).toMatchObject({ opened: 0 })
    await wait(B, '15550000014', 75)
    // A customer waiting on B's second line (contract/lines.ts): one more customer, still two numbers.
    await wait(`${B}~2`, '15550000015', 80)
    expect(await round(alerts)).toMatchObject({ opened: 1, notices: 1 })
    const n = notices()[0]!
    expect(n.rule).toBe('customer-waiting-all')
    expect(n.alerts[0]).toMatchObject({
      subject: 'all',
      number: null,
      count: 4,
      detail: '4 customers waiting longer than 60 min for a reply, on 2 numbers (longest 3 h 20 min).',
      link: 'https://switchboard.example.com/desk/needs-reply',
    })
    expect(JSON.stringify(n)).not.toContain('1555000001')
    // The per-number rule was off: nothing per number.
    expect((await db.query(`SELECT 1 FROM alert_alerts WHERE rule = 'customer-waiting'`)).rows).toHaveLength(0)
    await db.query(`UPDATE desk_threads SET waiting_since = NULL WHERE party IN ('15550000011', '15550000015')`)
    clock.now += MIN
    expect(await round(alerts)).toMatchObject({ resolved: 1 })
    await db.query(`UPDATE alert_rules SET params = '{"minutes":120,"minThreads":10}' WHERE id = 'customer-waiting-all'`)
    await alerts.close()
  })

  it('reads sends after opt-out, sync upkeep and the access log’s chain', async () => {
    const alerts = open()
    await db.query(
      `INSERT INTO desk_opt_periods (number, party, opt_ordinal, opt_date, sends, first_send, last_send) VALUES ($1, '15550000003', 4, $2, 2, $2, $3)`,
      [B, new Date(clock.now - 120 * MIN), new Date(clock.now - 60 * MIN)],
    )
    await db.query(
      `INSERT INTO index_numbers (number, tid, state, failures, error, upstream_total, indexed, locked_at) VALUES
         ($1, 't1', 'error', 4, 'The messaging service did not answer.', 10, 10, NULL),
         ($2, 't2', 'paused', 0, 'Paused: The messaging service rejected the account credentials. Check API_SYS_ID and API_AUTH_TOKEN.', 5000, 100, NULL),
         -- Idle and behind; syncing with no heartbeat for an hour; and three that fire nothing.
         ($3, 't3', 'idle', 0, NULL, 4000, 2000, NULL),
         ($4, 't4', 'syncing', 0, NULL, NULL, 0, $7),
         ($5, 't5', 'queued', 0, NULL, 9000, 0, NULL),
         ($6, 't6', 'idle', 0, NULL, 2500, 2000, NULL),
         ('18005550207', 't7', 'never', 0, NULL, NULL, 0, NULL)`,
      ['18005550201', '18005550202', '18005550203', '18005550204', '18005550205', '18005550206', new Date(clock.now - 60 * MIN)],
    )
    verdict = { intact: false, message: 'Entry 12 was changed after it was written.' }
    await round(alerts)
    const firing = await db.query<{ rule: string; subject: string }>(
      `SELECT rule, subject FROM alert_alerts WHERE state = 'firing' ORDER BY rule, subject`,
    )
    expect(firing.rows).toEqual([
      { rule: 'access-log', subject: 'all' },
      { rule: 'credentials-refused', subject: 'all' },
      { rule: 'index-behind', subject: '18005550202' },
      { rule: 'index-behind', subject: '18005550203' },
      { rule: 'sent-after-opt-out', subject: B },
      { rule: 'sync-failing', subject: '18005550201' },
      { rule: 'sync-stalled', subject: '18005550204' },
    ])
    expect(JSON.stringify(notices())).not.toContain('15550000003')
    // The chain is verified on its schedule (hourly by default), not at every evaluation.
    verdict = { intact: true, message: 'fine' }
    clock.now += 10 * MIN
    await round(alerts)
    expect((await db.query(`SELECT 1 FROM alert_alerts WHERE rule = 'access-log' AND state = 'firing'`)).rows).toHaveLength(1)
    clock.now += 50 * MIN
    await round(alerts)
    expect((await db.query(`SELECT 1 FROM alert_alerts WHERE rule = 'access-log' AND state = 'resolved'`)).rows).toHaveLength(1)
    await alerts.close()
  })

  it('fires on the watch’s findings: an endpoint after 3 failures in a row, resolved after 2 good checks', async () => {
    const alerts = open()
    const url = 'https://hooks.example.com/sms'
    const at = () => new Date(clock.now).toISOString()
    for (let i = 0; i < 2; i++) await alerts.onWatchFinding({ kind: 'endpoint.failing', url, number: A, detail: 'HTTP 500', at: at() })
    await round(alerts)
    expect(receiver.got).toHaveLength(0)
    await alerts.onWatchFinding({ kind: 'endpoint.failing', url, number: A, detail: 'HTTP 500', at: at() })
    await alerts.onWatchFinding({ kind: 'callback.changed', number: A, detail: 'The callback of 18005550101 changed.', at: at() })
    await alerts.onWatchFinding({ kind: 'cert.expiring', url, detail: 'The certificate expires in 9 days.', at: at() })
    await round(alerts)
    expect(
      notices()
        .map((n) => n.rule)
        .sort(),
    ).toEqual(['callback-changed', 'cert-expiring', 'endpoint-failing'])
    await alerts.onWatchFinding({ kind: 'endpoint.recovered', url, number: A, detail: 'HTTP 200', at: at() })
    expect(await round(alerts)).toMatchObject({ resolved: 0 })
    await alerts.onWatchFinding({ kind: 'endpoint.recovered', url, number: A, detail: 'HTTP 200', at: at() })
    expect(await round(alerts)).toMatchObject({ resolved: 1 })
    await alerts.close()
  })

  it('resolves the alerts of a rule turned off, and fires nothing for it', async () => {
    const alerts = open()
    await spike(db, A, clock.now)
    await round(alerts)
    await db.query(`UPDATE alert_rules SET enabled = false WHERE id = 'failure-spike'`)
    clock.now += MIN
    expect(await round(alerts)).toMatchObject({ resolved: 1 })
    await spike(db, B, clock.now)
    expect(await round(alerts)).toMatchObject({ opened: 0 })
    await alerts.close()
  })

  it('opens, updates and resolves hundreds of alerts at once, each row with its own condition', async () => {
    const rules: RuleRow[] = [
      { id: 'failure-spike', enabled: true, urgent: false, params: {}, reminderMinutes: 240, updatedAt: '', updatedBy: null },
    ]
    const numberOf = (i: number) => `1800555${String(i).padStart(4, '0')}`
    const condition = (i: number, round: number): Condition => ({
      rule: 'failure-spike',
      subject: numberOf(i),
      number: numberOf(i),
      title: `Failure spike · ${numberOf(i)}`,
      detail: `round ${round}: ${i} failed`,
      count: i * 10 + round,
      link: i % 2 ? `/numbers/${numberOf(i)}` : null,
      ...(i % 3 ? { phones: [`1212555${String(i).padStart(4, '0')}`] } : {}),
    })
    const input = (conditions: Condition[], at: number) => ({
      rules,
      conditions,
      evaluated: new Set<RuleId>(['failure-spike']),
      channels: [],
      now: new Date(at),
      publicUrl: null,
    })
    const rows = async () =>
      (
        await db.query<{ subject: string; state: string; detail: string; count: number; link: string | null; private: unknown }>(
          `SELECT subject, state, detail, count, link, private FROM alert_alerts ORDER BY subject`,
        )
      ).rows
    // 300 open together; the same condition twice in one evaluation counts once.
    const first = Array.from({ length: 300 }, (_, i) => condition(i, 1))
    expect(await decide(db, input([...first, condition(7, 9)], clock.now))).toMatchObject({ opened: 300, resolved: 0 })
    expect((await rows()).map((r) => [r.subject, r.detail, r.count])).toEqual(first.map((c) => [c.subject, c.detail, c.count]))
    // The next evaluation: 200 still hold with new figures, 100 open, the other 100 resolve.
    clock.now += MIN
    const second = Array.from({ length: 300 }, (_, i) => condition(i + 100, 2))
    expect(await decide(db, input(second, clock.now))).toMatchObject({ opened: 100, resolved: 100 })
    const after = await rows()
    expect(after).toHaveLength(400)
    for (const r of after) {
      const i = Number(r.subject.slice(-4))
      if (i < 100) expect(r).toMatchObject({ state: 'resolved', detail: `round 1: ${i} failed`, count: i * 10 + 1 })
      else
        expect(r).toEqual({
          subject: numberOf(i),
          state: 'firing',
          detail: `round 2: ${i} failed`,
          count: i * 10 + 2,
          link: i % 2 ? `/numbers/${numberOf(i)}` : null,
          private: i % 3 ? [`1212555${String(i).padStart(4, '0')}`] : null,
        })
    }
  })
})
