import { lookup } from 'node:dns/promises'
import { createServer, get, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AccessGate, Principal } from '../http-types.ts'
import { MEDIA_FILES } from '../simulator/media.ts'
import { makeAccount } from '../simulator/dataset.ts'
import { proxyFor, raw, SENTINEL_SYS_ID, SENTINEL_TOKEN, simStack } from '../testing/helpers.ts'
import type { Resolver } from './fetch.ts'
import { createMediaRoute, type Locate, type MediaOptions } from './handler.ts'

/**
 * /api/media over real HTTP: a media server on loopback (what a stranger's link could point
 * at), the app in front of it, and the answers and what reached the media server checked.
 */

const PNG = MEDIA_FILES['photo-1.png']!.body
const MAX = 4096

interface Seen {
  path: string
  headers: IncomingHttpHeaders
}

async function listen(answer: (path: string, res: ServerResponse) => void) {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers })
    req.resume()
    answer((req.url ?? '').split('?')[0] ?? '', res)
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    seen,
    connections: () => new Promise<number>((ok, fail) => server.getConnections((err, n) => (err ? fail(err) : ok(n)))),
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}

let media: Awaited<ReturnType<typeof listen>>
/** Another loopback service (this machine's database, say) that no redirect may reach. */
let secret: Awaited<ReturnType<typeof listen>>
/** The configured upstream: a different loopback port from the media server. */
let upstream: Awaited<ReturnType<typeof listen>>

beforeAll(async () => {
  secret = await listen((_path, res) => res.end('secret'))
  upstream = await listen((_path, res) => res.end('{}'))
  media = await listen((path, res) => {
    if (path === '/photo.png' || path.startsWith('/caf'))
      return res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length }).end(PNG)
    if (path === '/page.html') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<script>alert(1)</script>')
    if (path === '/logo.svg')
      return res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg"/>')
    if (path === '/invoice.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.1\n%%EOF\n')
    if (path === '/declared-big.png') return res.writeHead(200, { 'content-type': 'image/png', 'content-length': MAX * 10 }).end()
    if (path === '/chunked-big.png') {
      // No Content-Length: the cap must hold while the body streams.
      res.writeHead(200, { 'content-type': 'image/png' })
      for (let i = 0; i < 10; i++) res.write(Buffer.alloc(1024, i))
      return res.end()
    }
    if (path === '/slow-body.png') {
      // Headers at once, then the body never finishes: the deadline must still end it.
      res.writeHead(200, { 'content-type': 'image/png' })
      return void res.write(PNG.subarray(0, 100))
    }
    if (path === '/html-forever') {
      // Refused on its headers; a body that never ends must not keep the connection.
      res.writeHead(200, { 'content-type': 'text/html' })
      return void res.write('<p>')
    }
    if (path === '/slow.png') return void setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG), 3_000)
    if (path === '/to-photo') return res.writeHead(302, { location: '/photo.png' }).end()
    if (path === '/to-secret') return res.writeHead(302, { location: `${secret.url}/` }).end()
    if (path === '/to-localhost') return res.writeHead(301, { location: `http://localhost:${secret.port}/` }).end()
    if (path === '/to-credentials') return res.writeHead(302, { location: `http://someone:pw@127.0.0.1:${media.port}/photo.png` }).end()
    if (path === '/to-file') return res.writeHead(302, { location: 'file:///etc/passwd' }).end()
    if (path === '/loop') return res.writeHead(302, { location: '/loop' }).end()
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
  })
})

afterAll(async () => {
  await Promise.all([media.close(), secret.close(), upstream.close()])
})

/** A GET whose answer may be cut mid-body: how many bytes came and whether the body was complete. */
function cutShort(port: number, path: string): Promise<{ status: number; bytes: number; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path, headers: { cookie: 'sb_session=ok' } }, (res) => {
      let bytes = 0
      res.on('data', (c: Buffer) => (bytes += c.length))
      res.on('error', () => undefined)
      res.on('close', () => resolve({ status: res.statusCode ?? 0, bytes, complete: res.complete }))
    })
    req.on('error', reject)
  })
}

const VIEWER: Principal = { name: 'vic', role: 'viewer', via: 'password' }

