import { afterEach, describe, expect, it } from 'vitest'
import { ProxyError } from './errors.ts'
import { createForwarder, scrub } from './forward.ts'
import { parsePage } from './index/parse.ts'
import { SYS_ID, TOKEN, form, proxyFor, raw, stubUpstream } from './testing/helpers.ts'

const ok = JSON.stringify({ success: '1', data: [{ number: '18323232323', tid: 'A1', type: 'local', webhook: '', dlr: '' }] })
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

async function setup(answer: Parameters<typeof stubUpstream>[0], env: Record<string, string> = {}) {
  const up = await stubUpstream(answer)
  const proxy = await proxyFor(up.url, env)
  cleanups.push(up.close, proxy.close)
  return { up, proxy }
}

const history = { number: '18323232323', tid: 'ABC123', history_start: '1', history_end: '50' }

describe('forwarding', () => {
  it('passes the upstream JSON through unchanged and attaches the credentials as form fields', async () => {
    const { up, proxy } = await setup((_req, res) => res.end(ok))
    const r = await raw(proxy.port, { path: '/api/allownednumbers' })
    expect(r.status).toBe(200)
    expect(r.body).toBe(ok)
    expect(up.received).toHaveLength(1)
    const got = up.received[0]!
    expect(got.method).toBe('POST')
    expect(got.url).toBe('/api/allownednumbers')
    expect(got.headers['content-type']).toBe('application/x-www-form-urlencoded')
    const fields = new URLSearchParams(got.body)
    expect(fields.getAll('sys_id')).toEqual([SYS_ID])
    expect(fields.getAll('auth_token')).toEqual([TOKEN])
  })

  it('forwards only the operation parameters, overriding browser credentials, duplicates included', async () => {
    const { up, proxy } = await setup((_req, res) => res.end(JSON.stringify({ success: '1', total_message_count: 0, messages: [] })))
    const r = await raw(proxy.port, {
      path: '/api/smshistory',
      ...form([...Object.entries(history), ['sys_id', 'evil'], ['auth_token', 'evil1'], ['auth_token', 'evil2'], ['extra', 'dropped']]),
    })
    expect(r.status).toBe(200)
    const fields = new URLSearchParams(up.received[0]!.body)
    expect(fields.getAll('sys_id')).toEqual([SYS_ID])
    expect(fields.getAll('auth_token')).toEqual([TOKEN])
    expect(fields.get('extra')).toBeNull()
    expect(Object.fromEntries([...fields].filter(([k]) => k in history))).toEqual(history)
  })

  it("hands the index the page it parsed and the bytes as they came: the sync's page equals a parse of the bytes", async () => {
    // A page with a multi-byte body (é, an emoji) split across two chunks inside a character.
    const page = JSON.stringify({
      success: '1',
      total_message_count: 1,
      messages: [{ phone: '+1 832 323 2323', GMTdate: '2033-01-02 03:04:05', direction: 'in', body: 'Café 👋', status: 'delivered' }],
    })
    const bytes = Buffer.from(page, 'utf8')
    const cut = bytes.indexOf(Buffer.from('👋')) + 2
    const up = await stubUpstream((_req, res) => {
      res.write(bytes.subarray(0, cut))
      setTimeout(() => res.end(bytes.subarray(cut)), 20)
    })
    cleanups.push(up.close)
    const fw = createForwarder({ baseUrl: up.url, sysId: SYS_ID, authToken: TOKEN }, 5000)
    cleanups.push(() => fw.close())
    const res = await fw.forward('smshistory', Object.entries(history))
    expect(res.body.equals(bytes)).toBe(true)
    expect(res.json).toEqual(JSON.parse(page))
    expect(parsePage(res.body, res.json)).toEqual(parsePage(res.body))
    expect(parsePage(res.body, res.json).records[0]!.body).toBe('Café 👋')
  })

  it('accepts JSON bodies from the browser and forwards form fields', async () => {
    const { up, proxy } = await setup((_req, res) => res.end(ok))
    const r = await raw(proxy.port, {
      path: '/api/ownednumbers',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ number_type: 'tollfree' }),
    })
    expect(r.status).toBe(200)
    expect(new URLSearchParams(up.received[0]!.body).get('number_type')).toBe('tollfree')
  })
})

