import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { IndexStatus } from '../contract/index-api.ts'
import { listEntries } from './access/log-listing.ts'
import { call } from './testing/access-stack.ts'
import { addUser } from './access/users.ts'
import { parseConfig } from './config.ts'
import { openRooms, roomsConfigIssues, type Rooms } from './rooms.ts'
import { start, type Running } from './server.ts'
import { DEMO_CREDENTIALS } from './simulator/dataset.ts'
import { createSimulator } from './simulator/simulator.ts'
import { freshPgliteDir } from './testing/pglite-template.ts'

/**
 * The rooms as the server composes them (proxy/rooms.ts): one database for the index and team
 * access, the role rules across rooms, a served history page starting that number's sync, and
 * the access log's address behind a trusted proxy. The rooms' own suites cover each on both engines.
 */

const DOZENS = { number: '18552009444', tid: 'JQYBHYV97381' } // 36 messages in the simulator
const PASSWORD = 'a long rooms password 7'

describe('rooms configuration', () => {
  test('every problem of the index and access variables at once, each naming its variable', () => {
    const { issues } = roomsConfigIssues({ SYNC_RATE: 'fast', ACCESS: 'open', DATA_DIR: ' ' }, null)
    expect(issues.some((i) => i.includes('SYNC_RATE'))).toBe(true)
    expect(issues.some((i) => i.includes('ACCESS'))).toBe(true)
    expect(issues.some((i) => i.includes('DATA_DIR'))).toBe(true)
  })
  test('ACCESS=local on a non-loopback HOST refuses to start, naming ACCESS', () => {
    const config = parseConfig({ HOST: '0.0.0.0' })
    const { config: rooms, issues } = roomsConfigIssues({}, config)
    expect(rooms).toBeNull()
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatch(/^Refusing to start: .*ACCESS/)
    expect(roomsConfigIssues({ ACCESS: 'password' }, config).issues).toEqual([])
    expect(roomsConfigIssues({}, parseConfig({ HOST: '127.0.0.1' })).issues).toEqual([])
  })
  test('the refusal comes with the other problems at once: another access variable wrong does not hide it', () => {
    const { issues } = roomsConfigIssues({ SESSION_IDLE_MIN: 'soon' }, parseConfig({ HOST: '0.0.0.0' }))
    expect(issues.some((i) => i.includes('SESSION_IDLE_MIN'))).toBe(true)
    expect(issues.some((i) => /^Refusing to start: .*ACCESS=local/.test(i))).toBe(true)
    // A wrong ACCESS is its own problem: no guess at what it meant.
    const wrong = roomsConfigIssues({ ACCESS: 'open' }, parseConfig({ HOST: '0.0.0.0' })).issues
    expect(wrong.some((i) => i.startsWith('Refusing to start'))).toBe(false)
    expect(wrong.some((i) => i.includes('ACCESS must be local, password or header'))).toBe(true)
  })
})

