import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExportProgress } from '../../contract/index-api.ts'
import { createApp } from '../app.ts'
import { parseConfig } from '../config.ts'
import { openDb, type OpenedDb } from '../db/open.ts'
import { createForwarder } from '../forward.ts'
import { parseIndexConfig } from './config.ts'
import { createIndex, type MessageIndex } from './routes.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'
import { deskIndexHooks } from '../desk/index-hooks.ts'

/**
 * The export queue over HTTP, with real exports from PGlite: a server that runs one export at a
 * time (EXPORTS_MAX=1) and lets one more wait (EXPORTS_QUEUE=1). The first export's client stops
 * reading, so it holds the slot (back-pressure) for as long as the test needs.
 */

const ROWS = 60_000
const NUMBER = '15550000001'

let root: string
let db: OpenedDb
let index: MessageIndex
let server: Server
let url: string

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sb-export-queue-'))
  await freshPgliteDir(join(root, 'data'))
  db = await openDb({ dataDir: join(root, 'data') })
  await db.query(
    `INSERT INTO index_numbers (number, tid, indexed, top_ordinal, state, full_done) VALUES ($2, 'T1', $1, $1, 'idle', true)`,
    [ROWS, NUMBER],
  )
  await db.query(
    `INSERT INTO index_messages (number, ordinal, fetched_tid, tid, system_id, message_id, date, phone, party_digits, direction, body, status, status_code)
     SELECT $2, g, 'T1', 'T1', 's' || g, 'm' || g, timestamptz '2026-01-01' + g * interval '1 minute', '+1555' || (g % 97),
            '1555' || (g % 97), 'in', 'message number ' || g || ', a body long enough to fill the socket''s buffers', 'delivered', 200
     FROM generate_series(1, $1::int) g`,
    [ROWS, NUMBER],
  )
  await db.query('VACUUM (ANALYZE) index_messages')
  const forwarder = createForwarder({ baseUrl: 'http://127.0.0.1:9', sysId: 'x', authToken: 'y' }, 1000)
  index = await createIndex(parseIndexConfig({ SYNC_RATE: '0', EXPORTS_PER_USER: '1', EXPORTS_MAX: '1', EXPORTS_QUEUE: '1' }), {
    hooks: deskIndexHooks,
    db,
    forwarder,
  })
  const config = parseConfig({ API_BASE_URL: 'http://127.0.0.1:9', API_SYS_ID: 'x', API_AUTH_TOKEN: 'y', PORT: '0', LOG_REQUESTS: '0' })
  const app = createApp(config, { forwarder, routes: index.routes, meta: index.meta, log: () => {} })
  server = createServer((req, res) => app(req, res))
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}, 120_000)

afterAll(async () => {
  server?.closeAllConnections()
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()))
  await index?.close()
  await db?.close()
  rmSync(root, { recursive: true, force: true })
}, 60_000)

/** An export's response once its headers come (node:http, so reading can be paused). */
const exportRequest = (job: string) =>
  new Promise<IncomingMessage>((resolve, reject) => {
    request(`${url}/api/index/export?numbers=${NUMBER}&format=csv&job=${job}`, resolve).on('error', reject).end()
  })

const progress = async (job: string) => (await (await fetch(`${url}/api/index/export/progress?job=${job}`)).json()) as ExportProgress

async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const start = Date.now()
  for (;;) {
    const v = await probe()
    if (ok(v) || Date.now() - start > timeoutMs) return v
    await new Promise((r) => setTimeout(r, 50))
  }
}

const drain = async (res: IncomingMessage) => {
  let bytes = 0
  for await (const chunk of res) bytes += (chunk as Buffer).length
  return bytes
}

describe('the export queue over HTTP', () => {
  it('keeps a second export waiting, first in line, until the first ends; then it runs to the end', async () => {
    const first = await exportRequest('queue-first-1')
    expect(first.statusCode).toBe(200)
    // The first export's client stops reading: the export waits for it, holding the only slot.
    first.pause()
    const running = await until(
      () => progress('queue-first-1'),
      (p) => p.rows > 0,
    )
    expect(running.state).toBe('running')

    let secondHeaders = false
    const second = exportRequest('queue-second-1').then((res) => {
      secondHeaders = true
      return res
    })
    const queued = await until(
      () => progress('queue-second-1'),
      (p) => p.state === 'queued',
    )
    // Its action is known while it waits: a cancel now is logged as the whole history's export it is.
    expect(queued).toMatchObject({ state: 'queued', rows: 0, total: null, queue: { position: 1 }, action: 'history.export' })
    // The first has written rows of a known total by now: the wait is estimated from its pace.
    expect(queued.queue!.startsInS).toBeGreaterThanOrEqual(1)
    expect(secondHeaders).toBe(false)

    // The queue holds one: a third is refused, naming the limit, with a time to come back.
    const third = await fetch(`${url}/api/index/export?numbers=${NUMBER}&format=csv&job=queue-third-1`)
    expect(third.status).toBe(429)
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    const refusal = (await third.json()) as { error: { message: string } }
    expect(refusal.error.message).toMatch(/You already have 1 export running and 1 waiting.*\(EXPORTS_PER_USER\)/)
    expect((await progress('queue-first-1')).state).toBe('running')

    // The first read to its end frees the slot: the second starts by itself and runs to its end.
    first.resume()
    const firstBytes = await drain(first)
    expect((await progress('queue-first-1')).state).toBe('done')
    const res = await second
    expect(res.statusCode).toBe(200)
    expect(res.headers['x-row-count']).toBe(String(ROWS))
    expect(await drain(res)).toBe(firstBytes)
    const done = await until(
      () => progress('queue-second-1'),
      (p) => p.state === 'done',
    )
    expect(done).toMatchObject({ state: 'done', rows: ROWS, total: ROWS })
    expect(done.queue).toBeUndefined()
  }, 120_000)
})
