import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call } from '../testing/access-stack.ts'
import { startOnSimulator, type SimulatedStack } from '../testing/helpers.ts'
import { keyOf } from './mask.ts'

/**
 * The watch's routes in the real server (ACCESS=local, the demo simulator): the history and
 * endpoints answer, parameters are checked by their schemas, and reading the messages at risk
 * is logged with the numbers and customers it showed.
 */

describe('the callback watch over HTTP', () => {
  let stack: SimulatedStack
  let number = ''
  const port = () => Number(new URL(stack.running.url).port)

  beforeAll(async () => {
    stack = await startOnSimulator('pglite', 'sb-watch-routes-')
    const listing = await fetch(`${stack.simUrl}/api/allownednumbers`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'sys_id=sim-demo&auth_token=sim-demo-token-7f3a',
    })
    const data = ((await listing.json()) as { data: Array<{ number: string; webhook: string }> }).data
    number = data.find((n) => n.webhook.startsWith('https://hooks.'))!.number
  }, 120_000)
  afterAll(async () => {
    await stack?.close()
  })

  it('says before the first listing that there is no history yet', async () => {
    const r = await call(port(), 'GET', '/api/watch/changes')
    expect(r.status).toBe(200)
    expect(r.json()).toMatchObject({ changes: [], listings: [], note: expect.stringMatching(/cannot say who changed/) })
    const e = await call(port(), 'GET', '/api/watch/endpoints')
    expect(e.json()).toEqual({ endpoints: [] })
  })

  it('refuses a parameter it does not take, and a bad number, naming the field', async () => {
    const r = await call(port(), 'GET', '/api/watch/changes?nmber=1')
    expect(r.status).toBe(400)
    expect(r.json().error).toMatchObject({ kind: 'invalid_request', field: 'nmber' })
    const n = await call(port(), 'GET', '/api/watch/at-risk?number=12ab')
    expect(n.status).toBe(400)
    expect(n.json().error).toMatchObject({ field: 'number', message: expect.stringMatching(/phone number/) })
  })

  it('lists the messages that arrived after a webhook was emptied, and logs the customers shown', async () => {
    await stack.rooms.watch.listNow()
    const c = await fetch(`${stack.simUrl}/__sim/quirks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ callbacks: { number, webhook: '' } }),
    })
    expect(c.status).toBe(200)
    await new Promise((ok) => setTimeout(ok, 20))
    await stack.rooms.watch.listNow()
    await stack.rooms.db.query(
      `INSERT INTO index_messages (number, ordinal, fetched_tid, date, party_digits, direction) VALUES ($1, 1, 'T', now(), '15557770000', 'inbound')`,
      [number],
    )
    const changes = (await call(port(), 'GET', `/api/watch/changes?number=${number}`)).json() as {
      changes: Array<{ kind: string; to: string }>
    }
    expect(changes.changes.map((x) => [x.kind, x.to])).toEqual([['webhook', '']])
    const r = await call(port(), 'GET', `/api/watch/at-risk?number=${number}`)
    expect(r.status).toBe(200)
    const body = r.json() as { periods: Array<{ reason: string }>; messages: Array<{ party: string }> }
    expect(body.periods.map((p) => p.reason)).toEqual(['missing'])
    expect(body.messages.map((m) => m.party)).toEqual(['15557770000'])
    await stack.rooms.access.flush()
    const log = await stack.rooms.db.query<{ action: string; party: string | null; details: Record<string, unknown> }>(
      `SELECT action, party, details FROM access_log WHERE action = 'callbacks.view' ORDER BY id DESC LIMIT 1`,
    )
    expect(log.rows[0]).toMatchObject({ party: '15557770000', details: { number, parties: ['15557770000'], rows: 1 } })
  })

  it('shows an address with a secret masked, and reveals it whole to an admin, in the access log', async () => {
    const secret = 'https://hooks.example.org/dlr?token=tok-8812'
    await fetch(`${stack.simUrl}/__sim/quirks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ callbacks: { number, dlr: secret } }),
    })
    await stack.rooms.watch.listNow()
    const list = (await call(port(), 'GET', '/api/watch/endpoints')).text
    expect(list).not.toContain('tok-8812')
    expect(list).toContain('https://hooks.example.org/dlr?token=•••')
    const r = await call(port(), 'POST', '/api/watch/reveal', { json: { key: keyOf(secret) } })
    expect(r.status).toBe(200)
    expect(r.json()).toEqual({ key: keyOf(secret), url: secret })
    const unknown = await call(port(), 'POST', '/api/watch/reveal', { json: { key: '0123456789abcdef' } })
    expect(unknown.status).toBe(404)
    await stack.rooms.access.flush()
    const log = await stack.rooms.db.query<{ details: Record<string, unknown> }>(
      `SELECT details FROM access_log WHERE action = 'callbacks.reveal' ORDER BY id DESC LIMIT 1`,
    )
    expect(log.rows[0]?.details).toEqual({ endpoint: keyOf(secret), address: 'https://hooks.example.org/dlr?token=•••' })
  })
})