/**
 * The app with the media route and a minimal gate: a request with the session cookie is the
 * viewer, one without is nobody (401); audit calls are recorded. The route finds addresses in a
 * table of messages the test writes (`messages`, number 15550001111, by ordinal): `get(url)`
 * puts the address in the next message and asks for that message, as the app's pages do.
 */
const NUMBER = '15550001111'
const PARTY = '14155550123'

async function appWith(options: Partial<MediaOptions> = {}) {
  const audits: Array<{ action: string; details: Record<string, unknown> }> = []
  const gate: AccessGate = {
    identify: async (req) => (String(req.headers.cookie ?? '').includes('sb_session=ok') ? VIEWER : null),
    routes: [],
    audit: async (_p, _a, action, details) => void audits.push({ action, details }),
    recordRead: async (_p, _a, action, details) => void audits.push({ action, details }),
  }
  const messages: string[] = []
  const locate: Locate = async (_ctx, ref) => {
    const url = 'ordinal' in ref && ref.number === NUMBER ? messages[ref.ordinal - 1] : undefined
    return url === undefined ? [] : [{ url, number: NUMBER, party: PARTY }]
  }
  const route = createMediaRoute({ upstreamBaseUrl: upstream.url, allowedHosts: [], maxBytes: MAX, timeoutMs: 1_000, locate, ...options })
  const app = await proxyFor(upstream.url, {}, { routes: [route], gate })
  const pathFor = (target: string) => `/api/media?number=${NUMBER}&ordinal=${messages.push(target)}`
  const get = (target: string, headers: Record<string, string> = {}) =>
    raw(app.port, { method: 'GET', path: pathFor(target), headers: { cookie: 'sb_session=ok', ...headers } })
  return { ...app, audits, get, pathFor }
}

/** The log entry of a view of media at `host`, asked for as the test's message `ordinal`. */
const viewed = (host: string, ordinal: number) => ({ action: 'media.view', details: { host, number: NUMBER, party: PARTY, ordinal } })

