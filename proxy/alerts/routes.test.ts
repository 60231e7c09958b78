import { mkdtempSync, rmSync } from 'node:fs'
import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { heldAnswers } from '../testing/answers.ts'
import { call, cookieFrom, TEST_SCRYPT } from '../testing/access-stack.ts'
import { addUser } from '../access/users.ts'
import { parseConfig } from '../config.ts'
import { ProxyError } from '../errors.ts'
import type { RequestContext } from '../http-types.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'
import { openRooms, roomsConfigIssues, type Rooms } from '../rooms.ts'
import { start, type Running } from '../server.ts'
import { verify } from './signing.ts'
import { SECRET, startReceiver, type Receiver } from '../testing/alert-receivers.ts'

/**
 * /api/alerts/* on the real server (team access, the rooms as server.ts composes them, a channel
 * from the server's configuration): who may read and change what, the schemas' refusals naming
 * their field, secrets that never come back, "Send a test" with a signature that verifies, and an
 * access-log entry for every change.
 */

const PASSWORD = 'Plinth-Harbour-Quietly-71'

describe('the alerts routes', () => {
  let dir: string
  let running: Running
  let rooms: Rooms
  let receiver: Receiver
  const cookies: Record<string, string> = {}

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-alerts-routes-'))
    await freshPgliteDir(join(dir, 'data'))
    receiver = await startReceiver()
    const env = {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_REQUESTS: '0',
      ACCESS: 'password',
      INDEX_AUTO_SYNC: 'off',
      DATA_DIR: join(dir, 'data'),
      PUBLIC_URL: 'https://switchboard.example.com/',
      ALERT_WEBHOOK_URL: receiver.url,
      ALERT_WEBHOOK_SECRET: SECRET,
      ALERT_ALLOWED_HOSTS: '127.0.0.1',
    }
    const config = parseConfig(env)
    const cfg = roomsConfigIssues(env, config)
    expect(cfg.issues).toEqual([])
    running = await start(config, {
      rooms: async (forwarder) => {
        rooms = await openRooms(cfg.config!, { forwarder, log: () => {} })
        return rooms
      },
    })
    for (const [name, role] of [
      ['vic', 'viewer'],
      ['ada', 'admin'],
    ] as const) {
      await addUser(rooms.db, { name, role, password: PASSWORD }, { now: new Date(), scrypt: TEST_SCRYPT })
      const r = await call(port(), 'POST', '/api/auth/signin', { json: { name, password: PASSWORD } })
      expect(r.status).toBe(200)
      cookies[name] = cookieFrom(r)
    }
  }, 120_000)

  afterAll(async () => {
    await running?.close()
    await receiver?.close()
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  const port = () => Number(new URL(running.url).port)
  // Every answer these tests get is held to the schema its row declares (contract/alerts-api.ts).
  const answers = heldAnswers(() => running.routes)
  const as = async (who: string, method: string, path: string, json?: unknown) => {
    const r = await call(port(), method, path, {
      headers: { cookie: cookies[who]!, origin: `http://127.0.0.1:${port()}` },
      ...(json === undefined ? {} : { json }),
    })
    answers.hold(method, path, r.status, () => r.json())
    return r
  }
  const actions = async () => {
    await rooms.access.flush()
    return (await rooms.db.query<{ action: string }>(`SELECT action FROM access_log WHERE action LIKE 'alerts.%' ORDER BY id`)).rows.map(
      (r) => r.action,
    )
  }

  it('lets anyone signed in read the page, the server’s channel shown as set, its secret and path never', async () => {
    expect((await call(port(), 'GET', '/api/alerts')).status).toBe(401)
    const r = await as('vic', 'GET', '/api/alerts')
    expect(r.status, r.text).toBe(200)
    const body = r.json() as unknown as {
      rules: Array<{ id: string; enabled: boolean }>
      channels: Array<Record<string, unknown>>
      firing: unknown[]
    }
    expect(body.rules).toHaveLength(12)
    expect(body.rules.every((x) => x.enabled)).toBe(true)
    expect(body.channels).toEqual([
      expect.objectContaining({ id: 'env-webhook', source: 'env', secret: 'set', target: `${new URL(receiver.url).origin}/…` }),
    ])
    expect(r.text).not.toContain(SECRET.slice(6))
    expect(r.text).not.toContain('/hook')
  })

  it('keeps changes to admins, refuses bad thresholds naming them, and logs each change', async () => {
    expect((await as('vic', 'POST', '/api/alerts/rules/failure-spike', { enabled: false })).status).toBe(403)
    const bad = await as('ada', 'POST', '/api/alerts/rules/failure-spike', { params: { minFailed: 0 } })
    expect(bad.status).toBe(400)
    expect(bad.json().error).toMatchObject({ field: 'minFailed', message: 'minFailed must be at least 1.' })
    const unknown = await as('ada', 'POST', '/api/alerts/rules/no-such-rule', { enabled: false })
    expect(unknown.status).toBe(404)
    const ok = await as('ada', 'POST', '/api/alerts/rules/customer-waiting', { params: { minutes: 30 }, urgent: true })
    expect(ok.status, ok.text).toBe(200)
    expect(ok.json().rule).toMatchObject({
      id: 'customer-waiting',
      title: 'Customer waiting',
      urgent: true,
      params: { minutes: 30, minThreads: 1 },
      updatedBy: 'ada',
    })
    expect(await actions()).toEqual(['alerts.rule'])
  })

  it('saves a webhook channel, shows its secret once, sends a signed test, and refuses private targets', async () => {
    const refused = await as('ada', 'POST', '/api/alerts/channels', { kind: 'webhook', name: 'LAN', target: 'http://10.1.2.3/hook' })
    expect(refused.status).toBe(400)
    expect(refused.json().error).toMatchObject({ field: 'target' })
    expect(refused.json().error!.message).toMatch(/private address.*ALERT_ALLOWED_HOSTS/)
    const made = await as('ada', 'POST', '/api/alerts/channels', {
      kind: 'webhook',
      name: 'Ops hook',
      target: receiver.url,
      details: false,
    })
    expect(made.status, made.text).toBe(201)
    const secret = made.json().secretOnce as string
    expect(secret).toMatch(/^whsec_/)
    const id = (made.json().channel as { id: string }).id
    const page = await as('ada', 'GET', '/api/alerts')
    expect(page.text).not.toContain(secret.slice(6))
    const test = await as('ada', 'POST', `/api/alerts/test/${id}`)
    expect(test.status, test.text).toBe(200)
    expect(test.json().result).toMatchObject({ ok: true, status: 200 })
    const got = receiver.got.at(-1)!
    expect(
      verify(
        secret,
        String(got.headers['webhook-id']),
        Number(got.headers['webhook-timestamp']),
        got.body,
        String(got.headers['webhook-signature']),
      ),
    ).toBe(true)
    expect(JSON.parse(got.body)).toMatchObject({ type: 'alert.test', data: { link: 'https://switchboard.example.com/alerts' } })
    // The delivery log shows it.
    const log = (await as('vic', 'GET', '/api/alerts')).json().deliveries as Array<{ channel: string; state: string; log: unknown[] }>
    expect(log[0]).toMatchObject({ channel: id, state: 'sent', log: [expect.objectContaining({ status: 200 })] })
    // Details on is a change the log names.
    const details = await as('ada', 'POST', `/api/alerts/channels/${id}`, { details: true })
    expect(details.status, details.text).toBe(200)
    expect(details.json().channel).toMatchObject({ details: true, secret: 'set' })
    expect((await as('ada', 'POST', '/api/alerts/channels/env-webhook', { name: 'x' })).status).toBe(409)
    expect((await as('ada', 'DELETE', `/api/alerts/channels/${id}`)).status).toBe(200)
    await rooms.access.flush()
    const entries = await rooms.db.query<{ action: string; details: unknown }>(
      `SELECT action, details FROM access_log WHERE action IN ('alerts.channel', 'alerts.test') ORDER BY id`,
    )
    expect(entries.rows.map((e) => e.action)).toEqual(['alerts.channel', 'alerts.test', 'alerts.channel', 'alerts.channel'])
    expect(JSON.stringify(entries.rows[2]!.details)).toContain('"details":true')
  })

  it('silences by rule or number until a time, and refuses an acknowledgement of nothing', async () => {
    const none = await as('ada', 'POST', '/api/alerts/silences', { until: new Date(Date.now() + 3_600_000).toISOString() })
    expect(none.status).toBe(400)
    const past = await as('ada', 'POST', '/api/alerts/silences', { rule: 'failure-spike', until: '2020-01-01T00:00:00Z' })
    expect(past.json().error).toMatchObject({ field: 'until' })
    const s = await as('ada', 'POST', '/api/alerts/silences', {
      number: '18005550101',
      until: new Date(Date.now() + 3_600_000).toISOString(),
    })
    expect(s.status, s.text).toBe(201)
    const id = (s.json().silence as { id: string }).id
    expect((await as('vic', 'GET', '/api/alerts')).json().silences).toHaveLength(1)
    expect((await as('ada', 'DELETE', `/api/alerts/silences/${id}`)).status).toBe(200)
    expect((await as('ada', 'POST', '/api/alerts/ack/999')).status).toBe(404)
    expect((await actions()).filter((a) => a === 'alerts.silence')).toHaveLength(2)
  })

  it('changes nothing when the access log cannot record the change (fail closed)', async () => {
    // The handlers as the app runs them, with an audit that cannot store its entry (as ctx.audit
    // rejects with a 503 when the log is unwritable): the refusal leaves, and nothing changed.
    const refused = new ProxyError(503, { kind: 'server_error', message: 'The access log could not record this change.' })
    const ctx: RequestContext = {
      principal: { name: 'ada', role: 'admin', via: 'password' },
      address: '127.0.0.1',
      audit: () => Promise.reject(refused),
      logRead: () => Promise.resolve(),
    }
    const run = (method: string, path: string, input: { body?: unknown; params?: unknown }) => {
      const row = rooms.alerts.routes.find((r) => r.method === method && r.path === path)!
      const req = new IncomingMessage(new Socket())
      return row.handle(req, new ServerResponse(req), new URL(`http://127.0.0.1${path}`), ctx, {
        query: {},
        body: input.body,
        params: input.params,
      })
    }
    await expect(run('POST', '/api/alerts/rules/:id', { body: { enabled: false }, params: { id: 'sync-failing' } })).rejects.toBe(refused)
    await expect(run('POST', '/api/alerts/channels', { body: { kind: 'webhook', name: 'Unlogged', target: receiver.url } })).rejects.toBe(
      refused,
    )
    await expect(
      run('POST', '/api/alerts/silences', { body: { rule: 'sync-failing', until: new Date(Date.now() + 3_600_000).toISOString() } }),
    ).rejects.toBe(refused)
    const page = (await as('vic', 'GET', '/api/alerts')).json() as unknown as {
      rules: Array<{ id: string; enabled: boolean }>
      channels: Array<{ name: string }>
      silences: unknown[]
    }
    expect(page.rules.find((r) => r.id === 'sync-failing')?.enabled).toBe(true)
    expect(page.channels.map((c) => c.name)).not.toContain('Unlogged')
    expect(page.silences).toEqual([])
  })

  it('answered every route as contract/alerts-api.ts describes it', async () => {
    // Something to fire on (and acknowledge): a number paused because the credentials were refused.
    await rooms.db.query(`INSERT INTO index_numbers (number, tid, state, error) VALUES ('15550001212', 'TACK1', 'paused', $1)`, [
      'The messaging service refused the credentials (API_AUTH_TOKEN).',
    ])
    expect((await as('ada', 'POST', '/api/alerts/evaluate')).status).toBe(200)
    const firing = (await as('vic', 'GET', '/api/alerts')).json().firing as Array<{ id: string }>
    expect(firing.length, 'an alert firing to acknowledge').toBeGreaterThan(0)
    expect((await as('ada', 'POST', `/api/alerts/ack/${firing[0]!.id}`)).status).toBe(200)
    // The witness route answers on a server with a signing key: witness-routes.test.ts holds it.
    expect(answers.unheld('/api/alerts').filter((k) => k !== 'POST /api/alerts/witness')).toEqual([])
  })
})
