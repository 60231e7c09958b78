import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AccessGate, Principal, RouteSpec } from './http-types.ts'
import { sendJson } from './http.ts'
import { ANY_QUERY, SENTINEL_TOKEN, openFds, proxyFor, sendRaw, simStack, stubUpstream } from './testing/helpers.ts'

/**
 * Issue 11's reproducers, each against the real server (server.ts's start()) on the real
 * simulator over raw sockets: they took the process down or misled before, and must not now.
 */

let stack: Awaited<ReturnType<typeof simStack>>
beforeAll(async () => {
  stack = await simStack()
})
afterAll(async () => {
  await stack.close()
})

const BIG = { number: '18323232323', tid: 'PUHMGWS98301' }
const get = (target: string, method = 'GET', headers = '') =>
  sendRaw(stack.port, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n`)
function post(path: string, body: string | Buffer, type: string, headers = '') {
  const b = typeof body === 'string' ? Buffer.from(body) : body
  return sendRaw(
    stack.port,
    Buffer.concat([
      Buffer.from(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: ${b.length}\r\n${headers}Connection: close\r\n\r\n`,
      ),
      b,
    ]),
  )
}
const json = (r: { body: Buffer }) =>
  JSON.parse(r.body.toString('utf8')) as { error?: { kind: string; message: string; field?: string; cause?: string }; [k: string]: unknown }
const alive = async () => (await get('/api/meta')).status

describe('a malformed request target is a 400 in words, and the server lives', () => {
  it.each([
    ['GET', '/%zz'],
    ['GET', '/%ff'],
    ['GET', '/%'],
    ['GET', '/api%zz'],
    ['HEAD', '/assets/%E2%82'],
    ['GET', '/history/%E2%82%28'],
    ['POST', '/api/%zzsmshistory'],
    ['GET', '/assets/%C0%AF'],
  ])('%s %s', async (method, target) => {
    const r = await get(target, method)
    expect(r.status).toBe(400)
    if (method !== 'HEAD')
      expect(json(r).error).toMatchObject({ kind: 'invalid_request', field: 'path', message: expect.stringMatching(/^Bad path: .+/) })
    expect(await alive()).toBe(200)
  })

  it('answers the request in flight on the same connection too', async () => {
    const answer = await new Promise<string>((resolve) => {
      let text = ''
      const sock = connect(stack.port, '127.0.0.1', () =>
        sock.write(
          'GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /%zz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
        ),
      )
      sock.on('data', (d: Buffer) => (text += d.toString('latin1')))
      sock.on('close', () => resolve(text))
      sock.on('error', () => undefined)
      setTimeout(() => sock.destroy(), 5_000)
    })
    const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1])
    expect(statuses.slice(0, 2)).toEqual(['200', '400'])
    expect(await alive()).toBe(200)
  })
})

