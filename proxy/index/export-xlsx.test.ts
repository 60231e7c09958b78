import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseCsv } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExportProgress } from '../../contract/index-api.ts'
import { messageCsvHeader } from '../../contract/message-csv.ts'
import { readXlsx, serialToIso } from '../../contract/test-xlsx.ts'
import { XLSX_CELL_MAX } from '../../contract/xlsx.ts'
import { createApp } from '../app.ts'
import { parseConfig } from '../config.ts'
import { openDb, type OpenedDb } from '../db/open.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { deskIndexHooks } from '../desk/index-hooks.ts'
import { createForwarder, type Forwarder } from '../forward.ts'
import { DEMO_CREDENTIALS } from '../simulator/dataset.ts'
import { createSimulator, type Simulator } from '../simulator/simulator.ts'
import { recordingGate } from '../testing/helpers.ts'
import { parseIndexConfig } from './config.ts'
import { createIndex, type MessageIndex } from './routes.ts'
import { createSyncer } from './sync.ts'

/**
 * The whole-history .xlsx over HTTP, from an index synced from the simulator, on both engines:
 * read back as a spreadsheet reads it, and compared cell by cell with the CSV of the same export.
 * Then, on a larger synthetic history, that the file streams: the server waits for a reader that
 * stops, instead of building the file in memory.
 */

const engines = useEngines()

interface Listed {
  number: string
  tid: string
}

describe.each(ENGINES)('the .xlsx export on %s', (engine) => {
  let sim: Simulator
  let simServer: Server
  let fw: Forwarder
  let numbers: Listed[]
  let db: OpenedDb
  let index: MessageIndex
  let api: Server
  let apiUrl: string
  const audits: Array<[string, Record<string, unknown>]> = []

  beforeAll(async () => {
    sim = createSimulator({ control: false })
    let simUrl: string
    ;({ server: simServer, url: simUrl } = await sim.listen(0, '127.0.0.1'))
    fw = createForwarder({ baseUrl: simUrl, ...DEMO_CREDENTIALS }, 10_000)
    numbers = (JSON.parse((await fw.forward('allownednumbers', [])).body.toString()) as { data: Listed[] }).data
    db = await engines.open(engine)
    index = await createIndex(parseIndexConfig({ SYNC_RATE: '0', HISTORY_PAGE_CAP: '500', INDEX_AUTO_SYNC: 'off' }), {
      hooks: deskIndexHooks,
      forwarder: fw,
      db,
    })
    const app = createApp(parseConfig({ API_BASE_URL: simUrl, API_SYS_ID: 'x', API_AUTH_TOKEN: 'y', HISTORY_PAGE_CAP: '500' }), {
      forwarder: fw,
      routes: index.routes,
      gate: recordingGate(audits),
    })
    api = createServer((req, res) => app(req, res))
    await new Promise<void>((ok) => api.listen(0, '127.0.0.1', ok))
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`
    // Number 7 holds the simulator's hostile texts (formulas, NUL bytes, long lines).
    const s = createSyncer({ hooks: deskIndexHooks, db, forwarder: fw, pageCap: 10, concurrency: 2, rate: 0, backoffMs: 20, maxRetries: 2 })
    await s.request(numbers[7]!)
    await s.idle()
    await s.close()
  }, 60_000)

  afterAll(async () => {
    await index?.close()
    api?.closeAllConnections()
    await new Promise<void>((ok) => (api ? api.close(() => ok()) : ok()))
    await fw?.close()
    simServer?.closeAllConnections()
    await new Promise<void>((ok) => (simServer ? simServer.close(() => ok()) : ok()))
  })

  it('downloads a whole history as .xlsx: frozen header, text ids and phones, date cells, formulas kept as text, the CSV rows', async () => {
    const n7 = numbers[7]!.number
    const r = await fetch(`${apiUrl}/api/index/export?numbers=${n7}&format=xlsx&tz=Europe/Paris`)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
    expect(r.headers.get('content-disposition')).toMatch(
      new RegExp(`attachment; filename="switchboard-history-${n7}-24-rows-\\d{4}-\\d{2}-\\d{2}\\.xlsx"`),
    )
    const sheet = readXlsx(new Uint8Array(await r.arrayBuffer()))
    expect(sheet.frozenHeader).toBe(true)
    expect(sheet.sheetNames).toEqual(['History'])
    const header = messageCsvHeader('Europe/Paris')
    expect(sheet.rows[0]!.map((c) => c.value)).toEqual(header)
    const body = sheet.rows.slice(1)
    expect(body).toHaveLength(Number(r.headers.get('x-row-count')))
    expect(body).toHaveLength(24)

    // The CSV of the same export is the reference: the same rows, the same texts.
    const csvText = await (await fetch(`${apiUrl}/api/index/export?numbers=${n7}&format=csv&tz=Europe/Paris`)).text()
    const csv = parseCsv(csvText, { columns: true, bom: true }) as Array<Record<string, string>>
    const col = (name: string) => header.indexOf(name)
    const at = (row: (typeof body)[number], name: string) =>
      row.find((c) => c.ref.replace(/\d+$/, '') === String.fromCharCode(65 + col(name)))
    body.forEach((row, k) => {
      const want = csv[k]!
      for (const name of [
        'number',
        'party',
        'system_id',
        'message_id',
        'tid',
        'message_tid',
        'body',
        'status',
        'status_raw',
        'direction',
        'mms',
      ]) {
        const cell = at(row, name)
        // An empty value is no cell at all; any other is a string cell holding the CSV's text.
        if (want[name] === '') expect(cell).toBeUndefined()
        // (Excel holds at most 32,767 characters in a cell: the simulator's longest body is cut there.)
        else expect([name, cell?.kind, cell?.value]).toEqual([name, 'string', want[name]!.slice(0, XLSX_CELL_MAX)])
      }
      for (const name of ['ordinal', 'position', 'status_code'])
        expect([name, at(row, name)?.kind, at(row, name)?.value ?? '']).toEqual([name, want[name] ? 'number' : undefined, want[name]])
      const utc = at(row, 'date_utc')!
      expect([utc.kind, sheet.formats[utc.style]]).toEqual(['date', 'yyyy-mm-dd hh:mm:ss'])
      expect(serialToIso(utc.value).replace(/\.\d+Z$/, 'Z')).toBe(want.date_utc)
      const local = at(row, 'date_local (Europe/Paris)')!
      expect(local.kind).toBe('date')
      expect(serialToIso(local.value).slice(0, 19).replace('T', ' ')).toBe(want['date_local (Europe/Paris)'])
    })
    // The ids are the simulator's 12 digits, kept whole as text (never 2E+11).
    expect(body.every((row) => /^\d{12}$/.test(at(row, 'system_id')!.value))).toBe(true)
    // Hostile bodies stay strings with the CSV's apostrophe, and nothing in the sheet is a formula.
    const bodies = body.map((row) => at(row, 'body'))
    expect(bodies.find((c) => c?.value.startsWith(`'=HYPERLINK`))?.kind).toBe('string')
    expect(bodies.find((c) => c?.value === "'@SUM(A1:A2)")?.kind).toBe('string')
    expect(sheet.rows.flat().some((c) => c.kind === 'formula')).toBe(false)
    // The access log says what went out, in which format, as for the CSV.
    expect(audits).toContainEqual(['history.export.done', expect.objectContaining({ format: 'xlsx', rows: 24, complete: true })])
  })

  it('refuses a format it does not write, naming the field', async () => {
    const r = await fetch(`${apiUrl}/api/index/export?numbers=${numbers[7]!.number}&format=pdf`)
    expect(r.status).toBe(400)
    expect(JSON.stringify(await r.json())).toMatch(/format must be csv, ndjson or xlsx/)
  })
})

