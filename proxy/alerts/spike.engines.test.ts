import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type Cluster } from '../../scripts/pg-cluster.mjs'
import { PARAM_OF_KEY } from '../../contract/search-filters.ts'
import { parseConfig } from '../config.ts'
import { openRooms, roomsConfigIssues, type Rooms } from '../rooms.ts'
import { start, type Running } from '../server.ts'
import { DEMO_CREDENTIALS, END_MS, makeAccount } from '../simulator/dataset.ts'
import { makeScenario } from '../simulator/scenario.ts'
import { createSimulator } from '../simulator/simulator.ts'
import { call } from '../testing/access-stack.ts'
import { SECRET, startReceiver, type Receiver } from '../testing/alert-receivers.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'
import { verify } from './signing.ts'

/**
 * The failure spike end to end, on both engines: the simulator's scenario refuses every send of
 * the account's busiest number for an hour; the whole server (index, alerts, a webhook channel on
 * a real receiver) indexes that number, syncs what arrived as the simulator's clock moves, and its
 * rule fires once, reminds and resolves, each notice signed and naming the number, its link a
 * search that finds the refused sends. The busiest number holds the million-message history, so
 * this is in the long tier (`npm run test:scale`).
 */

const MIN = 60_000
const SEED = 11
const scenario = makeScenario(SEED, makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60).numbers, END_MS)
const BUSIEST = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60).numbers.find((n) => n.number === scenario.spike.number)!
/** The spike's first hour, on the simulator's clock. */
const SPIKE_FROM = END_MS + scenario.spike.fromMs

/** A notice as the webhook channel posts it (Standard Webhooks: the type, and the alerts in `data`). */
interface Notice {
  type: string
  data: { rule?: string; alerts?: Array<{ rule?: string; number: string | null; detail: string; link: string | null }> }
}