describe('static files (sirv)', () => {
  it('falls back to the shell for client routes, 404 for a missing asset', async () => {
    const shell = await get('/history/18323232323?tid=X')
    expect(shell.status).toBe(200)
    expect(shell.body.toString()).toContain('<div id="root">')
    expect(shell.head).toMatch(/cache-control: no-cache/i)
    expect((await get('/assets/missing-000.js')).status).toBe(404)
    expect((await get('/assets/no-extension')).status).toBe(404)
    expect((await get('/favicon-missing.png')).status).toBe(404)
  })

  it('sends security headers on every answer: 200, 304, 400, 404, 405', async () => {
    const ok = await get('/assets/index-abc123.js')
    const etag = /etag: (.+)/i.exec(ok.head)?.[1]
    expect(etag).toBeDefined()
    const answers = [
      ok,
      await get('/assets/index-abc123.js', 'GET', `If-None-Match: ${etag}\r\n`),
      await get('/%zz'),
      await get('/assets/x.js'),
      await get('/', 'DELETE'),
    ]
    expect(answers.map((a) => a.status)).toEqual([200, 304, 400, 404, 405])
    for (const a of answers) {
      expect(a.head).toMatch(/content-security-policy: default-src 'self'/i)
      expect(a.head).toMatch(/x-content-type-options: nosniff/i)
    }
    expect(ok.head).toMatch(/cache-control: public, max-age=31536000, immutable/i)
  })

  it('sends the big script compressed to a client that accepts it', async () => {
    // The compressed copies are written in the background at start; wait (bounded) for them.
    let r = await get('/assets/index-abc123.js', 'GET', 'Accept-Encoding: gzip, deflate, br\r\n')
    for (let i = 0; i < 50 && !/content-encoding/i.test(r.head); i++) {
      await new Promise((ok) => setTimeout(ok, 100))
      r = await get('/assets/index-abc123.js', 'GET', 'Accept-Encoding: gzip, deflate, br\r\n')
    }
    expect(r.head).toMatch(/content-encoding: br/i)
    expect(r.head).toMatch(/vary: accept-encoding/i)
    const plain = await get('/assets/index-abc123.js')
    expect(r.body.length).toBeLessThan(plain.body.length / 5)
    const gz = await get('/assets/index-abc123.js', 'GET', 'Accept-Encoding: gzip\r\n')
    expect(gz.head).toMatch(/content-encoding: gzip/i)
  })

  it('ignores a Range it cannot serve instead of failing', async () => {
    for (const range of ['bytes=50-10', 'bytes=-5', 'bytes=0-1,4-5', 'bytes=abc']) {
      const r = await get('/assets/index-abc123.js', 'GET', `Range: ${range}\r\n`)
      expect(r.status).toBe(200)
    }
    const part = await get('/assets/index-abc123.js', 'GET', 'Range: bytes=0-9\r\n')
    expect(part.status).toBe(206)
    expect(part.body.length).toBe(10)
  })

  it('closes the file of every aborted download: 2,000 aborts leak no descriptors', async () => {
    const abortOne = () =>
      new Promise<void>((resolve) => {
        const sock = connect(stack.port, '127.0.0.1', () => sock.write('GET /assets/big-abc123.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'))
        // Leave as soon as the answer starts: the server is mid-file, with its descriptor open.
        sock.once('data', () => sock.destroy())
        sock.on('error', () => undefined)
        sock.on('close', () => resolve())
        setTimeout(() => sock.destroy(), 5_000).unref()
      })
    const settled = async () => {
      // Bounded wait until the server has let go of every connection it had.
      for (let i = 0; i < 100; i++) {
        const n = await new Promise<number>((ok) => stack.running.server.getConnections((_e, c) => ok(c)))
        if (n === 0) return
        await new Promise((ok) => setTimeout(ok, 50))
      }
    }
    await abortOne()
    await settled()
    const before = openFds()
    for (let batch = 0; batch < 40; batch++) await Promise.all(Array.from({ length: 50 }, abortOne))
    await settled()
    await new Promise((ok) => setTimeout(ok, 200))
    const after = openFds()
    expect(after - before).toBeLessThanOrEqual(20)
    expect(await alive()).toBe(200)
  }, 60_000)
})

