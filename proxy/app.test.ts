import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from './config.ts'
import { start, type Running } from './server.ts'
import { form, proxyFor, raw, stubUpstream } from './testing/helpers.ts'

const okHistory = JSON.stringify({ success: '1', total_message_count: 0, messages: [] })
let up: Awaited<ReturnType<typeof stubUpstream>>
let proxy: Awaited<ReturnType<typeof proxyFor>>

beforeAll(async () => {
  up = await stubUpstream((_q, res) => res.end(okHistory))
  proxy = await proxyFor(up.url)
})
afterAll(async () => {
  await proxy.close()
  await up.close()
})
beforeEach(() => {
  up.received.length = 0
})

const good = { number: '18323232323', tid: 'ABC123', history_start: '1', history_end: '50' }

describe('validation names the field and forwards nothing', () => {
  const cases: Array<[string, Record<string, string>, string, RegExp]> = [
    ['missing number', { ...good, number: '' }, 'number', /number is required/],
    ['letters in number', { ...good, number: '83a2' }, 'number', /digits/],
    ['plus in the middle', { ...good, number: '1+832' }, 'number', /digits/],
    ['missing tid', { ...good, tid: '' }, 'tid', /tid is required/],
    ['long tid', { ...good, tid: 'x'.repeat(65) }, 'tid', /at most 64/],
    ['control char in tid', { ...good, tid: 'ab\u0000c' }, 'tid', /control/],
    ['start 0', { ...good, history_start: '0' }, 'history_start', /1 or more/],
    ['start not a number', { ...good, history_start: 'one' }, 'history_start', /whole number/],
    ['negative end', { ...good, history_end: '-5' }, 'history_end', /whole number/],
    ['fraction', { ...good, history_end: '5.5' }, 'history_end', /whole number/],
    ['end before start', { ...good, history_start: '10', history_end: '9' }, 'history_end', /not be less/],
    ['range over the cap', { ...good, history_start: '1', history_end: '1001' }, 'history_end', /at most 1000/],
  ]
  it.each(cases)('%s', async (_n, fields, field, message) => {
    const r = await raw(proxy.port, { path: '/api/smshistory', ...form(fields) })
    expect(r.status).toBe(400)
    expect(r.json().error).toMatchObject({ kind: 'invalid_request', field })
    expect(r.json().error?.message).toMatch(message)
    expect(up.received).toHaveLength(0)
  })
  it('accepts a leading + and exactly the cap', async () => {
    const r = await raw(proxy.port, {
      path: '/api/smshistory',
      ...form({ ...good, number: '+18323232323', history_start: '1001', history_end: '2000' }),
    })
    expect(r.status).toBe(200)
  })
  it('rejects a repeated parameter', async () => {
    const r = await raw(proxy.port, { path: '/api/smshistory', ...form([...Object.entries(good), ['number', '1999']]) })
    expect(r.status).toBe(400)
    expect(r.json().error?.field).toBe('number')
  })
  it('validates number_type', async () => {
    const r = await raw(proxy.port, { path: '/api/ownednumbers', ...form({ number_type: 'mobile' }) })
    expect(r.status).toBe(400)
    expect(r.json().error).toMatchObject({ field: 'number_type' })
  })
  it('refuses other content types', async () => {
    const r = await raw(proxy.port, { path: '/api/ownednumbers', headers: { 'content-type': 'text/plain' }, body: 'number_type=local' })
    expect(r.status).toBe(415)
  })
})