for (const engine of ['pglite', 'postgres'] as const)
  describe(`a failure spike made by the simulator (${engine})`, () => {
    let dir: string
    let cluster: Cluster | null = null
    let running: Running
    let rooms: Rooms
    let receiver: Receiver
    let sim: Awaited<ReturnType<ReturnType<typeof createSimulator>['listen']>>
    const clock = { now: END_MS }
    const port = () => Number(new URL(running.url).port)
    const api = async (method: string, path: string, json?: unknown) => {
      const headers = { origin: `http://127.0.0.1:${port()}` }
      const r = await call(port(), method, path, json === undefined ? { headers } : { headers, json })
      expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300)
      return r.json()
    }
    /** Syncs the busiest number with what the simulator holds at the clock's time. */
    const sync = async () => {
      await api('POST', '/api/index/sync', { number: BUSIEST.number, tid: BUSIEST.tid })
      await rooms.index.syncer!.idle()
    }
    const evaluate = () => api('POST', '/api/alerts/evaluate')
    const notices = () => receiver.got.map((g) => JSON.parse(g.body) as Notice)

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'sb-spike-'))
      if (engine === 'postgres') cluster = await startCluster()
      else await freshPgliteDir(join(dir, 'data'))
      sim = await createSimulator({ clock: { endMs: END_MS, now: () => clock.now }, scenario: { seed: SEED } }).listen(0, '127.0.0.1')
      receiver = await startReceiver()
      const env = {
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_REQUESTS: '0',
        API_BASE_URL: sim.url,
        API_SYS_ID: DEMO_CREDENTIALS.sysId,
        API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
        SYNC_RATE: '0',
        INDEX_AUTO_SYNC: 'off',
        WATCH_INTERVAL: '0',
        PROBE_INTERVAL: '0',
        // Rules are evaluated when the test asks, on the test's clock.
        ALERT_EVAL_INTERVAL: '86400',
        ALERT_WEBHOOK_URL: receiver.url,
        ALERT_WEBHOOK_SECRET: SECRET,
        ALERT_ALLOWED_HOSTS: '127.0.0.1',
        PUBLIC_URL: 'https://switchboard.example.com/',
        ...(cluster ? { DATABASE_URL: cluster.url } : { DATA_DIR: join(dir, 'data') }),
      }
      const config = parseConfig(env)
      const cfg = roomsConfigIssues(env, config)
      expect(cfg.issues).toEqual([])
      running = await start(config, {
        rooms: async (forwarder) => (rooms = await openRooms(cfg.config!, { forwarder, log: () => {}, now: () => clock.now })),
      })
    }, 120_000)

    afterAll(async () => {
      await running?.close()
      await receiver?.close()
      sim?.server.closeAllConnections()
      await new Promise<void>((ok) => (sim ? sim.server.close(() => ok()) : ok()))
      cluster?.stop()
      rmSync(dir, { recursive: true, force: true })
    }, 60_000)

    it('fires once, reminds, and resolves, each notice signed and naming the number', { tags: ['long'], timeout: 900_000 }, async () => {
      // The whole history as it stands at its end: refusals at the number's usual rate, no spike.
      await sync()
      await evaluate()
      expect(notices().filter((n) => n.data.rule === 'failure-spike')).toEqual([])

      // Reminders every 5 minutes (the least a rule takes), so one falls within the spike's hour.
      await api('POST', '/api/alerts/rules/failure-spike', { reminderMinutes: 5 })

      // 55 minutes into the spike: the hour's window holds almost only refused sends.
      clock.now = SPIKE_FROM + 55 * MIN
      await sync()
      await evaluate()
      const spikes = () => notices().filter((n) => n.data.rule === 'failure-spike')
      expect(spikes().map((n) => n.type)).toEqual(['alert.firing'])
      const fired = spikes()[0]!.data.alerts![0]!
      expect(fired.number).toBe(BUSIEST.number)
      expect(fired.detail).toMatch(/^\d+ of \d+ outbound messages refused in the last 60 min \(\d+%, usually [\d.]+%\)\.$/)
      // Signed as the Standard Webhooks scheme signs, with the channel's secret.
      const last = receiver.got.at(-1)!
      expect(
        verify(
          SECRET,
          String(last.headers['webhook-id']),
          Number(last.headers['webhook-timestamp']),
          last.body,
          String(last.headers['webhook-signature']),
        ),
      ).toBe(true)
      // Its link is a search of the number's refused sends, and that search finds them.
      const link = new URL(fired.link!, 'https://switchboard.example.com/')
      expect(link.pathname).toBe('/search')
      // The page's keys, as the index API names them (`dir` is `direction`).
      const asked = new URLSearchParams(
        [...link.searchParams].map(([k, v]) => [k in PARAM_OF_KEY ? PARAM_OF_KEY[k as keyof typeof PARAM_OF_KEY] : k, v]),
      )
      expect(asked.get('direction')).toBe('outbound')
      const found = (await api('GET', `/api/index/search?${asked}&limit=1`)) as { total: number }
      const refused = Number(/^(\d+) of/.exec(fired.detail)![1])
      expect(found.total).toBeGreaterThanOrEqual(refused)

      // Asked again at once: still firing, nothing more is sent.
      await evaluate()
      expect(spikes()).toHaveLength(1)
      const firing = (await api('GET', '/api/alerts')) as { firing: Array<{ rule: string; number: string | null }> }
      expect(firing.firing.filter((a) => a.rule === 'failure-spike').map((a) => a.number)).toEqual([BUSIEST.number])

      // Five minutes on, the spike's hour still fills the window: one reminder.
      clock.now += 5 * MIN
      await sync()
      await evaluate()
      expect(spikes().map((n) => n.type)).toEqual(['alert.firing', 'alert.reminder'])

      // Over an hour after the spike ended, the window holds the usual rate again: resolved, once.
      clock.now = SPIKE_FROM + scenario.spike.forMs + 75 * MIN
      await sync()
      await evaluate()
      await evaluate()
      expect(spikes().map((n) => n.type)).toEqual(['alert.firing', 'alert.reminder', 'alert.resolved'])
      expect(spikes()[2]!.data.alerts!.map((a) => a.number)).toEqual([BUSIEST.number])
    })
  })