describe('validation matches what it says', () => {
  const history = (fields: Record<string, string>) =>
    post(
      '/api/smshistory',
      new URLSearchParams({ ...BIG, history_start: '1', history_end: '5', ...fields }).toString(),
      'application/x-www-form-urlencoded',
    )

  it('a field that is blank after trimming is missing, and nothing goes upstream', async () => {
    const calls = stack.sim.state.calls
    const r = await post(
      '/api/smshistory',
      `number=${BIG.number}&tid=%20%20&history_start=1&history_end=5`,
      'application/x-www-form-urlencoded',
    )
    expect(r.status).toBe(400)
    expect(json(r).error).toMatchObject({ field: 'tid', message: 'tid is required.' })
    expect(stack.sim.state.calls).toBe(calls)
  })

  it.each([
    ['C1 control U+0085', 'tid', `${BIG.tid}\u0085`],
    ['right-to-left override U+202E', 'tid', `\u202e${BIG.tid}`],
    ['zero-width space U+200B', 'tid', `PUHM\u200bGWS98301`],
    ['bidi isolate U+2066', 'tid', `${BIG.tid}\u2066`],
    ['BOM inside U+FEFF', 'tid', `PUHM\ufeffGWS98301`],
    ['right-to-left override in number', 'number', `\u202e${BIG.number}`],
    ['zero-width joiner in number', 'number', `1832323\u200d2323`],
  ])('refuses %s', async (_name, field, value) => {
    const calls = stack.sim.state.calls
    const r = await history({ [field]: value })
    expect(r.status).toBe(400)
    expect(json(r).error).toMatchObject({ field, message: expect.stringMatching(/control, zero-width or text-direction/) })
    expect(stack.sim.state.calls).toBe(calls)
  })

  it('refuses a lone surrogate (JSON can carry one)', async () => {
    const r = await post(
      '/api/smshistory',
      `{"number":"${BIG.number}","tid":"PUHM\\ud800","history_start":1,"history_end":5}`,
      'application/json',
    )
    expect(r.status).toBe(400)
    expect(json(r).error).toMatchObject({ field: 'tid', message: expect.stringMatching(/well-formed/) })
  })

  it('answers 415 to a Content-Encoding it does not decode, and decodes gzip', async () => {
    const body = new URLSearchParams({ number_type: 'local' }).toString()
    const bad = await post('/api/ownednumbers', body, 'application/x-www-form-urlencoded', 'Content-Encoding: compress\r\n')
    expect(bad.status).toBe(415)
    expect(json(bad).error).toMatchObject({ field: 'content-encoding' })
    const good = await post('/api/ownednumbers', gzipSync(body), 'application/x-www-form-urlencoded', 'Content-Encoding: gzip\r\n')
    expect(good.status).toBe(200)
  })

  it.each([
    ['two Host headers', 'Host: 127.0.0.1\r\nHost: evil.example\r\n'],
    ['a Host with a space', 'Host: 127.0.0.1 evil\r\n'],
    ['a Host with a bad port', 'Host: 127.0.0.1:99999\r\n'],
    ['a Host with a path', 'Host: 127.0.0.1/x\r\n'],
  ])('refuses %s with 400', async (_name, host) => {
    const r = await sendRaw(stack.port, `POST /api/allownednumbers HTTP/1.1\r\n${host}Content-Length: 0\r\nConnection: close\r\n\r\n`)
    expect(r.status).toBe(400)
    expect(json(r).error).toMatchObject({ field: 'host' })
  })

  it('treats duplicate JSON keys like duplicate form fields', async () => {
    const r = await post(
      '/api/smshistory',
      `{"number":"${BIG.number}","tid":"${BIG.tid}","tid":"OTHER","history_start":1,"history_end":5}`,
      'application/json',
    )
    expect(r.status).toBe(400)
    expect(json(r).error).toMatchObject({ field: 'tid', message: 'tid was sent more than once.' })
  })

  it('accepts a JSON body that starts with a BOM', async () => {
    const r = await post('/api/smshistory', `\ufeff${JSON.stringify({ ...BIG, history_start: 1, history_end: 5 })}`, 'application/json')
    expect(r.status).toBe(200)
    expect((json(r).messages as unknown[]).length).toBe(5)
  })

  it('cuts echoed field names to a safe length', async () => {
    const name = 'x'.repeat(5_000)
    const r = await post('/api/allownednumbers', JSON.stringify({ [name]: { nested: true } }), 'application/json')
    expect(r.status).toBe(400)
    expect(json(r).error!.field!.length).toBeLessThanOrEqual(41)
    expect(json(r).error!.message.length).toBeLessThan(100)
  })

  it('says "no such number" (404) for a number or tid the account does not hold', async () => {
    const r = await history({ tid: 'NOTTHETID1' })
    expect(r.status).toBe(404)
    expect(json(r).error).toMatchObject({ kind: 'not_found', message: expect.stringMatching(/this account has no such number/i) })
    const other = await history({ number: '15550001111' })
    expect(other.status).toBe(404)
  })
})

