import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, HISTORY } from './testing/access-stack.ts'
import { freshPgliteDir } from './testing/pglite-template.ts'
import type { Rooms } from './rooms.ts'
import type { Running } from './server.ts'
import { proxyFor, startWithRooms } from './testing/helpers.ts'
import { concrete, encodedSegments, spellings } from './testing/spellings.ts'

/**
 * A page on evil.example that rebinds its name to 127.0.0.1, against the default ACCESS=local
 * (everyone is the local admin): every route of the table, under its own path and under every
 * spelling a router reads as the same path (`/%61pi/…` among them), sent with the foreign Host,
 * a cross-site Origin and Sec-Fetch-Site. None may answer with data or change anything.
 */
const FOREIGN = (port: number) => ({
  host: `evil.example:${port}`,
  origin: `http://evil.example:${port}`,
  'sec-fetch-site': 'cross-site',
})

describe('a rebound page against the local-mode server', () => {
  let dir: string
  let running: Running
  let rooms: Rooms
  const port = () => Number(new URL(running.url).port)

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-rebind-'))
    await freshPgliteDir(join(dir, 'data'))
    ;({ running, rooms } = await startWithRooms({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_REQUESTS: '0',
      DATA_DIR: join(dir, 'data'),
      SYNC_RATE: '0',
      INDEX_AUTO_SYNC: 'off',
    }))
    await rooms.index.syncer!.request({ number: HISTORY.number, tid: HISTORY.tid })
    await rooms.index.syncer!.idle()
  }, 120_000)

  afterAll(async () => {
    await running?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const count = async () => (await rooms.db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_messages')).rows[0]!.n

  it('reads and changes nothing under any spelling of any route', async () => {
    const before = await count()
    expect(before).toBeGreaterThan(0)
    let tried = 0
    for (const route of running.routes) {
      const exact = concrete(route.path)
      for (const path of [exact, ...spellings(route.path), ...encodedSegments(exact)]) {
        const query = route.path === '/api/index/export' ? `?numbers=${HISTORY.number}&format=csv` : ''
        const r = await call(port(), route.method, path + query, {
          headers: FOREIGN(port()),
          ...(route.method === 'GET' ? {} : { json: { all: true } }),
        })
        tried++
        const what = `${route.method} ${path}: ${r.status} ${r.text.slice(0, 120)}`
        expect([400, 403], what).toContain(r.status)
        expect(r.json().error?.kind, what).toBe('invalid_request')
      }
    }
    expect(tried).toBeGreaterThan(running.routes.length * 5)
    expect(await count()).toBe(before)
  }, 180_000)

  it('refuses the reproduction: an encoded /api export, search, history and forget', async () => {
    const before = await count()
    for (const [method, path, body] of [
      ['GET', `/%61pi/index/export?numbers=${HISTORY.number}&format=csv`, undefined],
      ['GET', '/%61pi/index/search?q=the', undefined],
      ['POST', '/%61pi/smshistory', `number=${HISTORY.number}&tid=${HISTORY.tid}&history_start=1&history_end=5`],
      ['POST', '/%61pi/index/forget', JSON.stringify({ all: true })],
      ['POST', '/%41pi/index/forget', JSON.stringify({ all: true })],
      ['POST', '/api/%69ndex/forget', JSON.stringify({ all: true })],
    ] as const) {
      const r = await call(port(), method, path, {
        headers: { ...FOREIGN(port()), ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body } : {}),
      })
      expect(r.status, `${method} ${path}: ${r.text.slice(0, 120)}`).toBeGreaterThanOrEqual(400)
      expect(r.text).not.toContain(HISTORY.number)
    }
    // The same encoded spelling from the server's own page is refused too: one spelling per path.
    const own = await call(port(), 'GET', '/%61pi/meta')
    expect(own.status).toBe(400)
    expect(own.json().error).toMatchObject({ field: 'path' })
    expect(await count()).toBe(before)
  })
})

describe("the app's own files", () => {
  let dir: string
  let stack: Awaited<ReturnType<typeof proxyFor>>

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-rebind-static-'))
    mkdirSync(join(dir, 'assets'))
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Switchboard</title>')
    writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)')
    stack = await proxyFor('http://127.0.0.1:9', {}, { staticDir: dir })
  })
  afterAll(async () => {
    await stack.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('answer only to this server’s names, and never to a script on another site', async () => {
    const p = stack.port
    expect((await call(p, 'GET', '/')).status).toBe(200)
    expect((await call(p, 'GET', '/assets/app.js')).status).toBe(200)
    // A shared link followed from another site is a navigation: it opens.
    const nav = await call(p, 'GET', '/desk', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } })
    expect(nav.status).toBe(200)
    for (const [path, headers] of [
      ['/', { host: `evil.example:${p}` }],
      ['/assets/app.js', { host: `evil.example:${p}` }],
      ['/assets/app.js', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }],
      ['/assets/app.js', { origin: 'http://evil.example' }],
      ['/%61ssets/app.js', {}],
      ['/./index.html', {}],
    ] as const) {
      const r = await call(p, 'GET', path, { headers })
      expect([400, 403], `${path} ${JSON.stringify(headers)}: ${r.status}`).toContain(r.status)
    }
  })
})
