import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_CREDENTIALS, LARGE_CREDENTIALS, SCALE_CREDENTIALS } from './dataset.ts'
import { extraTid, REMOVAL_WORDINGS } from './quirks.ts'
import { createSimulator } from './simulator.ts'

const sim = createSimulator()
let url = ''
let close = () => {}
beforeAll(async () => {
  const s = await sim.listen(0)
  url = s.url
  close = () => {
    s.server.closeAllConnections()
    s.server.close()
  }
})
afterAll(() => close())

async function op(path: string, fields: Record<string, string>, creds = DEMO_CREDENTIALS) {
  const res = await fetch(`${url}/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, sys_id: creds.sysId, auth_token: creds.authToken }),
  })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

const BIG = { number: '18323232323', tid: 'PUHMGWS98301' }

describe('the simulator speaks the API with its quirks', () => {
  it('answers success as the string "1" and the count key with its trailing space', async () => {
    const { json } = await op('smshistory', { ...BIG, history_start: '1', history_end: '100' })
    expect(json.success).toBe('1')
    expect(json['message_count_requested ']).toBe(100)
    expect(json.total_message_count).toBe(2345)
    expect(json.optin).toBe('yes')
    expect(json.created_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  })

  it('pages as 1-based inclusive positions, newest first, clamped at the total', async () => {
    const first = (await op('smshistory', { ...BIG, history_start: '1', history_end: '2' })).json.messages as Array<Record<string, unknown>>
    expect(first).toHaveLength(2)
    expect(Number(first[0]!.system_id)).toBeGreaterThan(Number(first[1]!.system_id))
    const last = (await op('smshistory', { ...BIG, history_start: '2301', history_end: '2400' })).json.messages as unknown[]
    expect(last).toHaveLength(45)
  })

  it('writes records as the field notes describe them', async () => {
    const msgs = (await op('smshistory', { ...BIG, history_start: '1', history_end: '1000' })).json.messages as Array<
      Record<string, string | number>
    >
    for (const m of msgs) {
      expect(String(m.message_id)).toMatch(/^[0-9a-f]{32}$/)
      expect(String(m.GMTdate)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      expect(String(m.phone)).toMatch(/^\d{10,11}$/)
      expect(String(m.status)).toMatch(/^\d{3}/)
      if (m.mms === 'no') expect(m.mms_url).toBe('')
      else expect(String(m.mms_url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/media\//)
    }
    const errors = msgs.filter((m) => String(m.status).startsWith('400')).length
    expect(errors).toBeGreaterThan(20)
    expect(errors).toBeLessThan(90)
    expect(new Set(msgs.map((m) => m.direction))).toEqual(new Set(['inbound', 'outbound']))
    expect(msgs.some((m) => m.tid !== BIG.tid)).toBe(true)
    expect(msgs.some((m) => String(m.status).includes('[Possible status'))).toBe(true)
    expect(new Set(msgs.map((m) => m.message_id)).size).toBeLessThan(msgs.length)
  })

  it('lists numbers of both types and several countries; by type without country', async () => {
    const all = (await op('allownednumbers', {})).json.data as Array<Record<string, string>>
    expect(all.length).toBeGreaterThanOrEqual(50)
    expect(new Set(all.map((n) => n.type))).toEqual(new Set(['local', 'tollfree']))
    expect(new Set(all.map((n) => n.country)).size).toBeGreaterThan(1)
    const tollfree = (await op('ownednumbers', { number_type: 'tollfree' })).json.data as Array<Record<string, string>>
    expect(tollfree.every((n) => n.type === 'tollfree' && !('country' in n))).toBe(true)
  })

  it('offers a 10,000-number account under its own credentials', async () => {
    const all = (await op('allownednumbers', {}, LARGE_CREDENTIALS)).json.data as unknown[]
    expect(all).toHaveLength(10_000)
  })

  it('offers, when asked, an account of several large histories, each its own number and each whole', async () => {
    const scaled = createSimulator({ scale: { numbers: 3, perNumber: 250_000 } })
    const s = await scaled.listen(0)
    try {
      const ask = async (path: string, fields: Record<string, string>) => {
        const res = await fetch(`${s.url}/api/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ ...fields, sys_id: SCALE_CREDENTIALS.sysId, auth_token: SCALE_CREDENTIALS.authToken }),
        })
        return (await res.json()) as Record<string, unknown>
      }
      const all = (await ask('allownednumbers', {})).data as Array<{ number: string; tid: string }>
      expect(new Set(all.map((n) => n.number)).size).toBe(3)
      for (const n of all) {
        const last = await ask('smshistory', { number: n.number, tid: n.tid, history_start: '249999', history_end: '250005' })
        expect(last.total_message_count).toBe(250_000)
        expect(last.messages).toHaveLength(2)
      }
      // The demo account is served unchanged beside it.
      expect(((await op('allownednumbers', {})).json.data as unknown[]).length).toBe(60)
    } finally {
      s.server.closeAllConnections()
      s.server.close()
    }
  })

  it('checks the credentials it is sent', async () => {
    const r = await op('allownednumbers', {}, { sysId: DEMO_CREDENTIALS.sysId, authToken: 'wrong' })
    expect(r.status).toBe(401)
    expect(r.json.success).toBe('0')
  })

  it('answers a 1,000-record page of the 1,000,000-message history from the index', async () => {
    // How fast is `npm run bench`'s business (simulator group); here, that the page is the right one.
    const r = await op('smshistory', { number: '13053851232', tid: 'YUFZUGT21996', history_start: '500001', history_end: '501000' })
    expect((r.json.messages as unknown[]).length).toBe(1000)
    expect(r.json.total_message_count).toBe(1_000_000)
  })

  it('switches faults on per number and counts them down', async () => {
    sim.state.faults.push({ kind: 'reject', number: BIG.number, times: 1, message: 'nope' })
    const bad = await op('smshistory', { ...BIG, history_start: '1', history_end: '1' })
    expect(bad.json).toMatchObject({ success: '0', message: 'nope' })
    const good = await op('smshistory', { ...BIG, history_start: '1', history_end: '1' })
    expect(good.json.success).toBe('1')
  })

  it('shifts positions when messages are added', async () => {
    const before = (await op('smshistory', { ...BIG, history_start: '1', history_end: '1' })).json
    sim.state.added.set(BIG.number, 3)
    const after = (await op('smshistory', { ...BIG, history_start: '4', history_end: '4' })).json
    expect(after.total_message_count).toBe(2348)
    expect((after.messages as Array<Record<string, unknown>>)[0]!.system_id).toBe(
      (before.messages as Array<Record<string, unknown>>)[0]!.system_id,
    )
    expect(after.most_recent_msg_id).not.toBe(before.most_recent_msg_id)
    sim.reset()
  })

  it("reads multipart bodies (the provider's PHP sample sends them) with the platform parser", async () => {
    const form = new FormData()
    for (const [k, v] of Object.entries({
      ...BIG,
      history_start: '1',
      history_end: '3',
      sys_id: DEMO_CREDENTIALS.sysId,
      auth_token: DEMO_CREDENTIALS.authToken,
    }))
      form.append(k, v)
    const res = await fetch(`${url}/api/smshistory`, { method: 'POST', body: form })
    const json = (await res.json()) as { success: string; messages: unknown[] }
    expect(json.success).toBe('1')
    expect(json.messages).toHaveLength(3)
    expect(sim.state.requests.at(-1)).toMatchObject({
      contentType: expect.stringMatching(/^multipart\/form-data; boundary=/),
      authenticated: true,
      fields: { auth_token: ['[redacted]'] },
    })
  })

  it('keeps at most 500 requests in its log', async () => {
    await Promise.all(Array.from({ length: 520 }, () => op('ownednumbers', { number_type: 'local' })))
    expect(sim.state.requests).toHaveLength(500)
  })

  it('serves its own media, and 404 for the missing file', async () => {
    const png = await fetch(`${url}/media/photo-1.png`)
    expect(png.headers.get('content-type')).toBe('image/png')
    expect(new Uint8Array(await png.arrayBuffer()).slice(1, 4)).toEqual(new Uint8Array([0x50, 0x4e, 0x47]))
    expect((await fetch(`${url}/media/missing.png`)).status).toBe(404)
  })
})