describe('errors an operator can act on', () => {
  it('names what failed and where when the upstream is unreachable, in the answer and the log', async () => {
    const up = await stubUpstream((_q, res) => res.end('{}'))
    const port = new URL(up.url).port
    await up.close() // nothing listens there now
    const proxy = await proxyFor(up.url)
    try {
      const r = await sendRaw(
        proxy.port,
        'POST /api/allownednumbers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
      )
      expect(r.status).toBe(502)
      const error = json(r).error!
      expect(error.kind).toBe('unreachable')
      expect(error.cause).toBe(`Could not connect to 127.0.0.1:${port} (connection refused)`)
      expect(proxy.logs.join('\n')).toContain(`(unreachable: Could not connect to 127.0.0.1:${port} (connection refused))`)
      expect(r.body.toString()).not.toContain('SENTINEL')
    } finally {
      await proxy.close()
    }
  })

  it('names a DNS failure', async () => {
    const proxy = await proxyFor('http://no-such-host.invalid')
    try {
      const r = await sendRaw(
        proxy.port,
        'POST /api/allownednumbers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
      )
      expect(json(r).error?.cause).toMatch(/^Could not connect to no-such-host\.invalid:80 \(DNS lookup failed/)
    } finally {
      await proxy.close()
    }
  })

  it('names a TLS failure and a timeout', async () => {
    const up = await stubUpstream((_q, res) => res.end('{}')) // plain HTTP where TLS is expected
    const tls = await proxyFor(up.url.replace('http:', 'https:'))
    const hang = await stubUpstream(() => undefined) // accepts, never answers
    const slow = await proxyFor(hang.url)
    try {
      const ask = (port: number) =>
        sendRaw(port, 'POST /api/allownednumbers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
      const a = json(await ask(tls.port)).error!
      expect(a.kind).toBe('unreachable')
      expect(a.cause).toMatch(
        new RegExp(`^Could not connect to 127\\.0\\.0\\.1:${new URL(up.url).port} \\(TLS handshake failed: [A-Z_]+\\)$`),
      )
      const b = json(await ask(slow.port)).error!
      expect(b).toMatchObject({ kind: 'timeout', cause: `127.0.0.1:${new URL(hang.url).port} did not answer within 0.4 s` })
    } finally {
      await Promise.all([tls.close(), slow.close()])
      await Promise.all([up.close(), hang.close()])
    }
  })

  it('says which variables to check when the credentials are rejected', async () => {
    stack.sim.state.faults.push({ kind: 'auth', times: 1 })
    const r = await post('/api/allownednumbers', '', 'application/x-www-form-urlencoded')
    expect(r.status).toBe(401)
    expect(json(r).error?.message).toMatch(/API_SYS_ID and API_AUTH_TOKEN/)
  })
})

describe('never crash: a throw anywhere in a request path', () => {
  const route = (path: string, handle: RouteSpec['handle']): RouteSpec => ({
    method: 'GET',
    path,
    access: 'public',
    reads: null,
    schema: ANY_QUERY,
    handle,
  })
  const boom: RouteSpec[] = [
    route('/api/boom/sync', () => {
      throw new TypeError('sync failure in a handler')
    }),
    route('/api/boom/late', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('partial')
      await new Promise((ok) => setTimeout(ok, 10))
      throw new Error('failure after the answer began')
    }),
    route('/api/boom/async', async () => {
      await Promise.resolve()
      throw new RangeError('async failure in a handler')
    }),
  ]
  let proxy: Awaited<ReturnType<typeof proxyFor>>
  let up: Awaited<ReturnType<typeof stubUpstream>>
  beforeAll(async () => {
    up = await stubUpstream((_q, res) => res.end('{"success":"1","data":[]}'))
    proxy = await proxyFor(up.url, {}, { routes: boom })
  })
  afterAll(async () => {
    await proxy.close()
    await up.close()
  })
  const call = (path: string) => sendRaw(proxy.port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)

  it.each(['/api/boom/sync', '/api/boom/async'])('%s answers a 500 envelope, logs the cause once, and the server goes on', async (path) => {
    proxy.logs.length = 0
    const r = await call(path)
    expect(r.status).toBe(500)
    expect(json(r).error).toMatchObject({ kind: 'server_error' })
    expect(r.body.toString()).not.toMatch(/failure in a handler/) // the cause is for the log, not the page
    expect(proxy.logs).toHaveLength(1)
    expect(proxy.logs[0]).toMatch(/500 .*(TypeError: sync|RangeError: async) failure in a handler/)
    expect((await call('/api/meta')).status).toBe(200)
  })

  it('closes the connection when the answer had already begun', async () => {
    const r = await call('/api/boom/late')
    expect(r.status).toBe(200)
    expect(r.body.toString()).not.toContain('0\r\n\r\n') // the chunked answer never claimed to be complete
    expect((await call('/api/meta')).status).toBe(200)
  })
})

describe('seams for the other rooms', () => {
  const viewer: Principal = { name: 'vera', role: 'viewer', via: 'password' }
  const audits: Array<[string | null, string, Record<string, unknown>]> = []
  const gate: AccessGate = {
    identify: async (req) =>
      req.headers.authorization === 'Bearer viewer'
        ? viewer
        : req.headers.authorization === 'Bearer admin'
          ? { name: 'ada', role: 'admin', via: 'password' }
          : null,
    routes: [
      {
        method: 'GET',
        path: '/api/auth/me',
        access: 'public',
        reads: null,
        schema: ANY_QUERY,
        handle: async (_req, res, url, ctx) => sendJson(res, 200, { name: ctx.principal?.name ?? null, q: url.searchParams.get('q') }),
      },
      {
        method: 'GET',
        path: '/api/auth/users',
        access: 'admin',
        reads: null,
        schema: ANY_QUERY,
        handle: async (_req, res, url, ctx) => sendJson(res, 200, { name: ctx.principal?.name ?? null, q: url.searchParams.get('q') }),
      },
    ],
    audit: async (p, _address, action, details) => void audits.push([p?.name ?? null, action, details]),
    recordRead: async (p, _address, action, details) => void audits.push([p?.name ?? null, action, details]),
  }
  const index: RouteSpec = {
    method: 'GET',
    path: '/api/index/search',
    access: 'admin',
    reads: null,
    schema: ANY_QUERY,
    handle: async (_req, res, url) => sendJson(res, 200, { path: url.pathname, q: url.searchParams.get('q') }),
  }
  let proxy: Awaited<ReturnType<typeof proxyFor>>
  let up: Awaited<ReturnType<typeof stubUpstream>>
  beforeAll(async () => {
    up = await stubUpstream((_q, res) => res.end('{"success":"1","total_message_count":0,"messages":[]}'))
    proxy = await proxyFor(up.url, { HISTORY_PAGE_CAP: '250' }, { gate, routes: [index], meta: () => ({ index: { enabled: true } }) })
  })
  afterAll(async () => {
    await proxy.close()
    await up.close()
  })
  const call = (method: string, path: string, auth = '', body = '') =>
    sendRaw(
      proxy.port,
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth ? `Authorization: Bearer ${auth}\r\n` : ''}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    )

  it('asks for a sign-in without a principal, except on public paths', async () => {
    const r = await call('POST', '/api/allownednumbers')
    expect(r.status).toBe(401)
    expect(json(r).error).toMatchObject({ kind: 'unauthorized', message: 'Sign in first.' })
    expect((await call('GET', '/api/auth/me')).status).toBe(200)
    expect(up.received).toHaveLength(0)
  })

  it('keeps admin-only routes from viewers and passes parsed query strings to routes', async () => {
    const denied = await call('GET', '/api/index/search?q=x', 'viewer')
    expect(denied.status).toBe(403)
    expect(json(denied).error?.kind).toBe('forbidden')
    const ok = await call('GET', '/api/index/search?q=hello%20world', 'admin')
    expect(json(ok)).toEqual({ path: '/api/index/search', q: 'hello world' })
    expect(json(await call('GET', '/api/auth/users?q=1', 'admin'))).toEqual({ name: 'ada', q: '1' })
  })

  it('still refuses query strings on the upstream operations', async () => {
    expect((await call('POST', '/api/allownednumbers?x=1', 'admin')).status).toBe(400)
  })

  it('audits a history view with who, number, tid, range and the customers shown (none for a tid with no messages)', async () => {
    audits.length = 0
    const r = await call('POST', '/api/smshistory', 'viewer', 'number=18323232323&tid=ABC&history_start=1&history_end=25')
    expect(r.status).toBe(200)
    expect(audits).toEqual([['vera', 'history.view', { number: '18323232323', tid: 'ABC', start: 1, end: 25, parties: [] }]])
  })

  it('serves /api/meta with the page cap, UTC and what the rooms add', async () => {
    const r = await call('GET', '/api/meta', 'viewer')
    expect(json(r)).toEqual({ historyPageCap: 250, timeZone: 'UTC', index: { enabled: true } })
  })
})

