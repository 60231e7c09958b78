/**
 * The message index bench's server (bench/index.mts starts it): the index behind a plain HTTP
 * server, with the server's own app (its checks, /api/meta, the index routes) and a few /__bench
 * paths (run one number's sync to its end, seed synthetic rows, read the event loop's delay).
 * `npm run build` compiles it to build/server/bench/index-server.mjs, and the bench runs that
 * with plain `node`, as the server ships: under tsx (BENCH_TSX=1) the process held about 110 MiB
 * more (the loader, in each worker thread too), which the RSS figures counted as the server's.
 *
 * BENCH_SLOW_SEARCH_MS=N: a deliberately slowed query, to show the bench catches one. Every
 * statement that reads a search's page of rows waits N ms before it runs (the database handle the
 * index is given is wrapped here; nothing in proxy/ knows). /__bench/slowed says how many were.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createForwarder } from '../proxy/forward.ts'
import type { Db, Queryable } from '../proxy/db/types.ts'
import { DEMO_CREDENTIALS } from '../proxy/simulator/dataset.ts'

/** History records per upstream request, as the driver's baseline asks for them. */
const PAGE = 1000

const SLOW_MS = Number(process.env.BENCH_SLOW_SEARCH_MS ?? 0)
if (!Number.isInteger(SLOW_MS) || SLOW_MS < 0 || SLOW_MS > 60_000) {
  console.error('BENCH_SLOW_SEARCH_MS must be a whole number of milliseconds from 0 to 60000')
  process.exit(2)
}
/**
 * The search page's statement (proxy/index/queries.ts, searchPage): the one query that gives a
 * page its rows and their positions. Should that text change, /__bench/slowed stays 0 and the
 * driver says the switch slowed nothing, rather than passing quietly.
 */
const SEARCH_PAGE = /AS position_base FROM \(/
let slowed = 0

/** `db` with every search-page statement held SLOW_MS first: in query, batch, and inside transactions. */
function slowSearches<T extends Queryable>(db: T): T {
  const wait = () => {
    slowed++
    return new Promise<void>((ok) => setTimeout(ok, SLOW_MS))
  }
  return new Proxy(db, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      const fn = value as (...a: unknown[]) => unknown
      if (key === 'query')
        return async (sql: string, params?: readonly unknown[]) => {
          if (SEARCH_PAGE.test(sql)) await wait()
          return fn.call(target, sql, params)
        }
      if (key === 'batch')
        return async (statements: ReadonlyArray<{ sql: string }>) => {
          if (statements.some((st) => SEARCH_PAGE.test(st.sql))) await wait()
          return fn.call(target, statements)
        }
      if (key === 'transaction' || key === 'withConnection')
        return (work: (q: Queryable) => Promise<unknown>) => fn.call(target, (q: Queryable) => work(slowSearches(q)))
      // The handles a Db gives out for a lane or a request's turn: wrapped too (a request's search runs on its turn's).
      if (key === 'lane' || key === 'turn') return (arg: unknown) => slowSearches(fn.call(target, arg) as Db)
      return fn.bind(target)
    },
  })
}

