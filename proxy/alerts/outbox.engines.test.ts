import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDb, type OpenedDb } from '../db/open.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'
import { ENGINES, useEngines, type Engine } from '../testing/engines.ts'
import type { Db } from '../db/types.ts'
import { verify } from './signing.ts'
import { claimDue } from './sql/outbox-claim.ts'
import { enqueueNotice } from './sql/outbox-enqueue.ts'
import {
  clearAlerts,
  newClock,
  openAlerts,
  SECRET,
  startMailbox,
  startReceiver,
  testConfig,
  type Receiver,
} from '../testing/alert-receivers.ts'
import type { Notice } from './types.ts'

/**
 * The outbox on both engines, against real receivers on loopback: every notice is written with
 * its decision and sent from the table, signed, retried with back-off under one idempotency key,
 * sent after a restart when the server stopped before sending, and sent once by two servers.
 */

const engines = useEngines()
const NUMBER = '18005550101'

/** A failure spike in the index's roll-ups for `number`: 60 refused of 100 in the last quarter hours, none before. */
async function spike(db: Db, number: string, at: number) {
  const slot = Math.floor(at / 900_000) * 900_000
  for (let i = 0; i < 2; i++)
    await db.query(`INSERT INTO index_quarter_hours (number, slot, inbound, outbound, failed, failed_out) VALUES ($1, $2, 0, 50, 30, 30)`, [
      number,
      new Date(slot - i * 900_000),
    ])
  await db.query(`INSERT INTO index_quarter_hours (number, slot, inbound, outbound, failed, failed_out) VALUES ($1, $2, 0, 500, 5, 5)`, [
    number,
    new Date(slot - 24 * 3_600_000),
  ])
}

const webhook = (r: Receiver) => ({ id: 'env-webhook' as const, kind: 'webhook' as const, name: 'hook', target: r.url, secret: SECRET })