describe('upstream failure mapping', () => {
  const cases: Array<[string, Parameters<typeof stubUpstream>[0], number, string, RegExp?]> = [
    ['HTTP 500', (_q, res) => ((res.statusCode = 500), res.end('{"error":"boom"}')), 502, 'unreachable', /HTTP 500/],
    [
      'HTTP 503 HTML',
      (_q, res) => (res.writeHead(503, { 'content-type': 'text/html', 'retry-after': '2' }), res.end('<html>down</html>')),
      502,
      'unreachable',
    ],
    ['HTTP 404', (_q, res) => ((res.statusCode = 404), res.end('{"message":"no such thing"}')), 502, 'upstream_rejected', /no such thing/],
    // The service's words end their sentence before ours begins ("Invalid credentials Check API_SYS_ID" before).
    [
      'HTTP 401',
      (_q, res) => ((res.statusCode = 401), res.end('{"message":"bad creds"}')),
      401,
      'unauthorized',
      /^The messaging service rejected the account credentials: bad creds\. Check API_SYS_ID and API_AUTH_TOKEN\.$/,
    ],
    ['HTML with 200', (_q, res) => res.end('<!doctype html><p>hi</p>'), 502, 'bad_response', /web page/],
    ['empty body', (_q, res) => res.end(''), 502, 'bad_response', /empty/],
    ['malformed JSON', (_q, res) => res.end("{success: '1'"), 502, 'bad_response', /malformed JSON/],
    ['truncated JSON', (_q, res) => res.end('{"success":"1","data":[{"num'), 502, 'bad_response', /malformed JSON/],
    ['JSON array', (_q, res) => res.end('[1,2]'), 502, 'bad_response', /not an object/],
    [
      'success "0" with message',
      (_q, res) => res.end('{"success":"0","error":true,"message":"Number not on account"}'),
      502,
      'upstream_rejected',
      /Number not on account/,
    ],
    ['success missing', (_q, res) => res.end('{"data":[]}'), 502, 'upstream_rejected'],
    // Busy, not refused: retried (after Retry-After when given), never a pause.
    ['HTTP 429', (_q, res) => (res.writeHead(429), res.end()), 504, 'timeout', /busy and asked for fewer requests \(HTTP 429\)/],
    ['HTTP 408', (_q, res) => (res.writeHead(408), res.end()), 504, 'timeout', /HTTP 408/],
    [
      'success "0" naming a rate limit',
      (_q, res) => res.end('{"success":"0","message":"Rate limit exceeded. Try again in 1 second."}'),
      504,
      'timeout',
      /busy and asked for fewer requests: Rate limit exceeded/,
    ],
    ['redirect', (_q, res) => (res.writeHead(302, { location: 'http://127.0.0.1:1/x' }), res.end()), 502, 'bad_response', /redirect/],
  ]
  it.each(cases)('%s', async (_name, answer, status, kind, message) => {
    const { proxy } = await setup(answer)
    const r = await raw(proxy.port, { path: '/api/allownednumbers' })
    expect(r.status).toBe(status)
    expect(r.json().error?.kind).toBe(kind)
    if (message) expect(r.json().error?.message).toMatch(message)
  })

  it('reports Retry-After in milliseconds', async () => {
    const { proxy } = await setup((_q, res) => (res.writeHead(503, { 'retry-after': '2' }), res.end()))
    const r = await raw(proxy.port, { path: '/api/allownednumbers' })
    expect(r.json().error).toMatchObject({ kind: 'unreachable', upstreamStatus: 503, retryAfterMs: 2000 })
  })

  it('reports a 429 as busy, with its Retry-After in milliseconds', async () => {
    const { proxy } = await setup((_q, res) => (res.writeHead(429, { 'retry-after': '3' }), res.end()))
    const r = await raw(proxy.port, { path: '/api/allownednumbers' })
    expect(r.json().error).toMatchObject({ kind: 'timeout', upstreamStatus: 429, retryAfterMs: 3000 })
  })

  it('times out a hanging upstream promptly', async () => {
    const { proxy } = await setup(() => {
      /* never answers */
    })
    const t0 = Date.now()
    const r = await raw(proxy.port, { path: '/api/allownednumbers' })
    expect(r.status).toBe(504)
    expect(r.json().error?.kind).toBe('timeout')
    expect(Date.now() - t0).toBeLessThan(3000)
  })

  it('maps a down upstream to unreachable', async () => {
    const up = await stubUpstream((_q, res) => res.end(ok))
    const proxy = await proxyFor(up.url)
    cleanups.push(proxy.close)
    await up.close()
    const r = await raw(proxy.port, { path: '/api/allownednumbers' })
    expect(r.status).toBe(502)
    expect(r.json().error?.kind).toBe('unreachable')
  })

  it('does not forward upstream headers (cookies, hop-by-hop)', async () => {
    const { proxy } = await setup((_q, res) => {
      res.setHeader('set-cookie', 'session=upstream')
      res.setHeader('x-upstream-secret', 'yes')
      res.end(ok)
    })
    const r = await raw(proxy.port, { path: '/api/allownednumbers' })
    expect(r.headers['set-cookie']).toBeUndefined()
    expect(r.headers['x-upstream-secret']).toBeUndefined()
  })

  it('does not forward browser cookies or hop-by-hop headers upstream', async () => {
    const { up, proxy } = await setup((_q, res) => res.end(ok))
    await raw(proxy.port, {
      path: '/api/allownednumbers',
      headers: { cookie: 'sid=browser', 'proxy-authorization': 'Basic x', te: 'trailers', 'x-forwarded-for': '1.2.3.4' },
    })
    const h = up.received[0]!.headers
    expect(h.cookie).toBeUndefined()
    expect(h['proxy-authorization']).toBeUndefined()
    expect(h['x-forwarded-for']).toBeUndefined()
  })
})

