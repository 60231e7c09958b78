import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SENTINEL_SYS_ID, SENTINEL_TOKEN, simStack } from '../testing/helpers.ts'

/**
 * The proxy against the second upstream dialect (dialect.ts): refusals as HTTP 4xx in other
 * words and shapes, an HTML page for bad credentials, the count key without its space. What the
 * browser sees must not depend on which upstream answered.
 */
describe.each(['reference', 'plain'] as const)('the proxy against the %s dialect', (dialect) => {
  let stack: Awaited<ReturnType<typeof simStack>>
  beforeAll(async () => {
    stack = await simStack({}, dialect)
  })
  afterAll(() => stack.close())

  const post = async (path: string, fields: Record<string, string>) => {
    const res = await fetch(`${stack.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    })
    return { status: res.status, body: (await res.json()) as { error?: { kind: string; message: string }; messages?: unknown[] } }
  }
  const first = async () => {
    const r = await post('/api/allownednumbers', {})
    expect(r.status).toBe(200)
    const data = (r.body as unknown as { data: Array<{ number: string; tid: string }> }).data
    return data[0]!
  }

  it('a number the account lists answers its history', async () => {
    const n = await first()
    const r = await post('/api/smshistory', { number: n.number, tid: n.tid, history_start: '1', history_end: '3' })
    expect(r.status).toBe(200)
    expect(r.body.messages).toHaveLength(3)
  })

  it('a number the account does not hold is "no such number" (404), whatever the upstream said', async () => {
    const n = await first()
    const fields = { number: '15550001111', tid: n.tid, history_start: '1', history_end: '3' }
    const upstream = await fetch(`${stack.simUrl}/api/smshistory`, {
      method: 'POST',
      body: new URLSearchParams({ ...fields, sys_id: SENTINEL_SYS_ID, auth_token: SENTINEL_TOKEN }),
    })
    // The two upstreams really do differ here: 200 with success "0", or a 404 in other words.
    expect(upstream.status).toBe(dialect === 'plain' ? 404 : 200)
    const r = await post('/api/smshistory', fields)
    expect(r.status).toBe(404)
    expect(r.body.error).toMatchObject({ kind: 'not_found', message: expect.stringMatching(/no such number/i) })
  })

  it('refused credentials are "unauthorized", whether the upstream sent JSON or an HTML page', async () => {
    const other = await simStack({ API_BASE_URL: stack.simUrl, API_AUTH_TOKEN: 'not-the-token' }, dialect)
    try {
      const res = await fetch(`${other.url}/api/allownednumbers`, { method: 'POST' })
      const body = (await res.json()) as { error: { kind: string } }
      expect(body.error.kind).toBe('unauthorized')
    } finally {
      await other.close()
    }
  })
})
