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
import { freshPgliteDir } from '../testing/pglite-template.ts'
import { ProxyError } from '../errors.ts'
import type { RequestContext } from '../http-types.ts'
import { openRooms, roomsConfigIssues, type Rooms } from '../rooms.ts'
import { start, type Running } from '../server.ts'
import { verify } from './signing.ts'
import { headVerifies, SECRET, startReceiver, type Receiver } from '../testing/alert-receivers.ts'
import type { LogHead } from './types.ts'

/**
 * "Send the signed head now" on the real server, composed as server.ts composes it (team access
 * with LOG_SIGNING_KEY_FILE, the access room's head handed to alerts by rooms.ts): admins only,
 * logged before anything is sent and not sent when it cannot be logged, one notice to each
 * witness through the outbox (a failed one retried with its key), none to another channel; and
 * a 409 in words from a server without a key.
 */

const PASSWORD = 'Plinth-Harbour-Quietly-71'

interface Server {
  running: Running
  rooms: Rooms
  port: () => number
}

async function serve(env: Record<string, string>, now?: () => number): Promise<Server> {
  const config = parseConfig(env)
  const cfg = roomsConfigIssues(env, config)
  expect(cfg.issues).toEqual([])
  let rooms: Rooms | undefined
  const running = await start(config, {
    rooms: async (forwarder) => {
      rooms = await openRooms(cfg.config!, { forwarder, log: () => {}, ...(now ? { now } : {}) })
      return rooms
    },
  })
  return { running, rooms: rooms!, port: () => Number(new URL(running.url).port) }
}

const baseEnv = (dir: string, hook: string) => ({
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_REQUESTS: '0',
  INDEX_AUTO_SYNC: 'off',
  DATA_DIR: join(dir, 'data'),
  ALERT_WEBHOOK_URL: hook,
  ALERT_WEBHOOK_SECRET: SECRET,
  ALERT_WITNESS: 'webhook',
  ALERT_ALLOWED_HOSTS: '127.0.0.1',
})

type Sent = { head: { seq: string; hash: string; at: string }; sent: Array<{ channel: string; ok: boolean; error: string | null }> }