describe.each(ENGINES)('the outbox on %s', (engine: Engine) => {
  let db: OpenedDb
  let receiver: Receiver
  beforeEach(async () => {
    db ??= await engines.open(engine)
    await clearAlerts(db)
    receiver = await startReceiver()
  }, 60_000) // the first opens a database: seconds of CPU on a shared machine
  afterEach(async () => {
    await receiver.close()
  })

  it('sends a firing as a signed webhook that verifies with the secret, with no customer phone or body', async () => {
    const clock = newClock()
    const alerts = openAlerts(db, testConfig([webhook(receiver)]), clock)
    await spike(db, NUMBER, clock.now)
    const d = await alerts.evaluate()
    expect(d).toMatchObject({ opened: 1, notices: 1 })
    // Written before it is sent: the row is there, pending.
    const pending = await db.query<{ state: string }>(`SELECT state FROM alert_outbox`)
    expect(pending.rows).toEqual([{ state: 'pending' }])
    expect(await alerts.drain()).toBe(1)
    expect(receiver.got).toHaveLength(1)
    const got = receiver.got[0]!
    const id = String(got.headers['webhook-id'])
    const ts = Number(got.headers['webhook-timestamp'])
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/)
    expect(ts).toBe(Math.floor(clock.now / 1000))
    expect(verify(SECRET, id, ts, got.body, String(got.headers['webhook-signature']))).toBe(true)
    expect(verify('whsec_' + Buffer.alloc(32, 1).toString('base64'), id, ts, got.body, String(got.headers['webhook-signature']))).toBe(
      false,
    )
    const body = JSON.parse(got.body) as { type: string; data: Notice }
    expect(body.type).toBe('alert.firing')
    expect(body.data.alerts).toHaveLength(1)
    expect(body.data.alerts[0]).toMatchObject({ number: NUMBER, title: 'Failure spike', count: 60 })
    expect(body.data.alerts[0]!.link).toBe(
      `https://switchboard.example.com/search?numbers=${NUMBER}&dir=outbound&status=error&from=2026-06-01&tz=utc`,
    )
    expect(body.data.alerts[0]).not.toHaveProperty('phones')
    const sent = await db.query<{ state: string; attempts: number }>(`SELECT state, attempts FROM alert_outbox`)
    expect(sent.rows).toEqual([{ state: 'sent', attempts: 1 }])
    // Nothing more to send: once.
    expect(await alerts.drain()).toBe(0)
    // A settled notice (it may hold customer phones) is kept 30 days for the delivery log, then goes.
    await db.query(`DELETE FROM index_quarter_hours`)
    clock.now += 29 * 86_400_000
    await alerts.evaluate()
    expect((await db.query(`SELECT 1 FROM alert_outbox WHERE kind = 'firing'`)).rows).toHaveLength(1)
    clock.now += 2 * 86_400_000
    await alerts.evaluate()
    expect((await db.query(`SELECT 1 FROM alert_outbox WHERE kind = 'firing'`)).rows).toHaveLength(0)
    expect((await db.query(`SELECT 1 FROM alert_attempts`)).rows).toHaveLength(0)
    await alerts.close()
  })

  it('retries a receiver that is down with back-off, then delivers once under the same key', async () => {
    const clock = newClock()
    const port = Number(new URL(receiver.url).port)
    const alerts = openAlerts(db, testConfig([webhook(receiver)]), clock)
    await spike(db, NUMBER, clock.now)
    await alerts.evaluate()
    receiver.status = 503
    expect(await alerts.drain()).toBe(1)
    // Not due again before its back-off (5 s).
    clock.now += 4_000
    expect(await alerts.drain()).toBe(0)
    clock.now += 1_000
    // The receiver is gone altogether now: connection refused.
    await receiver.close()
    expect(await alerts.drain()).toBe(1)
    const row = (
      await db.query<{ state: string; attempts: number; run_at: Date; last_error: string }>(
        `SELECT state, attempts, run_at, last_error FROM alert_outbox`,
      )
    ).rows[0]!
    expect(row).toMatchObject({ state: 'pending', attempts: 2 })
    expect(new Date(row.run_at).getTime()).toBe(clock.now + 60_000)
    expect(row.last_error).toMatch(/Could not reach 127\.0\.0\.1/)
    // Back on the same port, and answering.
    const again = await startReceiver(port)
    clock.now += 60_000
    expect(await alerts.drain()).toBe(1)
    expect(await alerts.drain()).toBe(0)
    const keys = [...receiver.got, ...again.got].map((g) => g.headers['webhook-id'])
    expect(keys).toHaveLength(2)
    expect(new Set(keys).size).toBe(1)
    expect(again.got).toHaveLength(1)
    const log = await db.query<{ status: number | null }>(`SELECT status FROM alert_attempts ORDER BY id`)
    expect(log.rows.map((r) => r.status)).toEqual([503, null, 200])
    expect((await db.query(`SELECT 1 FROM alert_outbox WHERE state = 'sent'`)).rows).toHaveLength(1)
    await again.close()
    await alerts.close()
  })

  it('marks a notice dead once 24 hours of retries have passed', async () => {
    const clock = newClock()
    const alerts = openAlerts(db, testConfig([webhook(receiver)]), clock)
    receiver.status = 500
    await spike(db, NUMBER, clock.now)
    await alerts.evaluate()
    let attempts = 0
    for (let i = 0; i < 20; i++) {
      attempts += await alerts.drain()
      const r = (await db.query<{ state: string; run_at: Date }>(`SELECT state, run_at FROM alert_outbox`)).rows[0]!
      if (r.state === 'dead') break
      clock.now = new Date(r.run_at).getTime()
    }
    const r = (await db.query<{ state: string; attempts: number }>(`SELECT state, attempts FROM alert_outbox`)).rows[0]!
    // 5 s, 1 min, 5 min, 30 min, 2 h, then 6 h three times: nine attempts in 24 h.
    expect(r).toEqual({ state: 'dead', attempts: 9 })
    expect(attempts).toBe(9)
    await alerts.close()
  })

  it('sends Slack its {text, blocks} and email through a real SMTP server, each with the idempotency key', async () => {
    const clock = newClock()
    const box = await startMailbox()
    const alerts = openAlerts(
      db,
      testConfig(
        [
          { id: 'env-slack', kind: 'slack', name: 'slack', target: receiver.url, secret: null },
          { id: 'env-email', kind: 'email', name: 'mail', target: 'team@example.com, ops@example.com', secret: null },
        ],
        { smtpUrl: box.url, from: 'Switchboard <alerts@example.com>' },
      ),
      clock,
    )
    await spike(db, NUMBER, clock.now)
    await spike(db, '18005550102', clock.now)
    expect(await alerts.evaluate()).toMatchObject({ opened: 2, notices: 2 })
    expect(await alerts.drain()).toBe(2)
    expect(receiver.got).toHaveLength(1)
    const slack = JSON.parse(receiver.got[0]!.body) as { text: string; blocks: Array<{ type: string }> }
    expect(slack.text).toBe('[Switchboard] Firing: Failure spike (2 alerts)')
    // Both numbers in one notice: a header, one section each, a link to the page.
    expect(slack.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context'])
    expect(receiver.got[0]!.headers['webhook-id']).toMatch(/^msg_/)
    expect(box.mails).toHaveLength(1)
    const mail = box.mails[0]!
    expect(mail.from).toBe('alerts@example.com')
    expect(mail.to.sort()).toEqual(['ops@example.com', 'team@example.com'])
    const key = (await db.query<{ key: string }>(`SELECT key FROM alert_outbox WHERE channel = 'env-email'`)).rows[0]!.key
    expect(mail.raw).toContain(`Message-ID: <${key}@example.com>`)
    expect(mail.raw).toContain('Subject: [Switchboard] Firing: Failure spike (2 alerts)')
    expect(mail.raw).toContain(NUMBER)
    await alerts.close()
    await box.close()
  })
})