describe("the simulator's doors", () => {
  it('keeps the control doors shut unless a test opens them', async () => {
    const { createSimulator } = await import('./simulator/simulator.ts')
    const shut = await createSimulator().listen(0)
    try {
      const r = await fetch(`${shut.url}/__sim/requests`)
      expect(r.status).toBe(404)
      const f = await fetch(`${shut.url}/__sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"kind":"auth"}',
      })
      expect(f.status).toBe(404)
    } finally {
      shut.server.closeAllConnections()
      shut.server.close()
    }
  })

  const simPort = () => Number(new URL(stack.simUrl).port)
  const control = (method: string, path: string, headers: string, body = '') =>
    sendRaw(
      simPort(),
      `${method} ${path} HTTP/1.1\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )

  it('refuses a foreign Host, a foreign Origin and a text/plain post', async () => {
    expect((await control('GET', '/__sim/requests', 'Host: evil.example\r\n')).status).toBe(403)
    expect(
      (
        await control(
          'POST',
          '/__sim/faults',
          'Host: 127.0.0.1\r\nOrigin: https://evil.example\r\nContent-Type: application/json\r\n',
          '{"kind":"auth"}',
        )
      ).status,
    ).toBe(403)
    expect((await control('POST', '/__sim/faults', 'Host: 127.0.0.1\r\nContent-Type: text/plain\r\n', '{"kind":"auth"}')).status).toBe(415)
    expect(stack.sim.state.faults.filter((f) => f.kind === 'auth')).toHaveLength(0)
  })

  it('bounds the fault list and checks each fault', async () => {
    const many = JSON.stringify({ faults: Array.from({ length: 101 }, () => ({ kind: 'latency', ms: 1, op: 'nothing' })) })
    expect((await control('POST', '/__sim/faults', 'Host: 127.0.0.1\r\nContent-Type: application/json\r\n', many)).status).toBe(400)
    expect(
      (await control('POST', '/__sim/faults', 'Host: 127.0.0.1\r\nContent-Type: application/json\r\n', '{"kind":"explode"}')).status,
    ).toBe(400)
    expect(stack.sim.state.faults).toHaveLength(0)
  })

  it('never keeps the auth_token in its request log', async () => {
    await post('/api/allownednumbers', '', 'application/x-www-form-urlencoded')
    const r = await control('GET', '/__sim/requests', 'Host: 127.0.0.1\r\n')
    expect(r.status).toBe(200)
    const log = json(r) as unknown as { requests: Array<{ fields: Record<string, string[]>; authenticated: boolean }> }
    expect(log.requests.length).toBeGreaterThan(0)
    expect(log.requests.at(-1)).toMatchObject({ authenticated: true, fields: { auth_token: ['[redacted]'], sys_id: ['[redacted]'] } })
    expect(r.body.toString()).not.toContain(SENTINEL_TOKEN)
  })
})