describe('token scrubbing', () => {
  it('scrubs the token and sys_id from quoted upstream error text', async () => {
    const { proxy } = await setup((_q, res, body) => {
      const f = new URLSearchParams(body)
      res.end(
        JSON.stringify({
          success: '0',
          message: `token ${f.get('auth_token')} (${encodeURIComponent(f.get('auth_token') ?? '')}) invalid for ${f.get('sys_id')}`,
        }),
      )
    })
    const r = await raw(proxy.port, { path: '/api/allownednumbers' })
    expect(r.body).not.toContain(TOKEN)
    expect(r.body).not.toContain(SYS_ID)
    expect(r.json().error?.message).toContain('[redacted]')
    expect(proxy.logs.join('\n')).not.toContain(TOKEN)
  })
  it('scrub replaces every occurrence and leaves other text', () => {
    expect(scrub('a SECRET b SECRET', ['SECRET'])).toBe('a [redacted] b [redacted]')
    expect(scrub('nothing here', ['SECRET'])).toBe('nothing here')
  })
})

describe('"no such number" is decided from the account, not from wording', () => {
  // An upstream written from the provider's published example, not our simulator: its own words
  // for every refusal, HTTP 200 with success "0" for one, HTTP 400 for another.
  const provider = (refusal: 'json200' | 'http400') =>
    setup((req, res, body) => {
      if (req.url === '/api/allownednumbers')
        return res.end(JSON.stringify({ success: '1', data: [{ number: 18323232323, tid: 'ABC123', type: 'local' }] }))
      const f = new URLSearchParams(body)
      if (f.get('number') === '18323232323' && f.get('tid') === 'ABC123' && f.get('history_start') !== '999')
        return res.end(JSON.stringify({ success: '1', total_message_count: 0, messages: [] }))
      if (refusal === 'http400') res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ success: '0', error: true, message: 'Request could not be completed.' }))
    })

  it.each(['json200', 'http400'] as const)('answers 404 for a number the account does not list (%s refusal)', async (refusal) => {
    const { proxy } = await provider(refusal)
    const unknown = await raw(proxy.port, { path: '/api/smshistory', ...form({ ...history, number: '15550001111' }) })
    expect(unknown.status).toBe(404)
    expect(unknown.json().error).toMatchObject({ kind: 'not_found', message: expect.stringMatching(/no such number/) })
    const wrongTid = await raw(proxy.port, { path: '/api/smshistory', ...form({ ...history, tid: 'OTHER' }) })
    expect(wrongTid.status).toBe(404)
  })

  it('keeps a refusal of a number the account does hold as the upstream said it', async () => {
    const { proxy } = await provider('json200')
    const r = await raw(proxy.port, { path: '/api/smshistory', ...form({ ...history, history_start: '999', history_end: '1000' }) })
    expect(r.status).toBe(502)
    expect(r.json().error).toMatchObject({ kind: 'upstream_rejected', message: expect.stringMatching(/Request could not be completed/) })
  })

  it('forwardBytes hands back a 2xx answer unjudged, and judge gives it the same verdict forward does', async () => {
    const { up } = await provider('json200')
    const fw = createForwarder({ baseUrl: up.url, sysId: SYS_ID, authToken: TOKEN }, 5000)
    cleanups.push(() => fw.close())
    const held = Object.entries(history)
    const page = await fw.forwardBytes('smshistory', held)
    expect(page.status).toBe(200)
    expect(JSON.parse(page.body.toString('utf8'))).toMatchObject({ success: '1', total_message_count: 0 })
    expect(await fw.judge('smshistory', held, page.body, page.status)).toEqual(await fw.forward('smshistory', held))
    // A refusal in a 200 answer is only bytes until judged; judged, it is what forward throws.
    for (const fields of [Object.entries({ ...history, history_start: '999' }), Object.entries({ ...history, number: '15550001111' })]) {
      const refused = await fw.forwardBytes('smshistory', fields)
      expect(refused.status).toBe(200)
      const verdict = await fw.judge('smshistory', fields, refused.body, refused.status).catch((e: unknown) => e)
      const direct = await fw.forward('smshistory', fields).catch((e: unknown) => e)
      expect(verdict).toBeInstanceOf(ProxyError)
      expect((verdict as ProxyError).body).toEqual((direct as ProxyError).body)
    }
    expect(((await fw.judge('smshistory', held, Buffer.from('{"success":'), 200).catch((e: unknown) => e)) as ProxyError).body.kind).toBe(
      'bad_response',
    )
  })

  it('forwardBytes throws an HTTP refusal as forward does: 404 for a number the account does not list', async () => {
    const { up } = await provider('http400')
    const fw = createForwarder({ baseUrl: up.url, sysId: SYS_ID, authToken: TOKEN }, 5000)
    cleanups.push(() => fw.close())
    const err = await fw.forwardBytes('smshistory', Object.entries({ ...history, number: '15550001111' })).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ProxyError)
    expect((err as ProxyError).body.kind).toBe('not_found')
  })

  it('a number removed from the account since the listing was last read is "no such number" within seconds, not after 30', async () => {
    let listed = true
    const { proxy } = await setup((req, res) => {
      if (req.url === '/api/allownednumbers')
        return res.end(JSON.stringify({ success: '1', data: listed ? [{ number: 18323232323, tid: 'ABC123', type: 'local' }] : [] }))
      res.end(JSON.stringify({ success: '0', message: 'Request could not be completed.' }))
    })
    // Refused while listed: the upstream's words (the listing is read and holds it).
    const held = await raw(proxy.port, { path: '/api/smshistory', ...form(history) })
    expect(held.json().error?.kind).toBe('upstream_rejected')
    listed = false
    await new Promise((r) => setTimeout(r, 2_100))
    const gone = await raw(proxy.port, { path: '/api/smshistory', ...form(history) })
    expect(gone.status).toBe(404)
    expect(gone.json().error).toMatchObject({ kind: 'not_found', message: expect.stringMatching(/no such number/) })
  })

  it('keeps the refusal when the listing itself cannot be read', async () => {
    const { proxy } = await setup((req, res) => {
      if (req.url === '/api/allownednumbers') return res.writeHead(500).end()
      res.end(JSON.stringify({ success: '0', message: 'nope' }))
    })
    const r = await raw(proxy.port, { path: '/api/smshistory', ...form(history) })
    expect(r.status).toBe(502)
    expect(r.json().error?.kind).toBe('upstream_rejected')
  })
})
