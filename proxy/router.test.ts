import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Action } from '../contract/vocabulary.ts'
import type { AccessGate, RouteSpec } from './http-types.ts'
import { sendJson } from './http.ts'
import { canonicalPathProblem } from './checks.ts'
import { checkRouteTable } from './route-table.ts'
import { ANY_QUERY, proxyFor, sendRaw, simStack, stubUpstream } from './testing/helpers.ts'

const ok: RouteSpec['handle'] = async (_req, res) => sendJson(res, 200, { ok: true })

describe('the router', () => {
  it('refuses a table that declares a route twice or a read with no action name', () => {
    const r: RouteSpec = { method: 'GET', path: '/api/x', access: 'public', reads: null, schema: ANY_QUERY, handle: ok }
    expect(() => checkRouteTable([r, r])).toThrow(/declared twice/)
    expect(() => checkRouteTable([{ ...r, reads: 'Not An Action' as Action }])).toThrow(/access-log action/)
    expect(() => checkRouteTable([{ ...r, path: '/api/X' }])).toThrow(/lower-case/)
  })

  describe('on the server', () => {
    let up: Awaited<ReturnType<typeof stubUpstream>>
    let proxy: Awaited<ReturnType<typeof proxyFor>>
    const named: RouteSpec['handle'] = async (_req, res, _url, _ctx, { params }) => sendJson(res, 200, { params })
    beforeAll(async () => {
      up = await stubUpstream((_q, res) => res.end('{}'))
      proxy = await proxyFor(
        up.url,
        {},
        {
          routes: [
            { method: 'GET', path: '/api/u', access: 'public', reads: null, schema: ANY_QUERY, handle: ok },
            { method: 'POST', path: '/api/u/:name', access: 'public', reads: null, schema: ANY_QUERY, handle: named },
            { method: 'POST', path: '/api/u/all', access: 'public', reads: null, schema: ANY_QUERY, handle: ok },
          ],
        },
      )
    })
    afterAll(async () => {
      await proxy.close()
      await up.close()
    })
    const send = (method: string, path: string) =>
      sendRaw(proxy.port, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)

    it('matches exactly, names the allowed methods, and prefers fixed segments to parameters', async () => {
      expect((await send('GET', '/api/u/')).status).toBe(400)
      expect((await send('GET', '/api/uu')).status).toBe(404)
      expect((await send('GET', '/api/u#x')).status).toBe(404)
      const wrong = await send('DELETE', '/api/u')
      expect(wrong.status).toBe(405)
      expect(wrong.head).toMatch(/\r\nallow: GET\r\n/i)
      expect(JSON.parse((await send('POST', '/api/u/all')).body.toString())).toEqual({ ok: true })
      expect(JSON.parse((await send('POST', '/api/u/a%20b')).body.toString())).toEqual({ params: { name: 'a b' } })
    })
  })

  it.each(['/api/./x', '/api/x/', '/api/x;a=1', '/api/%78', '/api/%2D', '/api/a%7Eb'])('refuses the non-canonical %s', (path) => {
    expect(canonicalPathProblem(path)?.status).toBe(400)
  })
  it.each(['/api/x', '/api/auth/users/a%20b', '/api/auth/users/%40home'])('accepts %s', (path) => {
    expect(canonicalPathProblem(path)).toBeUndefined()
  })
})

describe('a read route fails closed', () => {
  let up: Awaited<ReturnType<typeof stubUpstream>>
  let proxy: Awaited<ReturnType<typeof proxyFor>>
  let logWorks = true
  const gate: AccessGate = {
    identify: async () => ({ name: 'ada', role: 'admin', via: 'password' }),
    routes: [],
    audit: async () => {},
    recordRead: async () => {
      if (!logWorks) throw new Error('disk full')
    },
  }
  const routes: RouteSpec[] = [
    // A handler that forgets to record its read.
    { method: 'GET', path: '/api/forgetful', access: 'signed-in', reads: 'message.view', schema: ANY_QUERY, handle: ok },
    {
      method: 'GET',
      path: '/api/careful',
      access: 'signed-in',
      reads: 'message.view',
      schema: ANY_QUERY,
      handle: async (req, res, url, ctx) => {
        await ctx.logRead({ what: 'x' })
        return ok(req, res, url, ctx, { query: {}, body: undefined, params: {} })
      },
    },
  ]
  beforeAll(async () => {
    up = await stubUpstream((_q, res) => res.end('{}'))
    proxy = await proxyFor(up.url, {}, { gate, routes })
  })
  afterAll(async () => {
    await proxy.close()
    await up.close()
  })
  const get = (path: string) => sendRaw(proxy.port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)

  it('refuses to send the answer of a read that was not recorded', async () => {
    const r = await get('/api/forgetful')
    expect(r.status).toBe(500)
    expect(r.body.toString()).not.toContain('"ok"')
  })

  it('answers 503 when the entry cannot be written, and serves again once it can', async () => {
    logWorks = false
    const refused = await get('/api/careful')
    expect(refused.status).toBe(503)
    expect(refused.body.toString()).toMatch(/access log could not record/)
    logWorks = true
    expect((await get('/api/careful')).status).toBe(200)
  })
})

describe("the framework's own refusals", () => {
  let stack: Awaited<ReturnType<typeof simStack>>
  beforeAll(async () => {
    stack = await simStack()
  }, 30_000)
  afterAll(async () => {
    await stack.close()
  })
  const envelope = (body: Buffer) => (JSON.parse(body.toString()) as { error: { kind: string; message: string } }).error

  it('answers a URL the router cannot decode, and a request Node cannot parse, in the envelope, and stays up', async () => {
    for (const target of ['/%zz', '/api/meta%zz', '/api/auth/users/%E2%82']) {
      const r = await sendRaw(stack.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
      expect(r.status).toBe(400)
      expect(envelope(r.body).kind).toBe('invalid_request')
    }
    const garbage = await sendRaw(stack.port, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n')
    expect(garbage.status).toBe(400)
    expect(envelope(garbage.body).kind).toBe('invalid_request')
    const meta = await sendRaw(stack.port, 'GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
    expect(meta.status).toBe(200)
  })

  it('answers a method no row declares, even one Fastify does not route by default, with 405 and Allow', async () => {
    const r = await sendRaw(stack.port, 'PROPFIND /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
    expect(r.status).toBe(405)
    expect(r.head).toMatch(/\r\nallow: GET, HEAD\r\n/i)
    expect(envelope(r.body).message).toBe('Use GET or HEAD for /api/meta.')
  })
})