describe('quirks, switched on through the control door', () => {
  const quirky = createSimulator({ control: true })
  let base = ''
  let stop = () => {}
  beforeAll(async () => {
    const s = await quirky.listen(0)
    base = s.url
    stop = () => {
      s.server.closeAllConnections()
      s.server.close()
    }
  })
  afterAll(() => stop())
  const call = async (path: string, fields: Record<string, string>) => {
    const res = await fetch(`${base}/api/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...fields, sys_id: DEMO_CREDENTIALS.sysId, auth_token: DEMO_CREDENTIALS.authToken }),
    })
    return (await res.json()) as Record<string, unknown>
  }
  const quirks = (body: unknown, method = 'POST') =>
    fetch(`${base}/__sim/quirks`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

  it('are off by default and refuse what they do not know, naming it', async () => {
    const listed = (await call('allownednumbers', {})).data as unknown[]
    expect(listed).toHaveLength(60)
    expect((await quirks({ arrivals: { number: BIG.number, perRequest: 51 } })).status).toBe(400)
    expect(await (await quirks({ wording: 'rude' })).text()).toMatch(/wording must be one of/)
    expect(await (await quirks({ colour: 'red' })).text()).toMatch(/unknown quirk colour/)
  })

  it('add messages per request, list a number twice, remove one in its own words', async () => {
    expect((await quirks({ arrivals: { number: BIG.number, perRequest: 5 } })).status).toBe(200)
    const one = await call('smshistory', { ...BIG, history_start: '1', history_end: '1' })
    const two = await call('smshistory', { ...BIG, history_start: '1', history_end: '1' })
    expect(Number(two.total_message_count) - Number(one.total_message_count)).toBe(5)
    await quirks({ listedTwice: [BIG.number], removed: ['18552009444'], wording: 'inactive' })
    const listed = (await call('allownednumbers', {})).data as Array<{ number: string; tid: string }>
    expect(listed.filter((n) => n.number === BIG.number).map((n) => n.tid)).toEqual([extraTid(BIG.number), BIG.tid])
    expect(listed.some((n) => n.number === '18552009444')).toBe(false)
    const refused = await call('smshistory', { number: '18552009444', tid: 'X', history_start: '1', history_end: '1' })
    expect(refused).toMatchObject({ success: '0', message: REMOVAL_WORDINGS.inactive })
    expect((await quirks({}, 'DELETE')).status).toBe(200)
    expect((await call('allownednumbers', {})).data as unknown[]).toHaveLength(60)
  })
})