describe('hostile requests are refused and never forwarded', () => {
  it.each([
    '/api/../api/allownednumbers',
    '/api/%2e%2e/allownednumbers',
    '/api/..%2fallownednumbers',
    '/api/%252e%252e/allownednumbers',
    '//evil.example/api/allownednumbers',
    'http://evil.example/api/allownednumbers',
    '/api/allownednumbers@evil.example',
    '/api/allownednumbers\\..\\x',
    '/api//allownednumbers',
    '/api/accountinfo',
    '/api/smshistory/extra',
    '/api/allownednumbers?sys_id=x',
    '/api',
  ])('%s', async (path) => {
    const r = await raw(proxy.port, { path })
    expect([400, 404]).toContain(r.status)
    expect(r.json().error?.kind).toBe(r.status === 404 ? 'not_found' : 'invalid_request')
    expect(up.received).toHaveLength(0)
  })
  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])('refuses %s with 405', async (method) => {
    const r = await raw(proxy.port, { method, path: '/api/allownednumbers' })
    expect(r.status).toBe(405)
    expect(r.headers.allow).toBe('POST')
    expect(up.received).toHaveLength(0)
  })
  it('refuses a foreign Host (DNS rebinding)', async () => {
    const r = await raw(proxy.port, { path: '/api/allownednumbers', headers: { host: 'evil.example' } })
    expect(r.status).toBe(403)
    expect(up.received).toHaveLength(0)
  })
  it('refuses a foreign Origin and cross-site fetches', async () => {
    const a = await raw(proxy.port, { path: '/api/allownednumbers', headers: { origin: 'https://evil.example' } })
    const b = await raw(proxy.port, { path: '/api/allownednumbers', headers: { 'sec-fetch-site': 'cross-site' } })
    expect(a.status).toBe(403)
    expect(b.status).toBe(403)
    expect(a.headers['access-control-allow-origin']).toBeUndefined()
    expect(up.received).toHaveLength(0)
  })
  it('accepts its own Origin', async () => {
    const r = await raw(proxy.port, {
      path: '/api/allownednumbers',
      headers: { origin: `http://127.0.0.1:${proxy.port}`, 'sec-fetch-site': 'same-origin' },
    })
    expect(r.status).toBe(200)
  })
  it('answers 413 to an oversize body', async () => {
    const r = await raw(proxy.port, {
      path: '/api/smshistory',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `tid=${'x'.repeat(40_000)}`,
    })
    expect(r.status).toBe(413)
    expect(up.received).toHaveLength(0)
  })
})

describe('the listening server', () => {
  let running: Running
  beforeAll(async () => {
    running = await start(parseConfig({ PORT: '0', LOG_REQUESTS: '0' }), { headersTimeoutMs: 1000, connectionsPerAddress: 128 })
  })
  afterAll(async () => {
    await running.close()
  })
  it('listens on loopback by default', () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(running.upstreamLabel).toContain('simulator')
  })
  it('cuts off a client that sends headers too slowly', async () => {
    const port = Number(new URL(running.url).port)
    const closedAfter = await new Promise<number>((resolve) => {
      const t0 = Date.now()
      const sock = connect(port, '127.0.0.1', () => sock.write('POST /api/allownednumbers HTTP/1.1\r\nHost: 127.0.0.1\r\n'))
      // Never finishes the headers; the server's headersTimeout (1 s here, 10 s by default) must end it.
      // A 408 answer or a closed socket both mean the server gave up on the slow client.
      sock.on('data', (d) => {
        if (String(d).startsWith('HTTP/1.1 408')) resolve(Date.now() - t0)
      })
      sock.on('close', () => resolve(Date.now() - t0))
      sock.on('error', () => undefined)
      setTimeout(() => sock.destroy(), 6_000)
    })
    expect(closedAfter).toBeGreaterThanOrEqual(900)
    expect(closedAfter).toBeLessThan(5_000)
  }, 10_000)

  it('closes connections that send nothing, and holds no more than the cap per address', async () => {
    const port = Number(new URL(running.url).port)
    // A connection that sends nothing, and one that sends a single byte, are closed: the server
    // gives them 1 s here; the bound leaves room for two loaded cores. Without the limit neither
    // is ever closed.
    const closedAfter = await Promise.all(
      ['', 'G'].map(
        (bytes) =>
          new Promise<number>((resolve) => {
            const t0 = Date.now()
            const sock = connect(port, '127.0.0.1', () => bytes && sock.write(bytes))
            // Read, so the server's close is seen: a socket nobody reads does not always emit
            // 'end' (and so 'close') when the other side closes; it sat in CLOSE-WAIT for 20 s.
            sock.resume()
            sock.on('close', () => resolve(Date.now() - t0))
            sock.on('error', () => undefined)
            setTimeout(() => {
              sock.destroy()
              resolve(Number.POSITIVE_INFINITY)
            }, 20_000)
          }),
      ),
    )
    expect(closedAfter[0], 'sends nothing').toBeLessThan(15_000)
    expect(closedAfter[1], 'sends one byte').toBeLessThan(15_000)
    // Past the cap a connection is closed at once; the server answers again once they go.
    const sockets = await Promise.all(
      Array.from(
        { length: 130 },
        () =>
          new Promise<Socket>((ok) => {
            const s = connect(port, '127.0.0.1', () => ok(s))
            s.resume()
            s.on('error', () => undefined)
          }),
      ),
    )
    const closed = await new Promise<number>((resolve) =>
      setTimeout(() => resolve(sockets.filter((s) => s.destroyed || s.readyState === 'closed').length), 300),
    )
    expect(closed).toBeGreaterThanOrEqual(2)
    for (const s of sockets) s.destroy()
    await new Promise((ok) => setTimeout(ok, 100))
    const r = await fetch(`${running.url}/api/meta`)
    expect(r.status).toBe(200)
  }, 45_000)
})
