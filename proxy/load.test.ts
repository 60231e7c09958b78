import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { Agent, request } from 'undici'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { parseConfig } from './config.ts'
import { start, type Running } from './server.ts'
import { DEMO_CREDENTIALS } from './simulator/dataset.ts'
import { createSimulator } from './simulator/simulator.ts'

/**
 * Held under load: 200 concurrent history requests through the proxy to a simulator that adds
 * latency, on loopback, bounded in count (4 rounds) and time (each round must finish in 20 s).
 */
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

let sim: Awaited<ReturnType<ReturnType<typeof createSimulator>['listen']>>
let simControl: ReturnType<typeof createSimulator>
let running: Running
const agent = new Agent({ connections: 256 })

beforeAll(async () => {
  simControl = createSimulator({ largeCount: 100 })
  sim = await simControl.listen(0)
  simControl.state.faults.push({ kind: 'latency', ms: 150, op: 'smshistory' })
  const dir = mkdtempSync(join(tmpdir(), 'sb-static-'))
  writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="root"></div>')
  running = await start(
    parseConfig({
      API_BASE_URL: sim.url,
      API_SYS_ID: DEMO_CREDENTIALS.sysId,
      API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
      PORT: '0',
      API_TIMEOUT_MS: '5000',
    }),
    { staticDir: dir },
  )
})
afterAll(async () => {
  await running.close()
  sim.server.closeAllConnections()
  sim.server.close()
  await agent.close()
})

async function round(n: number) {
  const t0 = Date.now()
  const results = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const start = (i % 40) * 25 + 1
      const res = await request(`${running.url}/api/smshistory`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          number: '18323232323',
          tid: 'PUHMGWS98301',
          history_start: String(start),
          history_end: String(start + 24),
        }).toString(),
        headersTimeout: 20_000,
      })
      const json = (await res.body.json()) as { messages?: unknown[]; error?: { kind: string } }
      return {
        status: res.statusCode,
        ok: res.statusCode === 200 && json.messages?.length === 25,
        clean: res.statusCode !== 200 && typeof json.error?.kind === 'string',
      }
    }),
  )
  return { results, ms: Date.now() - t0 }
}

it('answers 200 concurrent requests, keeps memory flat and still serves the UI', async () => {
  await round(200) // warm-up
  gc()
  const before = process.memoryUsage().heapUsed
  for (let r = 0; r < 3; r++) {
    const { results, ms } = await round(200)
    expect(ms).toBeLessThan(20_000)
    expect(results.every((x) => x.ok || x.clean)).toBe(true)
    expect(results.filter((x) => x.ok).length).toBe(200)
  }
  gc()
  const growth = (process.memoryUsage().heapUsed - before) / 1024 / 1024
  expect(growth).toBeLessThan(20)
  const ui = await request(`${running.url}/`, { dispatcher: agent })
  expect(ui.statusCode).toBe(200)
  expect(await ui.body.text()).toContain('<div id="root">')
}, 120_000)