describe('/api/media', () => {
  it('refuses a loopback media server that is not the upstream, without contacting it', async () => {
    const app = await appWith()
    try {
      const before = media.seen.length
      const r = await app.get(`${media.url}/photo.png`)
      expect(r.status).toBe(403)
      expect(r.json().error).toMatchObject({ kind: 'forbidden', field: 'url' })
      expect(r.json().error?.message).toMatch(/loopback/)
      expect(media.seen.length).toBe(before)
      expect(app.audits).toEqual([])
    } finally {
      await app.close()
    }
  })

  it('serves media from the upstream host, inline, with nosniff and no caching; the log names the host only', async () => {
    const app = await appWith({ upstreamBaseUrl: media.url })
    try {
      const r = await app.get(`${media.url}/photo.png?token=SECRET-abc`)
      expect(r.status).toBe(200)
      expect(r.headers['content-type']).toBe('image/png')
      expect(Number(r.headers['content-length'])).toBe(PNG.length)
      expect(r.headers['x-content-type-options']).toBe('nosniff')
      expect(r.headers['content-disposition']).toBe(`inline; filename="photo.png"; filename*=UTF-8''photo.png`)
      expect(r.headers['content-security-policy']).toMatch(/default-src 'none'.*sandbox/)
      expect(r.headers['cache-control']).toBe('private, no-store')
      expect(r.headers['set-cookie']).toBeUndefined()
      expect(app.audits).toEqual([viewed(`127.0.0.1:${media.port}`, 1)])
      expect(JSON.stringify(app.audits)).not.toContain('SECRET')
      // A stranger's file name stays a quoted token: no quote, backslash or line break gets through.
      const odd = await app.get(`${media.url}/caf%C3%A9%20(1)%22%0D%0ASet-Cookie:x.png`)
      expect(odd.headers['content-disposition']).toBe(
        `inline; filename="caf_ (1)Set-Cookie:x.png"; filename*=UTF-8''caf%C3%A9%20%281%29Set-Cookie%3Ax.png`,
      )
      expect(odd.headers['set-cookie']).toBeUndefined()
    } finally {
      await app.close()
    }
  })

  it('serves a private host listed in MEDIA_ALLOWED_HOSTS, by name and by name:port', async () => {
    for (const entry of ['127.0.0.1', `127.0.0.1:${media.port}`]) {
      const app = await appWith({ allowedHosts: [entry] })
      try {
        const r = await app.get(`${media.url}/photo.png`)
        expect(r.status, entry).toBe(200)
      } finally {
        await app.close()
      }
    }
    const other = await appWith({ allowedHosts: [`127.0.0.1:${media.port + 1}`] })
    try {
      expect((await other.get(`${media.url}/photo.png`)).status).toBe(403)
    } finally {
      await other.close()
    }
  })

  it('sends no cookie, referrer, authorization, range or client header upstream', async () => {
    const app = await appWith({ upstreamBaseUrl: media.url })
    try {
      const r = await app.get(`${media.url}/photo.png`, {
        referer: 'http://127.0.0.1/history/secret-number',
        authorization: 'Bearer reader-token',
        range: 'bytes=0-10',
        'user-agent': 'ReaderBrowser/1.0',
        'x-forwarded-for': '198.51.100.7',
        'accept-language': 'fr',
      })
      expect(r.status).toBe(200)
      const headers = media.seen.at(-1)!.headers
      for (const name of ['cookie', 'referer', 'authorization', 'range', 'x-forwarded-for', 'accept-language'])
        expect(headers[name], name).toBeUndefined()
      expect(headers['user-agent']).toBe('Switchboard-media/1')
      expect(JSON.stringify(headers)).not.toMatch(/sb_session|reader-token|ReaderBrowser|secret-number/)
    } finally {
      await app.close()
    }
  })

  it('refuses names that resolve to private or loopback addresses, and pins the checked address', async () => {
    const calls: string[] = []
    const table: Record<string, string[]> = {
      'lan.example': ['10.0.0.5'],
      'rebind.example': ['127.0.0.1'],
      'mixed.example': ['93.184.216.34', '127.0.0.1'],
      'metadata.example': ['::ffff:169.254.169.254'],
      'pinned.test': ['127.0.0.1'],
    }
    const resolve: Resolver = async (hostname) => {
      calls.push(hostname)
      if (hostname === 'localhost')
        return (await lookup(hostname, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
      return (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
    }
    const app = await appWith({ resolve, allowedHosts: [`pinned.test:${media.port}`] })
    try {
      const before = media.seen.length
      for (const name of ['lan.example', 'rebind.example', 'mixed.example', 'metadata.example']) {
        const r = await app.get(`http://${name}:${media.port}/photo.png`)
        expect(r.status, name).toBe(403)
        expect(r.json().error?.kind).toBe('forbidden')
      }
      // Through the system's own resolver: localhost is loopback.
      const local = await app.get(`http://localhost:${media.port}/photo.png`)
      expect(local.status, local.body).toBe(403)
      expect((await app.get(`http://[::ffff:127.0.0.1]:${media.port}/photo.png`)).status).toBe(403)
      expect((await app.get(`http://0x7f.1:${media.port}/photo.png`)).status).toBe(403)
      expect(media.seen.length).toBe(before)
      // pinned.test exists only in the test's resolver: the connection used the checked answer,
      // not a second DNS query of its own.
      const r = await app.get(`http://pinned.test:${media.port}/photo.png`)
      expect(r.status).toBe(200)
      expect(calls.filter((c) => c === 'pinned.test')).toHaveLength(1)
      expect(media.seen.at(-1)?.headers.host).toBe(`pinned.test:${media.port}`)
    } finally {
      await app.close()
    }
  })

  it('follows checked redirects and refuses one to a loopback address or another scheme', async () => {
    const app = await appWith({ upstreamBaseUrl: media.url })
    try {
      const ok = await app.get(`${media.url}/to-photo`)
      expect(ok.status).toBe(200)
      expect(ok.headers['content-type']).toBe('image/png')
      const secretBefore = secret.seen.length
      for (const path of ['/to-secret', '/to-localhost']) {
        const r = await app.get(`${media.url}${path}`)
        expect(r.status, path).toBe(403)
        expect(r.json().error?.message).toMatch(/loopback/)
      }
      expect(secret.seen.length).toBe(secretBefore)
      expect((await app.get(`${media.url}/to-file`)).status).toBe(403)
      expect((await app.get(`${media.url}/to-credentials`)).status).toBe(200)
      expect(media.seen.at(-1)?.headers.authorization).toBeUndefined()
      const loop = await app.get(`${media.url}/loop`)
      expect(loop.status).toBe(502)
      expect(loop.json().error?.message).toMatch(/redirected more than 3 times/)
    } finally {
      await app.close()
    }
  })

  it('refuses what is not media (415), too large (413), missing (404), slow (504)', async () => {
    const app = await appWith({ upstreamBaseUrl: media.url, timeoutMs: 500 })
    try {
      for (const path of ['/page.html', '/logo.svg']) {
        const r = await app.get(`${media.url}${path}`)
        expect(r.status, path).toBe(415)
        expect(r.json().error?.kind).toBe('bad_response')
        expect(r.body).not.toContain('<script>')
      }
      const declared = await app.get(`${media.url}/declared-big.png`)
      expect(declared.status).toBe(413)
      expect(declared.json().error?.message).toMatch(/larger than 4096 bytes/)
      // A chunked body declares no size: it streams, and is cut once past the cap.
      const chunked = await cutShort(app.port, app.pathFor(`${media.url}/chunked-big.png`))
      expect(chunked).toMatchObject({ status: 200, complete: false })
      expect(chunked.bytes).toBeLessThanOrEqual(MAX)
      expect(app.logs.join('\n')).not.toMatch(/failed:/)
      expect((await app.get(`${media.url}/nothing.png`)).status).toBe(404)
      const t0 = performance.now()
      const slow = await app.get(`${media.url}/slow.png`)
      expect(slow.status).toBe(504)
      expect(slow.json().error?.kind).toBe('timeout')
      expect(performance.now() - t0).toBeLessThan(2_500)
      const t1 = performance.now()
      const slowBody = await cutShort(app.port, app.pathFor(`${media.url}/slow-body.png`))
      expect(slowBody).toMatchObject({ status: 200, complete: false, bytes: 100 })
      expect(performance.now() - t1).toBeLessThan(2_500)
      const pdf = await app.get(`${media.url}/invoice.pdf`)
      expect(pdf.status).toBe(200)
      expect(pdf.headers['content-disposition']).toMatch(/^attachment; filename="invoice.pdf"/)
      // None of the refusals was logged as a view; the cut streams (their headers went out) and the PDF were.
      expect(app.audits).toHaveLength(3)
    } finally {
      await app.close()
    }
  })

  it('validates its parameters, each error naming the field; signed-out readers get 401', async () => {
    const app = await appWith({ upstreamBaseUrl: media.url })
    const q = (query: string, method = 'GET', cookie = 'sb_session=ok') =>
      raw(app.port, { method, path: `/api/media${query}`, headers: { cookie } })
    try {
      const ok = app.pathFor(`${media.url}/photo.png`)
      const cases: Array<[string, string, RegExp]> = [
        ['', 'number', /number is required/],
        ['?ordinal=1', 'number', /number is required/],
        ['?number=12&ordinal=1', 'number', /6 to 15 digits/],
        [`?number=${NUMBER}`, 'message', /message is required/],
        [`?number=${NUMBER}&ordinal=0`, 'ordinal', /positive whole number/],
        [`?number=${NUMBER}&ordinal=1.5`, 'ordinal', /positive whole number/],
        [`?number=${NUMBER}&ordinal=1&message=abc`, 'ordinal', /not both/],
        [`?number=${NUMBER}&message=a%20b`, 'message', /no spaces/],
        [`?number=${NUMBER}&system=${'1'.repeat(129)}`, 'system', /1 to 128/],
        [`?number=${NUMBER}&ordinal=1&ordinal=2`, 'ordinal', /more than once/],
        // The address and the customer are the server's to know: a page can no longer name them.
        [`?url=${encodeURIComponent(`${media.url}/photo.png`)}`, 'url', /Unknown parameter url.*looks the media address up itself/],
        [`?number=${NUMBER}&ordinal=1&party=15550001234`, 'party', /Unknown parameter party/],
      ]
      for (const [query, field, message] of cases) {
        const r = await q(query)
        expect(r.status, query.slice(0, 60)).toBe(400)
        expect(r.json().error).toMatchObject({ kind: 'invalid_request', field })
        expect(r.json().error?.message).toMatch(message)
      }
      const post = await q(ok.slice('/api/media'.length), 'POST')
      expect(post.status).toBe(405)
      expect(post.headers.allow).toBe('GET')
      expect((await q('x?number=1')).status).toBe(404)
      const out = await q(ok.slice('/api/media'.length), 'GET', '')
      expect(out.status).toBe(401)
      expect(app.audits).toEqual([])
    } finally {
      await app.close()
    }
  })

  it("serves only a message the server knows, and checks its stored address as a stranger's link", async () => {
    const app = await appWith({ upstreamBaseUrl: media.url })
    const q = (query: string) => raw(app.port, { method: 'GET', path: `/api/media${query}`, headers: { cookie: 'sb_session=ok' } })
    try {
      expect((await app.get(`${media.url}/photo.png`)).status).toBe(200)
      const before = media.seen.length
      // A message the table does not hold, or another number's: refused before any fetch.
      for (const [query, field] of [
        [`?number=${NUMBER}&ordinal=99`, 'ordinal'],
        [`?number=19999999999&ordinal=1`, 'ordinal'],
        [`?number=${NUMBER}&system=1&message=abc`, 'message'],
      ] as const) {
        const r = await q(query)
        expect(r.status, query).toBe(404)
        expect(r.json().error).toMatchObject({ kind: 'not_found', field })
      }
      for (const stored of [
        'javascript:alert(1)',
        '/media/photo.png',
        `http://user:pw@127.0.0.1:${media.port}/photo.png`,
        'ftp://x/a.png',
      ]) {
        const r = await app.get(stored)
        expect(r.status, stored).toBe(422)
        expect(r.json().error).toMatchObject({ kind: 'bad_response', field: 'message' })
      }
      expect(media.seen.length).toBe(before)
      expect(app.audits).toHaveLength(1)
    } finally {
      await app.close()
    }
  })
})

describe('/api/media connections', () => {
  it('leaves no connection to the media host open, whatever the answer', async () => {
    // A long deadline, so only prompt clean-up closes them in time.
    const app = await appWith({ upstreamBaseUrl: media.url, timeoutMs: 20_000 })
    try {
      const paths = [
        '/photo.png',
        '/html-forever',
        '/page.html',
        '/declared-big.png',
        '/nothing.png',
        '/to-photo',
        '/to-secret',
        '/invoice.pdf',
      ]
      for (let round = 0; round < 4; round++) {
        await Promise.all(paths.map((p) => app.get(`${media.url}${p}`)))
        await cutShort(app.port, app.pathFor(`${media.url}/chunked-big.png`))
      }
      await expect.poll(() => media.connections(), { timeout: 2_000 }).toBe(0)
    } finally {
      await app.close()
    }
  })
})

describe('/api/media in the running server', () => {
  it("serves the embedded simulator's media for a message of a page it served, and nothing by address", async () => {
    const stack = await simStack()
    try {
      const n = makeAccount(SENTINEL_SYS_ID, SENTINEL_TOKEN, 60).numbers.find((p) => p.kind === 'normal' && p.baseTotal >= 200)!
      const page = await raw(stack.port, {
        method: 'POST',
        path: '/api/smshistory',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `number=${n.number}&tid=${n.tid}&history_start=1&history_end=30`,
      })
      expect(page.status).toBe(200)
      const m = (page.json() as unknown as { messages: Array<{ system_id: number; message_id: string; mms_url: string }> }).messages.find(
        (x) => x.mms_url.endsWith('.png'),
      )!
      const get = (query: string) => raw(stack.port, { method: 'GET', path: `/api/media?${query}`, headers: {} })
      const ok = await get(`number=${n.number}&system=${m.system_id}&message=${m.message_id}`)
      expect(ok.status).toBe(200)
      expect(ok.headers['content-type']).toBe('image/png')
      // By address, even the simulator's own: refused before any fetch.
      const byUrl = await get(`url=${encodeURIComponent(m.mms_url)}`)
      expect(byUrl.status).toBe(400)
      expect(byUrl.json().error?.field).toBe('url')
    } finally {
      await stack.close()
    }
  })
})
