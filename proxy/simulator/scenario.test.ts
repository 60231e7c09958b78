import { afterAll, describe, expect, it } from 'vitest'
import { DEMO_CREDENTIALS, END_MS, GOOD_WEBHOOK, makeAccount } from './dataset.ts'
import { BROKEN_WEBHOOK, makeScenario, PERIOD_MS } from './scenario.ts'
import { createSimulator } from './simulator.ts'

/**
 * The opt-in scenario over real HTTP: a number's webhook broken on a schedule and back, and the
 * busiest number's sends refused for an hour, the same for the same seed and clock; and nothing
 * changed without it (the listing and histories other tests count on).
 */

const T0 = END_MS
const MIN = 60_000
const numbers = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60).numbers
const servers: Array<{ close: (cb: () => void) => void; closeAllConnections: () => void }> = []
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections()
    await new Promise<void>((ok) => s.close(ok))
  }
})

async function start(scenario: { seed: number } | undefined, clock: { now: number }) {
  const sim = createSimulator({ clock: { endMs: T0, now: () => clock.now }, ...(scenario ? { scenario } : {}) })
  const { server, url } = await sim.listen(0)
  servers.push(server)
  const op = async (path: string, fields: Record<string, string> = {}) => {
    const res = await fetch(`${url}/api/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ sys_id: DEMO_CREDENTIALS.sysId, auth_token: DEMO_CREDENTIALS.authToken, ...fields }).toString(),
    })
    return (await res.json()) as Record<string, unknown>
  }
  const listed = async () => (await op('allownednumbers')).data as Array<{ number: string; webhook: string; dlr: string }>
  return { op, listed }
}

describe('the simulator’s scenario', () => {
  it('is the same for the same seed, and another seed moves it', () => {
    expect(makeScenario(7, numbers, T0)).toEqual(makeScenario(7, numbers, T0))
    const others = [1, 2, 3, 4].map((seed) => makeScenario(seed, numbers, T0))
    expect(others.some((o) => JSON.stringify(o.breaks) !== JSON.stringify(makeScenario(7, numbers, T0).breaks))).toBe(true)
  })

  it('breaks one number’s webhook during its window, every period, and leaves every other number as listed without it', async () => {
    const s = makeScenario(7, numbers, T0)
    const clock = { now: T0 + s.breaks.fromMs - MIN }
    const withIt = await start({ seed: 7 }, clock)
    const without = await start(undefined, clock)
    const webhookOf = async (l: typeof withIt) => (await l.listed()).find((n) => n.number === s.breaks.number)!.webhook
    expect(await webhookOf(withIt)).toBe(GOOD_WEBHOOK)
    expect(await withIt.listed()).toEqual(await without.listed())
    for (const period of [0, 1]) {
      clock.now = T0 + period * PERIOD_MS + s.breaks.fromMs + MIN
      expect(await webhookOf(withIt)).toBe(BROKEN_WEBHOOK)
      const broken = await withIt.listed()
      const plain = await without.listed()
      expect(broken.filter((n, i) => JSON.stringify(n) !== JSON.stringify(plain[i])).map((n) => n.number)).toEqual([s.breaks.number])
      clock.now = T0 + period * PERIOD_MS + s.breaks.fromMs + s.breaks.forMs
      expect(await webhookOf(withIt)).toBe(GOOD_WEBHOOK)
    }
  })

  it('refuses the busiest number’s sends during its spike, at its usual rate either side', async () => {
    const s = makeScenario(7, numbers, T0)
    const busy = numbers.find((n) => n.number === s.spike.number)!
    const clock = { now: T0 + s.spike.fromMs + s.spike.forMs + 60 * MIN }
    const sim = await start({ seed: 7 }, clock)
    const h = await sim.op('smshistory', { number: busy.number, tid: busy.tid, history_start: '1', history_end: '400' })
    const msgs = h.messages as Array<{ GMTdate: string; direction: string; status: string }>
    const at = (m: { GMTdate: string }) => Date.parse(`${m.GMTdate.replace(' ', 'T')}Z`)
    const out = msgs.filter((m) => m.direction === 'outbound')
    const inSpike = out.filter((m) => at(m) >= T0 + s.spike.fromMs && at(m) < T0 + s.spike.fromMs + s.spike.forMs)
    const outside = out.filter((m) => !inSpike.includes(m))
    // About 77 messages an hour, a little over half of them sent: the rule's minimum volume (20) and more.
    expect(inSpike.length).toBeGreaterThan(20)
    expect(inSpike.every((m) => m.status.startsWith('400'))).toBe(true)
    expect(outside.length).toBeGreaterThan(100)
    expect(outside.filter((m) => m.status.startsWith('400')).length / outside.length).toBeLessThan(0.15)
    // The same clock without the scenario: the same messages, only their statuses differ.
    const plain = (
      await (await start(undefined, clock)).op('smshistory', { number: busy.number, tid: busy.tid, history_start: '1', history_end: '400' })
    ).messages as typeof msgs
    expect(plain.map((m) => m.GMTdate)).toEqual(msgs.map((m) => m.GMTdate))
    expect(plain.filter((m) => m.status.startsWith('400')).length).toBeLessThan(inSpike.length)
  })
})