async function serve() {
  const { parseIndexConfig } = await import('../proxy/index/config.ts')
  const { createIndex } = await import('../proxy/index/routes.ts')
  const { deskIndexHooks } = await import('../proxy/desk/index-hooks.ts')
  const simUrl = process.env.SIM_URL!
  const fw = createForwarder({ baseUrl: simUrl, ...DEMO_CREDENTIALS }, 30_000)
  const cfg = parseIndexConfig({ ...process.env, SYNC_RATE: '0', HISTORY_PAGE_CAP: String(PAGE), INDEX_AUTO_SYNC: 'off' })
  const log = (l: string) => void (process.env.BENCH_VERBOSE && console.error(l))
  // Slowed: the index is handed a database opened here, as createIndex would open it, wrapped.
  let ownDb: Db | null = null
  if (SLOW_MS) {
    const { openDb } = await import('../proxy/db/open.ts')
    ownDb = await openDb({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl ?? undefined, poolSize: cfg.databasePoolSize, log })
  }
  const index = await createIndex(cfg, { hooks: deskIndexHooks, forwarder: fw, log, ...(ownDb ? { db: slowSearches(ownDb) } : {}) })
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
    if (url.pathname === '/__bench/slowed') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ slowMs: SLOW_MS, slowed }))
      return
    }
    if (url.pathname === '/__bench/seed') {
      // BENCH_INDEX_ROWS: a synthetic history written straight into the tables (no sync), so the
      // search, export and event-loop figures can be tried at a small size.
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
      const store0 = syncer.stats.storeMs
      const cpu0 = process.cpuUsage()
      const t0 = performance.now()
      // When the last batch's store ended: storeMs grows as each store ends. What follows it (the
      // secondary indexes built, the vacuum, the desk's recompute) is the store's too, deferred.
      let lastStoreEnd = Number.NaN
      let seenStoreMs = store0
      const watch = setInterval(() => {
        if (syncer.stats.storeMs !== seenStoreMs) {
          seenStoreMs = syncer.stats.storeMs
          lastStoreEnd = performance.now()
        }
      }, 20)
      void syncer
        .request({ number, tid })
        .then(() => syncer.idle())
        .then(async () => {
          clearInterval(watch)
          const end = performance.now()
          const st = await index.db!.query<{ state: string; error: string | null; indexed: number }>(
            'SELECT state, error, indexed FROM index_numbers WHERE number = $1',
            [number],
          )
          res.writeHead(200, { 'content-type': 'application/json' })
          // CPU time of this process too: on a shared machine it varies less than wall time.
          const cpu = process.cpuUsage(cpu0)
          res.end(
            JSON.stringify({
              ms: end - t0,
              cpuMs: (cpu.user + cpu.system) / 1000,
              requests: syncer.stats.requests - before,
              split: { ...syncer.stats },
              // The storing phases of this sync: its batches' stores, and the stretch after the last one.
              storing: { storeMs: syncer.stats.storeMs - store0, afterLastStoreMs: end - lastStoreEnd },
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
    await ownDb?.close()
    await fw.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop())
}

/**
 * Bodies as a team's traffic repeats them (templates, a few words the bench searches for), and
 * one row in ten with a body of its own kind ('message 1234'): the distinct bodies are few, as in
 * the simulator's histories, so a text search matches a few bodies, not every row's own.
 */
const SEED_BODIES = [
  'Your appointment is confirmed for Tuesday at 3pm. Reply C to cancel.',
  'Thanks! See you then.',
  'Your code is 839201',
  'Your order #4412 has shipped. Track it at the link.',
  'Can you call me back?',
  'Is the store open on Sunday?',
  'line one\nline two\n\nblank line above',
  'Hi, running 10 minutes late',
  'Great, thanks for the quick reply',
  'STOP',
]

async function seed(db: import('../proxy/db/types.ts').Db, number: string, rows: number) {
  // One transaction without the server's statement timeout (5 s): the bulk statements below take
  // longer than any request may, on a busy machine more so.
  await db.transaction(async (tx) => {
    await tx.query('SET LOCAL statement_timeout = 0')
    await tx.query(
      `INSERT INTO index_numbers (number, tid, indexed, top_ordinal, state, full_done) VALUES ($1, 'BENCH', $2, $2, 'idle', true)`,
      [number, rows],
    )
    for (let lo = 1; lo <= rows; lo += 100_000)
      await tx.query(
        `INSERT INTO index_messages (number, ordinal, fetched_tid, tid, system_id, message_id, date, phone, party_digits, direction, body, status, status_code)
         SELECT $1, g, 'BENCH', 'BENCH', 's' || g, 'm' || g, timestamptz '2024-01-01' + g * interval '1 minute',
                '+1555' || lpad((g % 97)::text, 7, '0'), '1555' || lpad((g % 97)::text, 7, '0'),
                CASE WHEN g % 2 = 0 THEN 'inbound' ELSE 'outbound' END,
                CASE WHEN g % 10 = 0 THEN 'message ' || (g % 5000) ELSE ($4::text[])[1 + (g / 10) % cardinality($4::text[])] END,
                CASE WHEN g % 50 = 0 THEN 'failed' ELSE 'delivered' END, CASE WHEN g % 50 = 0 THEN 500 ELSE 200 END
         FROM generate_series($2::int, $3::int) g`,
        [number, lo, Math.min(rows, lo + 99_999), SEED_BODIES],
      )
    // What a sync keeps beside the rows, so searches take their real paths: the distinct bodies
    // (a text search matches them, then the messages by body_id), their counts, the parties.
    await tx.query(`INSERT INTO index_bodies (body) SELECT DISTINCT body FROM index_messages WHERE number = $1`, [number])
    await tx.query(`UPDATE index_messages m SET body_id = b.id FROM index_bodies b WHERE m.number = $1 AND m.body = b.body`, [number])
    await tx.query(
      `INSERT INTO index_body_counts (body_id, number, count) SELECT body_id, number, count(*) FROM index_messages WHERE number = $1 GROUP BY 1, 2`,
      [number],
    )
    await tx.query(
      `INSERT INTO index_parties (number, party, count, last_date)
       SELECT number, party_digits, count(*), max(date) FROM index_messages WHERE number = $1 GROUP BY 1, 2`,
      [number],
    )
  })
  // VACUUM cannot run in a transaction: on one connection, its timeout lifted and put back.
  await db.withConnection(async (c) => {
    await c.query('SET statement_timeout = 0')
    try {
      await c.query('VACUUM (ANALYZE) index_messages')
    } finally {
      await c.query('RESET statement_timeout')
    }
  })
}

await serve()