describe('a notice pending when the server stops', { tags: ['long'] }, () => {
  const dirs: string[] = []
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  it.each(ENGINES)(
    'is sent by the next start on %s, once, and a claim of a server killed mid-send is taken over after its lease',
    async (engine) => {
      const receiver = await startReceiver()
      let db: OpenedDb
      let reopen: () => Promise<OpenedDb>
      if (engine === 'pglite') {
        const dir = mkdtempSync(join(tmpdir(), 'sb-alerts-'))
        dirs.push(dir)
        await freshPgliteDir(join(dir, 'data'))
        db = await openDb({ dataDir: join(dir, 'data') })
        reopen = () => openDb({ dataDir: join(dir, 'data') })
      } else {
        db = await engines.open(engine)
        const first = db
        reopen = () => engines.reopen(first)
      }
      await clearAlerts(db)
      const clock = newClock()
      const cfg = testConfig([webhook(receiver)])
      const first = openAlerts(db, cfg, clock)
      await spike(db, NUMBER, clock.now)
      await first.evaluate()
      // A second notice, claimed by a server that then died before sending it.
      await db.transaction((tx) =>
        enqueueNotice(tx, {
          channel: 'env-webhook',
          kind: 'firing',
          notice: {
            type: 'alert.firing',
            rule: 'test',
            ruleTitle: 'Claimed',
            urgent: true,
            at: new Date(clock.now).toISOString(),
            alerts: [],
            link: null,
          },
          runAt: new Date(clock.now),
          now: new Date(clock.now),
        }),
      )
      await first.close()
      const claimed = await claimDue(db, 'dead-server', new Date(clock.now), 1, 120_000)
      expect(claimed.map((c) => c.notice.ruleTitle)).toEqual(['Failure spike'])
      // The process stops here: nothing was sent.
      await db.close()
      expect(receiver.got).toHaveLength(0)

      const db2 = await reopen()
      const second = openAlerts(db2, cfg, clock)
      expect(await second.drain()).toBe(1)
      expect(receiver.got.map((g) => (JSON.parse(g.body) as { data: Notice }).data.ruleTitle)).toEqual(['Claimed'])
      // The dead server's claim holds for its lease, then this server takes it over, same key.
      clock.now += 121_000
      expect(await second.drain()).toBe(1)
      expect(await second.drain()).toBe(0)
      expect(receiver.got).toHaveLength(2)
      expect(receiver.got[1]!.headers['webhook-id']).toBe(claimed[0]!.key)
      await second.close()
      if (engine === 'pglite') await db2.close()
      await receiver.close()
    },
  )
})

describe('two servers on one PostgreSQL', () => {
  it('send each notice once', async () => {
    const receiver = await startReceiver()
    const db = await engines.open('postgres', { poolSize: 4 })
    await clearAlerts(db)
    const other = await engines.reopen(db)
    const clock = newClock()
    const cfg = testConfig([webhook(receiver)])
    const a = openAlerts(db, cfg, clock)
    const b = openAlerts(other, cfg, clock)
    await db.transaction(async (tx) => {
      for (let i = 0; i < 40; i++)
        await enqueueNotice(tx, {
          channel: 'env-webhook',
          kind: 'firing',
          notice: {
            type: 'alert.firing',
            rule: 'test',
            ruleTitle: `n${i}`,
            urgent: true,
            at: new Date(clock.now).toISOString(),
            alerts: [],
            link: null,
          },
          runAt: new Date(clock.now),
          now: new Date(clock.now),
        })
    })
    const [na, nb] = await Promise.all([a.drain(), b.drain()])
    expect(na + nb).toBe(40)
    expect(receiver.got).toHaveLength(40)
    expect(new Set(receiver.got.map((g) => g.headers['webhook-id'])).size).toBe(40)
    // Both evaluating at once open one alert and write one notice.
    await spike(db, NUMBER, clock.now)
    const [da, dbb] = await Promise.all([a.evaluate(), b.evaluate()])
    expect(da.opened + dbb.opened).toBe(1)
    expect(da.notices + dbb.notices).toBe(1)
    await a.close()
    await b.close()
    await receiver.close()
  })
})