describe('rooms on one database, behind the app', () => {
  let dir: string
  let running: Running
  let rooms: Rooms
  let simClose: () => Promise<void>
  const cookie: Record<string, string> = {}

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-rooms-'))
    await freshPgliteDir(join(dir, 'data'))
    const sim = createSimulator()
    const upstream = await sim.listen(0, '127.0.0.1')
    simClose = async () => {
      upstream.server.closeAllConnections()
      await new Promise<void>((ok) => upstream.server.close(() => ok()))
    }
    const config = parseConfig({
      API_BASE_URL: upstream.url,
      API_SYS_ID: DEMO_CREDENTIALS.sysId,
      API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
      PORT: '0',
      LOG_REQUESTS: '0',
    })
    const cfg = roomsConfigIssues(
      {
        DATA_DIR: join(dir, 'data'),
        SYNC_RATE: '0',
        INDEX_AUTO_SYNC: 'off',
        ACCESS: 'password',
        TRUST_PROXY: '1',
        TRUSTED_PROXIES: '127.0.0.1',
      },
      config,
    )
    expect(cfg.issues).toEqual([])
    running = await start(config, {
      rooms: async (forwarder) => {
        rooms = await openRooms(cfg.config!, { forwarder, log: () => {} })
        return rooms
      },
    })
    await addUser(rooms.db, { name: 'ada', role: 'admin', password: PASSWORD })
    await addUser(rooms.db, { name: 'vic', role: 'viewer', password: PASSWORD })
    for (const name of ['ada', 'vic']) {
      const r = await call(port(), 'POST', '/api/auth/signin', { json: { name, password: PASSWORD } })
      expect(r.status).toBe(200)
      cookie[name] = String(r.headers['set-cookie']?.[0] ?? '').split(';')[0]!
      expect(cookie[name]).toMatch(/^sb_session=/)
    }
  }, 60_000)

  afterAll(async () => {
    await running?.close()
    await simClose?.()
    rmSync(dir, { recursive: true, force: true })
  })

  const port = () => Number(new URL(running.url).port)
  const as = (name: string, extra: Record<string, string> = {}) => ({ cookie: cookie[name]!, ...extra })

  test('without a session every /api path but the public ones answers 401', async () => {
    for (const path of ['/api/index/status', '/api/index/export?format=csv', '/api/auth/users'])
      expect((await call(port(), 'GET', path)).status, path).toBe(401)
    const meta = await call(port(), 'GET', '/api/meta')
    expect(meta.status).toBe(200)
    // The public answer says the index is on and its engine, not where its data lives (a path, or a database's host and name).
    expect(meta.json().index).toEqual({ enabled: true, engine: 'pglite' })
    expect(meta.text).not.toContain(dir)
  })

  test('a viewer may search but not export or forget; an admin may (the server refuses, whatever the UI shows)', async () => {
    const q = `numbers=${DOZENS.number}&format=csv`
    expect((await call(port(), 'GET', `/api/index/search?numbers=${DOZENS.number}`, { headers: as('vic') })).status).toBe(200)
    const viewerExport = await call(port(), 'GET', `/api/index/export?${q}`, { headers: as('vic') })
    expect(viewerExport.status).toBe(403)
    expect(viewerExport.json().error?.kind).toBe('forbidden')
    expect((await call(port(), 'POST', '/api/index/forget', { headers: as('vic'), json: { number: DOZENS.number } })).status).toBe(403)
    const adminExport = await call(port(), 'GET', `/api/index/export?${q}`, { headers: as('ada') })
    expect(adminExport.status).toBe(200)
    expect(adminExport.headers['content-disposition']).toMatch(/attachment; filename=/)
  })

  test("a served history page starts that number's sync, and the access log names the viewer and the client behind the proxy", async () => {
    const form = new URLSearchParams({ number: DOZENS.number, tid: DOZENS.tid, history_start: '1', history_end: '10' }).toString()
    const r = await call(port(), 'POST', '/api/smshistory', {
      headers: as('vic', { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.9' }),
      body: form,
    })
    expect(r.status).toBe(200)
    const deadline = Date.now() + 30_000
    let indexed = 0
    while (Date.now() < deadline) {
      const status = (await call(port(), 'GET', '/api/index/status', { headers: as('vic') })).json() as unknown as IndexStatus
      indexed = status.numbers.find((n) => n.number === DOZENS.number && n.state === 'idle')?.indexed ?? 0
      if (indexed === 36) break
      await new Promise((ok) => setTimeout(ok, 200))
    }
    expect(indexed).toBe(36)
    await rooms.access.flush()
    const { entries } = await listEntries(rooms.db, { action: 'history.view', user: 'vic' }, 10)
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({ actor: 'vic', address: '203.0.113.9', number: DOZENS.number })
  }, 40_000)

  test('a number an admin forgot is indexed again only by an admin: a viewer\'s "Sync now" is refused, naming the number', async () => {
    expect((await call(port(), 'POST', '/api/index/forget', { headers: as('ada'), json: { number: DOZENS.number } })).status).toBe(200)
    const forgotten = async () =>
      (await rooms.db.query<{ f: boolean }>('SELECT forgotten_at IS NOT NULL AS f FROM index_numbers WHERE number = $1', [DOZENS.number]))
        .rows[0]?.f
    expect(await forgotten()).toBe(true)
    const viewer = await call(port(), 'POST', '/api/index/sync', { headers: as('vic'), json: { number: DOZENS.number } })
    expect(viewer.status, viewer.text).toBe(403)
    expect(viewer.json().error).toMatchObject({ kind: 'forbidden', field: 'number' })
    expect(viewer.json().error?.message).toContain('only an admin')
    expect(await forgotten()).toBe(true)
    const admin = await call(port(), 'POST', '/api/index/sync', { headers: as('ada'), json: { number: DOZENS.number } })
    expect(admin.status, admin.text).toBe(202)
    expect(await forgotten()).toBe(false)
  })
})
