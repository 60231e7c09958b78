import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestEndpoints, type TestEndpoints } from '../testing/endpoints.ts'
import { allowedHostsTest, checkUrl } from './probe.ts'
import { openProbeThread, type ProbeThread } from './probe-thread.ts'

/**
 * The checks' own thread against real loopback HTTP and HTTPS endpoints: each check answers as the
 * same check on the main thread does, at the time it was asked for, and the thread stops and
 * starts again without losing a check.
 */

let ep: TestEndpoints
let thread: ProbeThread
const lines: string[] = []

beforeAll(async () => {
  ep = await startTestEndpoints()
  ep.setStatus('error500', 500)
  thread = openProbeThread((l) => lines.push(l))
}, 60_000)
afterAll(async () => {
  await thread?.close()
  await ep?.close()
})

const AT = Date.UTC(2026, 5, 1, 12, 0, 0)
const asked = () => ({ at: AT, timeoutMs: 1_500, allowedHosts: ep.allowed, ca: [ep.ca] })

it('answers each check as the main thread would, stamped with the time it was asked for', async () => {
  const urls = [...Object.values(ep.urls), 'https://no-such-callback-host.invalid/hook', 'https://10.0.0.5/dlr', 'not a url']
  const there = await Promise.all(urls.map((u) => thread.check(u, asked())))
  const here = await Promise.all(
    urls.map((u) => checkUrl(u, { timeoutMs: 1_500, allowed: allowedHostsTest(ep.allowed), ca: [ep.ca], now: () => AT })),
  )
  expect(thread.alive()).toBe(true)
  const shape = (r: (typeof here)[number]) => ({
    url: r.url,
    at: r.at,
    outcome: r.outcome,
    failure: r.failure,
    status: r.status,
    tls: r.tls?.error ?? null,
  })
  expect(there.map(shape)).toEqual(here.map(shape))
  expect(there.map((r) => r.outcome)).toEqual(expect.arrayContaining(['up', 'failing', 'redirect', 'private', 'invalid']))
  expect(there.every((r) => r.at.getTime() === AT)).toBe(true)
  expect(lines).toEqual([])
}, 30_000)

it('stops on close and starts again for the next check', async () => {
  await thread.close()
  expect(thread.alive()).toBe(false)
  const r = await thread.check(ep.urls.up, asked())
  expect(r).toMatchObject({ outcome: 'up', status: 200 })
  expect(thread.alive()).toBe(true)
}, 30_000)
