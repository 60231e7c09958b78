/**
 * The message index bench's server (bench/index.mts starts it): the index behind a plain HTTP
 * server, with the server's own app (its checks, /api/meta, the index routes) and a few /__bench
 * paths (run one number's sync to its end, seed synthetic rows, read the event loop's delay).
 * `npm run build` compiles it to build/server/bench/index-server.mjs, and the bench runs that
 * with plain `node`, as the server ships: under tsx (BENCH_TSX=1) the process held about 110 MiB
 * more (the loader, in each worker thread too), which the RSS figures counted as the server's.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createForwarder } from '../proxy/forward.ts'
import { DEMO_CREDENTIALS } from '../proxy/simulator/dataset.ts'

/** History records per upstream request, as the driver's baseline asks for them. */
const PAGE = 1000

async function serve() {
  const { parseIndexConfig } = await import('../proxy/index/config.ts')
  const { createIndex } = await import('../proxy/index/routes.ts')
  const { deskIndexHooks } = await import('../proxy/desk/index-hooks.ts')
  const simUrl = process.env.SIM_URL!
  const fw = createForwarder({ baseUrl: simUrl, ...DEMO_CREDENTIALS }, 30_000)
  const cfg = parseIndexConfig({ ...process.env, SYNC_RATE: '0', HISTORY_PAGE_CAP: String(PAGE), INDEX_AUTO_SYNC: 'off' })
  const index = await createIndex(cfg, { hooks: deskIndexHooks, forwarder: fw, log: (l) => process.env.BENCH_VERBOSE && console.error(l) })
  // The server's own app (its checks, /api/meta, the index routes): the probe's path is the real one.
  const { createApp } = await import('../proxy/app.ts')
  const { parseConfig } = await import('../proxy/config.ts')
  const appConfig = parseConfig({
    API_BASE_URL: simUrl,
    API_SYS_ID: DEMO_CREDENTIALS.sysId,
    API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
    PORT: '0',
    LOG_REQUESTS: '0',
  })
  const app = createApp(appConfig, { forwarder: fw, routes: index.routes, meta: index.meta, log: () => {} })
  // The event loop's delay, read and restarted by the driver around each measured stretch.
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname === '/__bench/loop') {
      const body = { maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6, meanMs: loop.mean / 1e6 }
      loop.reset()
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
      return
    }
    if (url.pathname === '/__bench/seed') {
      // BENCH_INDEX_ROWS: a synthetic history written straight into the tables (no sync), so the
      // event-loop figures can be tried at a small size.
      void seed(index.db!, url.searchParams.get('number')!, Number(url.searchParams.get('rows'))).then(
        () => res.writeHead(200).end('{}'),
        (err: unknown) => res.writeHead(500).end(String(err)),
      )
      return
    }
    if (url.pathname === '/__bench/sync') {
      // Runs one number's sync to the end; answers with its wall time and upstream requests.
      const number = url.searchParams.get('number')!
      const tid = url.searchParams.get('tid')!
      const syncer = index.syncer!
      const before = syncer.stats.requests
      const cpu0 = process.cpuUsage()
      const t0 = performance.now()
      void syncer
        .request({ number, tid })
        .then(() => syncer.idle())
        .then(async () => {
          const st = await index.db!.query<{ state: string; error: string | null; indexed: number }>(
            'SELECT state, error, indexed FROM index_numbers WHERE number = $1',
            [number],
          )
          res.writeHead(200, { 'content-type': 'application/json' })
          // CPU time of this process too: on a shared machine it varies less than wall time.
          const cpu = process.cpuUsage(cpu0)
          res.end(
            JSON.stringify({
              ms: performance.now() - t0,
              cpuMs: (cpu.user + cpu.system) / 1000,
              requests: syncer.stats.requests - before,
              split: { ...syncer.stats },
              ...st.rows[0],
            }),
          )
        })
      return
    }
    void app(req, res)
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  console.log(`ready ${(server.address() as AddressInfo).port}`)
  const stop = async () => {
    server.closeAllConnections()
    server.close()
    await index.close()
    await fw.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop())
}

async function seed(db: import('../proxy/db/types.ts').Db, number: string, rows: number) {
  await db.query(
    `INSERT INTO index_numbers (number, tid, indexed, top_ordinal, state, full_done) VALUES ($1, 'BENCH', $2, $2, 'idle', true)`,
    [number, rows],
  )
  for (let lo = 1; lo <= rows; lo += 100_000)
    await db.query(
      `INSERT INTO index_messages (number, ordinal, fetched_tid, tid, system_id, message_id, date, phone, party_digits, direction, body, status, status_code)
       SELECT $1, g, 'BENCH', 'BENCH', 's' || g, 'm' || g, timestamptz '2024-01-01' + g * interval '1 minute', '+1555' || (g % 97),
              '1555' || (g % 97), CASE WHEN g % 2 = 0 THEN 'in' ELSE 'out' END, 'message ' || (g % 5000) || ' about an appointment', 'delivered', 200
       FROM generate_series($2::int, $3::int) g`,
      [number, lo, Math.min(rows, lo + 99_999)],
    )
  await db.query('VACUUM (ANALYZE) index_messages')
}

await serve()