describe('the signed head, sent on demand', () => {
  let dir: string
  let server: Server
  let witness: Receiver
  let bystander: Receiver
  let ahead = 0
  const cookies: Record<string, string> = {}

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-witness-routes-'))
    await freshPgliteDir(join(dir, 'data'))
    witness = await startReceiver()
    bystander = await startReceiver()
    server = await serve(
      { ...baseEnv(dir, witness.url), ACCESS: 'password', LOG_SIGNING_KEY_FILE: join(dir, 'log.key') },
      () => Date.now() + ahead,
    )
    for (const [name, role] of [
      ['vic', 'viewer'],
      ['abe', 'agent'],
      ['ada', 'admin'],
    ] as const) {
      await addUser(server.rooms.db, { name, role, password: PASSWORD }, { now: new Date(), scrypt: TEST_SCRYPT })
      const r = await call(server.port(), 'POST', '/api/auth/signin', { json: { name, password: PASSWORD } })
      expect(r.status).toBe(200)
      cookies[name] = cookieFrom(r)
    }
  }, 120_000)

  afterAll(async () => {
    await server?.running.close()
    await witness?.close()
    await bystander?.close()
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  // Every answer these tests get is held to the schema its row declares (contract/alerts-api.ts).
  const answers = heldAnswers(() => server.running.routes)
  const as = async (who: string, method: string, path: string, json?: unknown) => {
    const r = await call(server.port(), method, path, {
      headers: { cookie: cookies[who]!, origin: `http://127.0.0.1:${server.port()}` },
      ...(json === undefined ? {} : { json }),
    })
    answers.hold(method, path, r.status, () => r.json())
    return r
  }
  const logged = async (action: string) => {
    await server.rooms.access.flush()
    return (
      await server.rooms.db.query<{ seq: string; details: Record<string, unknown> }>(
        `SELECT seq::text AS seq, details FROM access_log WHERE action = $1 ORDER BY id`,
        [action],
      )
    ).rows
  }
  const outboxRows = async () => (await server.rooms.db.query(`SELECT 1 FROM alert_outbox WHERE kind = 'witness'`)).rows.length

  it('is an admin’s: a viewer and an agent get 403, and nothing is sent', async () => {
    for (const who of ['vic', 'abe']) {
      const r = await as(who, 'POST', '/api/alerts/witness')
      expect(r.status, who).toBe(403)
    }
    expect(witness.got).toHaveLength(0)
    expect(await outboxRows()).toBe(0)
  })

  it('lets an admin mark a saved channel as a witness and unmark it, each change logged', async () => {
    const made = await as('ada', 'POST', '/api/alerts/channels', { kind: 'webhook', name: 'Bystander', target: bystander.url })
    expect(made.status, made.text).toBe(201)
    const id = (made.json().channel as { id: string; witness: boolean }).id
    expect(made.json().channel).toMatchObject({ witness: false })
    const on = await as('ada', 'POST', `/api/alerts/channels/${id}`, { witness: true })
    expect(on.json().channel).toMatchObject({ witness: true })
    expect((await as('ada', 'POST', `/api/alerts/channels/${id}`, { witness: 'yes' })).json().error).toMatchObject({
      field: 'witness',
      message: 'witness must be true or false.',
    })
    expect((await as('vic', 'POST', `/api/alerts/channels/${id}`, { witness: false })).status).toBe(403)
    const off = await as('ada', 'POST', `/api/alerts/channels/${id}`, { witness: false })
    expect(off.json().channel).toMatchObject({ witness: false })
    const changes = (await logged('alerts.channel')).map((e) => e.details.witness)
    expect(changes.slice(-2)).toEqual([true, false])
    const page = (await as('vic', 'GET', '/api/alerts')).json() as unknown as {
      channels: Array<{ id: string; witness: boolean }>
      witness: { signing: boolean; lastDaily: string | null }
    }
    expect(page.channels.map((c) => [c.id, c.witness])).toEqual([
      ['env-webhook', true],
      [id, false],
    ])
    expect(page.witness).toEqual({ signing: true, lastDaily: null })
  })

  it('sends the head signed now to the witness, once, verifiable offline, and to no other channel', async () => {
    const r = await as('ada', 'POST', '/api/alerts/witness')
    expect(r.status, r.text).toBe(200)
    const answer = r.json() as unknown as Sent
    expect(answer.sent).toEqual([expect.objectContaining({ channel: 'env-webhook', ok: true })])
    expect(witness.got).toHaveLength(1)
    expect(bystander.got).toHaveLength(0)
    const got = witness.got[0]!
    expect(
      verify(
        SECRET,
        String(got.headers['webhook-id']),
        Number(got.headers['webhook-timestamp']),
        got.body,
        String(got.headers['webhook-signature']),
      ),
    ).toBe(true)
    const body = JSON.parse(got.body) as { type: string; data: { head: LogHead; alerts: unknown[] } }
    expect(body.type).toBe('log.head')
    expect(headVerifies(body.data.head)).toBe(true)
    expect(body.data.head).toMatchObject(answer.head)
    expect(body.data.alerts).toEqual([])
    // Signed after the request's own entry was stored: the head covers it.
    const [entry] = await logged('alerts.witness')
    expect(entry!.details).toEqual({ channels: ['env-webhook'] })
    expect(BigInt(body.data.head.seq)).toBeGreaterThanOrEqual(BigInt(entry!.seq))
    const row = await server.rooms.db.query<{ hash: string }>(`SELECT hash FROM access_log WHERE seq = $1`, [body.data.head.seq])
    expect(row.rows[0]?.hash).toBe(body.data.head.hash)
    // The delivery log shows it under the witness channel.
    const deliveries = (await as('vic', 'GET', '/api/alerts')).json().deliveries as Array<Record<string, unknown>>
    expect(deliveries[0]).toMatchObject({ channel: 'env-webhook', kind: 'witness', title: 'Signed head of the access log', state: 'sent' })
  })

  it('leaves a notice that failed to the outbox, which sends it again with the same key', async () => {
    const before = witness.got.length
    witness.status = 500
    const r = await as('ada', 'POST', '/api/alerts/witness')
    expect(r.status, r.text).toBe(200)
    expect((r.json() as unknown as Sent).sent).toEqual([expect.objectContaining({ ok: false, error: 'The receiver answered HTTP 500.' })])
    witness.status = 200
    // The first retry is due 5 s later: the server's clock moves on, and its sender (every second) takes it.
    ahead += 10_000
    for (let i = 0; i < 100 && witness.got.length < before + 2; i++) await new Promise((ok) => setTimeout(ok, 50))
    const [first, again] = witness.got.slice(before)
    expect(again, 'the retry').toBeDefined()
    expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id'])
    expect(JSON.parse(again!.body).data).toEqual(JSON.parse(first!.body).data)
  })

  it('answered the witness route as contract/alerts-api.ts describes it', () => {
    expect(answers.held.has('POST /api/alerts/witness')).toBe(true)
  })

  it('sends nothing when the access log cannot record the request (fail closed)', async () => {
    const refused = new ProxyError(503, { kind: 'server_error', message: 'The access log could not record this change.' })
    const ctx: RequestContext = {
      principal: { name: 'ada', role: 'admin', via: 'password' },
      address: '127.0.0.1',
      audit: () => Promise.reject(refused),
      logRead: () => Promise.resolve(),
    }
    const row = server.rooms.alerts.routes.find((x) => x.method === 'POST' && x.path === '/api/alerts/witness')!
    const req = new IncomingMessage(new Socket())
    const before = { got: witness.got.length, rows: await outboxRows() }
    await expect(
      row.handle(req, new ServerResponse(req), new URL('http://127.0.0.1/api/alerts/witness'), ctx, {
        query: {},
        body: undefined,
        params: undefined,
      }),
    ).rejects.toBe(refused)
    expect(witness.got.length).toBe(before.got)
    expect(await outboxRows()).toBe(before.rows)
  })

  it('answers 409 in words on a server without a signing key, and its page says there is no signed head', async () => {
    const keyless = mkdtempSync(join(tmpdir(), 'sb-witness-keyless-'))
    await freshPgliteDir(join(keyless, 'data'))
    const other = await serve({ ...baseEnv(keyless, witness.url), ACCESS: 'local' })
    try {
      const origin = { origin: `http://127.0.0.1:${other.port()}` }
      const r = await call(other.port(), 'POST', '/api/alerts/witness', { headers: origin })
      expect(r.status).toBe(409)
      expect(r.json().error!.message).toMatch(/no signed head to send: the server has no signing key.*LOG_SIGNING_KEY_FILE/)
      const page = await call(other.port(), 'GET', '/api/alerts', { headers: origin })
      expect(page.json().witness).toEqual({ signing: false, lastDaily: null })
      expect((await other.rooms.db.query(`SELECT 1 FROM alert_outbox`)).rows).toHaveLength(0)
    } finally {
      await other.running.close()
      rmSync(keyless, { recursive: true, force: true })
    }
  }, 60_000)
})
