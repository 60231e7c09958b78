import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAccess, type Access } from '../access/access.ts'
import { accessConfigFrom } from '../access/config.ts'
import type { OpenedDb } from '../db/open.ts'
import { ENGINES, useEngines, type Engine } from '../testing/engines.ts'
import { verify } from './signing.ts'
import { insertChannel } from './sql/channels-write.ts'
import {
  clearAlerts,
  headVerifies,
  newClock,
  openAlerts,
  SECRET,
  startReceiver,
  testConfig,
  type Clock,
  type Receiver,
} from '../testing/alert-receivers.ts'
import type { LogHead } from './types.ts'

/**
 * The daily witness notice on both engines, with the real access room's signing key and a real
 * loopback receiver per channel: once per UTC day whatever the number of evaluations (the clock
 * moved, never slept), only to channels marked as witnesses, a head whose signature verifies with
 * the key it carries and that names the log's real head, nothing without a key, and one notice a
 * day when two servers try at once.
 */

const engines = useEngines()
const HOUR = 3_600_000
const OTHER_SECRET = 'whsec_QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3'

type Body = { type: string; data: { type: string; alerts: unknown[]; head: LogHead } & Record<string, unknown> }

describe.each(ENGINES)('witnesses of the access log on %s', (engine: Engine) => {
  let db: OpenedDb
  let dir: string
  let witness: Receiver
  let bystander: Receiver
  let clock: Clock
  let access: Access
  const bodies = (r: Receiver) => r.got.map((g) => JSON.parse(g.body) as Body)
  const open = (more: { signing?: boolean } = {}) =>
    openAlerts(
      db,
      // The server's own webhook is not a witness; the channel saved below is.
      testConfig([{ id: 'env-webhook', kind: 'webhook', name: 'hook', target: bystander.url, secret: SECRET }]),
      clock,
      { latestSignedHead: more.signing === false ? null : access.latestSignedHead },
    )
  const saveWitness = () =>
    insertChannel(db, 'webhook', {
      name: 'auditor',
      target: witness.url,
      secret: OTHER_SECRET,
      enabled: true,
      details: true,
      witness: true,
      quietStart: null,
      quietEnd: null,
      quietZone: 'UTC',
    })

  beforeEach(async () => {
    db ??= await engines.open(engine)
    dir ??= mkdtempSync(join(tmpdir(), 'sb-witness-'))
    await clearAlerts(db)
    witness = await startReceiver()
    bystander = await startReceiver()
    clock = newClock()
    access = createAccess(accessConfigFrom({ ACCESS: 'password', LOG_SIGNING_KEY_FILE: join(dir, 'log.key') }), {
      db,
      log: () => {},
      now: () => clock.now,
    })
    await access.audit({ name: 'ada', role: 'admin', via: 'password' }, '127.0.0.1', 'alerts.rule', { rule: 'sync-failing' })
  }, 60_000)
  afterEach(async () => {
    await access.close()
    await witness.close()
    await bystander.close()
  })
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('sends the signed head once a UTC day, to the witness only, verifiable with the key it carries', async () => {
    await saveWitness()
    const alerts = open()
    expect(await alerts.witnessDue()).toBe(1)
    await alerts.drain()
    // Evaluations through the rest of the day send nothing more.
    for (let i = 0; i < 5; i++) {
      clock.now += 2 * HOUR
      expect(await alerts.witnessDue()).toBe(0)
      await alerts.drain()
    }
    expect(witness.got).toHaveLength(1)
    // 2026-06-02T00:00 has passed: the next day's notice.
    clock.now = Date.parse('2026-06-02T00:00:30Z')
    expect(await alerts.witnessDue()).toBe(1)
    await alerts.drain()
    expect(witness.got).toHaveLength(2)
    expect(bystander.got).toHaveLength(0)

    for (const [i, got] of witness.got.entries()) {
      const body = bodies(witness)[i]!
      expect(body.type).toBe('log.head')
      const head = body.data.head
      expect(headVerifies(head), `day ${i + 1}`).toBe(true)
      // A changed field no longer verifies: the check above can fail.
      expect(headVerifies({ ...head, seq: String(BigInt(head.seq) + 1n) })).toBe(false)
      expect(
        verify(
          OTHER_SECRET,
          String(got.headers['webhook-id']),
          Number(got.headers['webhook-timestamp']),
          got.body,
          String(got.headers['webhook-signature']),
        ),
      ).toBe(true)
      // Nothing but the head: no alert, no number, no customer (the channel's details are on, and change nothing).
      expect(Object.keys(head).sort()).toEqual(['at', 'hash', 'publicKey', 'seq', 'sig'])
      expect(body.data.alerts).toEqual([])
      expect(got.body).not.toMatch(/phones|"number"/)
      // The head is the log's own: the entry at that place has that hash, and it is in the server's heads file too.
      const row = await db.query<{ hash: string }>(`SELECT hash FROM access_log WHERE seq = $1`, [head.seq])
      expect(row.rows[0]?.hash).toBe(head.hash)
      expect(readFileSync(join(dir, 'log.key.heads'), 'utf8')).toContain(`"sig":"${head.sig}"`)
    }
    expect(bodies(witness)[0]!.data.head.at).toBe('2026-06-01T09:00:00.000Z')
    const ids = witness.got.map((g) => g.headers['webhook-id'])
    expect(new Set(ids).size).toBe(2)
    await alerts.close()
  })

  it('does nothing without a signing key, or without a witness', async () => {
    const keyless = open({ signing: false })
    await saveWitness()
    expect(await keyless.witnessDue()).toBe(0)
    await keyless.close()
    await db.query(`UPDATE alert_channels SET witness = false`)
    const alerts = open()
    expect(await alerts.witnessDue()).toBe(0)
    await alerts.drain()
    expect(witness.got).toHaveLength(0)
    expect(bystander.got).toHaveLength(0)
    expect((await db.query(`SELECT 1 FROM alert_checks WHERE name = 'witness'`)).rows).toHaveLength(0)
    await alerts.close()
  })

  it('writes one day’s notice once when two servers try at the same moment', async () => {
    await saveWitness()
    const other = engine === 'postgres' ? await engines.reopen(db) : db
    const a = open()
    const b = openAlerts(other, testConfig([]), clock, { latestSignedHead: access.latestSignedHead })
    const written = await Promise.all([a.witnessDue(), b.witnessDue()])
    expect(written.sort()).toEqual([0, 1])
    await Promise.all([a.drain(), b.drain()])
    expect(witness.got).toHaveLength(1)
    await a.close()
    await b.close()
  })
})