describe('a large .xlsx export streams', () => {
  const ROWS = 100_000
  const NUMBER = '15550000002'
  let root: string
  let db: OpenedDb
  let index: MessageIndex
  let server: Server
  let url: string

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'sb-export-xlsx-'))
    await freshPgliteDir(join(root, 'data'))
    db = await openDb({ dataDir: join(root, 'data') })
    await db.query(
      `INSERT INTO index_numbers (number, tid, indexed, top_ordinal, state, full_done) VALUES ($2, 'T1', $1, $1, 'idle', true)`,
      [ROWS, NUMBER],
    )
    await db.query(
      `INSERT INTO index_messages (number, ordinal, fetched_tid, tid, system_id, message_id, date, phone, party_digits, direction, body, status, status_code)
       SELECT $2, g, 'T1', 'T1', (200000000000 + g)::text, 'm' || g, timestamptz '2026-01-01' + g * interval '1 minute', '+1555' || (g % 97),
              '1555' || (g % 97), 'in', 'message number ' || g || ', a body long enough to fill the socket''s buffers ' || md5(g::text) || md5((g * 7)::text), 'delivered', 200
       FROM generate_series(1, $1::int) g`,
      [ROWS, NUMBER],
    )
    const forwarder = createForwarder({ baseUrl: 'http://127.0.0.1:9', sysId: 'x', authToken: 'y' }, 1000)
    index = await createIndex(parseIndexConfig({ SYNC_RATE: '0' }), { hooks: deskIndexHooks, db, forwarder })
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

  const progress = async (job: string, at = url) =>
    (await (await fetch(`${at}/api/index/export/progress?job=${job}`)).json()) as ExportProgress

  it(
    'sends each batch as it is made and waits for a reader that stops, so the rows never pile up in memory',
    { tags: ['long'], timeout: 120_000 },
    async () => {
      const job = 'xlsx-stream-1'
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        request(`${url}/api/index/export?numbers=${NUMBER}&format=xlsx&job=${job}`, resolve).on('error', reject).end()
      })
      expect(res.statusCode).toBe(200)
      // The first bytes of the zip arrive while the export is still running.
      const first = await new Promise<Buffer>((ok) => res.once('data', ok))
      expect([...first.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]) // a zip's local file header
      res.pause()
      // With the reader stopped, the export stops too (back-pressure), far short of its rows.
      let last = -1
      let p = await progress(job)
      for (let i = 0; i < 100 && p.rows !== last; i++) {
        last = p.rows
        await new Promise((r) => setTimeout(r, 200))
        p = await progress(job)
      }
      expect(p.state).toBe('running')
      expect(p.rows).toBeGreaterThan(0)
      // (What is in flight is the socket buffers' worth: a few megabytes, some tens of thousands of compressed rows.)
      expect(p.rows).toBeLessThan(ROWS * 0.8)
      // Read to the end: the whole file, every row, 12-digit ids as text.
      const chunks: Buffer[] = [first]
      res.resume()
      for await (const chunk of res) chunks.push(chunk as Buffer)
      const sheet = readXlsx(new Uint8Array(Buffer.concat(chunks)))
      expect(sheet.rows).toHaveLength(ROWS + 1)
      expect(sheet.rows[ROWS]![0]).toMatchObject({ kind: 'string', value: NUMBER })
      expect(sheet.rows.slice(1).every((r) => r.find((c) => c.ref.startsWith('O'))?.kind === 'string')).toBe(true)
      expect((await progress(job)).state).toBe('done')
    },
  )

  it('cuts an export whose reader takes nothing for EXPORT_STALL_S, frees its turn, and logs how many rows went', async () => {
    // One export at a time, a second's patience: the stalled reader would otherwise hold the only turn.
    const audits: Array<[string, Record<string, unknown>]> = []
    const forwarder = createForwarder({ baseUrl: 'http://127.0.0.1:9', sysId: 'x', authToken: 'y' }, 1000)
    const strict = await createIndex(parseIndexConfig({ SYNC_RATE: '0', EXPORTS_MAX: '1', EXPORTS_PER_USER: '1', EXPORT_STALL_S: '1' }), {
      hooks: deskIndexHooks,
      db,
      forwarder,
    })
    const config = parseConfig({ API_BASE_URL: 'http://127.0.0.1:9', API_SYS_ID: 'x', API_AUTH_TOKEN: 'y', PORT: '0', LOG_REQUESTS: '0' })
    const app = createApp(config, { forwarder, routes: strict.routes, gate: recordingGate(audits), log: () => {} })
    const own = createServer((req, res) => app(req, res))
    await new Promise<void>((ok) => own.listen(0, '127.0.0.1', ok))
    const ownUrl = `http://127.0.0.1:${(own.address() as AddressInfo).port}`
    try {
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        request(`${ownUrl}/api/index/export?numbers=${NUMBER}&format=csv&job=stall-job-1`, resolve).on('error', reject).end()
      })
      expect(res.statusCode).toBe(200)
      await new Promise((ok) => res.once('data', ok))
      res.pause()
      // Once the socket's buffers are full, a second without a drain and the server cuts the
      // download: the reader's connection closes with the file unfinished.
      let p = await progress('stall-job-1', ownUrl)
      for (let i = 0; i < 500 && p.state === 'running'; i++) {
        await new Promise((r) => setTimeout(r, 200))
        p = await progress('stall-job-1', ownUrl)
      }
      expect(p.state).not.toBe('running')
      expect(p.rows).toBeLessThan(ROWS)
      // Read on: what the buffers held, then the end of a file cut short (no complete CSV).
      let got = 0
      const ended = await new Promise<string>((ok) => {
        res.on('data', (d: Buffer) => (got += d.length))
        res.on('error', () => ok('error'))
        res.on('end', () => ok('end'))
        res.socket.once('close', () => ok('close'))
        res.resume()
      })
      expect(['error', 'close', 'end']).toContain(ended)
      expect(res.complete).toBe(false)
      expect(got).toBeLessThan(ROWS * 200)
      // Its turn is free: the next export (a small range) runs at once and ends whole.
      const next = await fetch(`${ownUrl}/api/index/export?numbers=${NUMBER}&format=csv&from=2026-01-01T00:00:00Z&to=2026-01-01T01:00:00Z`)
      expect(next.status).toBe(200)
      expect((await next.text()).split('\n').filter(Boolean).length).toBeGreaterThan(1)
      const cutEntry = audits.find(([a, d]) => a === 'history.export.done' && d.complete === false)
      expect(cutEntry?.[1]).toMatchObject({ complete: false })
      expect(cutEntry![1].rows as number).toBeGreaterThan(0)
      expect(cutEntry![1].rows as number).toBeLessThan(ROWS)
    } finally {
      own.closeAllConnections()
      await new Promise<void>((ok) => own.close(() => ok()))
      await strict.close()
    }
  }, 150_000)
})
