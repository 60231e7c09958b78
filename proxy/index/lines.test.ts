import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IndexStatus, SearchResult, ThreadResult } from '../../contract/index-api.ts'
import type { OpenedDb } from '../db/open.ts'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { createForwarder, type Forwarder } from '../forward.ts'
import { createApp } from '../app.ts'
import { parseConfig } from '../config.ts'
import { recordingGate } from '../testing/helpers.ts'
import { DEMO_CREDENTIALS } from '../simulator/dataset.ts'
import { extraTid, TWIN_SIZE } from '../simulator/quirks.ts'
import { createSimulator, type Simulator } from '../simulator/simulator.ts'
import { parseIndexConfig } from './config.ts'
import { createIndex, type MessageIndex } from './routes.ts'
import { createSyncer } from './sync.ts'
import { deskIndexHooks } from '../desk/index-hooks.ts'
import { heldAnswers } from '../testing/answers.ts'

/**
 * A number the account lists under two tids, each serving a history of its own (the simulator's
 * twoHistories quirk): both are indexed, the second as a further line (`<number>~2`), searchable
 * and readable over HTTP, on both engines. Ground truth is the simulator's history under the
 * second tid, fetched whole. A second tid that refuses its history (listedTwice) stays a finding.
 */

const engines = useEngines()

interface Listed {
  number: string
  tid: string
}

async function control(url: string, path: string, body: unknown, method = 'POST') {
  const r = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`)
}

describe.each(ENGINES)('a number listed under two tids, on %s', (engine) => {
  let sim: Simulator
  let simServer: Server
  let simUrl: string
  let fw: Forwarder
  let numbers: Listed[]
  let db: OpenedDb
  let index: MessageIndex
  let api: Server
  let apiUrl: string
  const audits: Array<[string, Record<string, unknown>]> = []
  const answers = heldAnswers(() => index.routes)
  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const r = await fetch(`${apiUrl}${path}`)
    const body = (await r.json()) as T
    answers.hold('GET', path, r.status, () => body)
    return { status: r.status, body }
  }
  const syncer = () =>
    createSyncer({ hooks: deskIndexHooks, db, forwarder: fw, pageCap: 200, concurrency: 2, rate: 0, backoffMs: 20, maxRetries: 2 })
  const syncAll = async () => {
    const s = syncer()
    const listed = await s.syncAll()
    await s.idle()
    await s.close()
    return listed
  }
  const historyUnder = async (number: string, tid: string) => {
    const page = (start: number, end: number) =>
      fw.forward('smshistory', [
        ['number', number],
        ['tid', tid],
        ['history_start', String(start)],
        ['history_end', String(end)],
      ])
    const total = (JSON.parse((await page(1, 1)).body.toString()) as { total_message_count: number }).total_message_count
    return (JSON.parse((await page(1, total)).body.toString()) as { messages: Array<{ system_id: number; phone: string }> }).messages
  }

  beforeAll(async () => {
    sim = createSimulator({ control: true })
    ;({ server: simServer, url: simUrl } = await sim.listen(0, '127.0.0.1'))
    fw = createForwarder({ baseUrl: simUrl, ...DEMO_CREDENTIALS }, 10_000)
    numbers = (JSON.parse((await fw.forward('allownednumbers', [])).body.toString()) as { data: Listed[] }).data
    db = await engines.open(engine)
    index = await createIndex(parseIndexConfig({ SYNC_RATE: '0', HISTORY_PAGE_CAP: '200', INDEX_AUTO_SYNC: 'off' }), {
      hooks: deskIndexHooks,
      forwarder: fw,
      db,
    })
    const app = createApp(parseConfig({ API_BASE_URL: simUrl, API_SYS_ID: 'x', API_AUTH_TOKEN: 'y', HISTORY_PAGE_CAP: '200' }), {
      forwarder: fw,
      routes: index.routes,
      gate: recordingGate(audits),
    })
    api = createServer((req: IncomingMessage, res: ServerResponse) => app(req, res))
    await new Promise<void>((ok) => api.listen(0, '127.0.0.1', ok))
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`
  }, 60_000)

  afterAll(async () => {
    await index?.close()
    api?.closeAllConnections()
    await new Promise<void>((ok) => (api ? api.close(() => ok()) : ok()))
    await fw?.close()
    simServer?.closeAllConnections()
    await new Promise<void>((ok) => (simServer ? simServer.close(() => ok()) : ok()))
  })

  it('indexes both histories, the second as a line of its own that search and threads show, and forgets both with the number', async () => {
    const two = numbers[3]!
    const refused = numbers[4]!
    const second = extraTid(two.number)
    const line = `${two.number}~2`
    // The million-message number and the hostile one leave the account: the listing stays quick to index.
    const gone = [numbers[6]!.number, numbers[7]!.number]
    await control(simUrl, '/__sim/quirks', { twoHistories: [two.number], listedTwice: [refused.number], removed: gone })
    try {
      expect(await syncAll()).toBe(numbers.length - 2)

      // The number's own history and the second tid's: each whole, each under its own key.
      const own = await get<IndexStatus>(`/api/index/status?number=${two.number}`)
      expect(own.body.numbers[0]).toMatchObject({ number: two.number, tid: two.tid, state: 'idle', indexed: 36, lineTids: [second] })
      const status = await get<IndexStatus>(`/api/index/status?number=${encodeURIComponent(line)}`)
      expect(status.status).toBe(200)
      expect(status.body.numbers[0]).toMatchObject({ number: line, tid: second, lineOf: two.number, state: 'idle', indexed: TWIN_SIZE })
      // One number, however many lines: the account's progress counts the numbers the listing has.
      expect(status.body.progress.numbersTotal).toBe(numbers.length - 2)
      expect(status.body.progress.numbersDone).toBe(numbers.length - 2)
      expect(status.body.freshness).toMatchObject({ numbersKnown: numbers.length - 2, numbersComplete: numbers.length - 2 })
      // A line not whole keeps its number from being complete.
      await db.query(`UPDATE index_numbers SET state = 'error' WHERE number = $1`, [line])
      const short = (await get<IndexStatus>(`/api/index/status?number=${two.number}`)).body
      expect(short.freshness).toMatchObject({ numbersKnown: numbers.length - 2, numbersComplete: numbers.length - 3 })
      expect(short.progress).toMatchObject({ numbersTotal: numbers.length - 2, numbersDone: numbers.length - 3 })
      await db.query(`UPDATE index_numbers SET state = 'idle' WHERE number = $1`, [line])

      // Every message the second tid serves is found by a search of the line, and none is left out.
      const truth = await historyUnder(two.number, second)
      expect(truth).toHaveLength(TWIN_SIZE)
      const found = new Set<string>()
      let cursor: string | null = null
      for (let pages = 0; pages < 10; pages++) {
        const q: string = `/api/index/search?numbers=${encodeURIComponent(line)}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
        const r: { status: number; body: SearchResult } = await get<SearchResult>(q)
        expect(r.status).toBe(200)
        for (const row of r.body.rows) {
          expect(row.number).toBe(line)
          found.add(row.systemId!)
        }
        cursor = r.body.nextCursor
        if (!cursor) break
      }
      expect([...found].sort()).toEqual(truth.map((m) => String(m.system_id)).sort())
      // The account-wide search holds them too, beside the number's own messages.
      const party = truth[0]!.phone
      const everywhere = await get<SearchResult>(`/api/index/search?party=${party}&limit=200`)
      expect(everywhere.body.rows.some((r) => r.number === line)).toBe(true)
      // A customer's thread on the line opens like any number's.
      const thread = await get<ThreadResult>(`/api/index/thread?number=${encodeURIComponent(line)}&party=${party}`)
      expect(thread.status).toBe(200)
      expect(thread.body.total).toBe(truth.filter((m) => m.phone === party).length)

      // A second tid the history refuses is no line: it stays the finding it was.
      const finding = await get<IndexStatus>(`/api/index/status?number=${refused.number}`)
      expect(finding.body.numbers[0]).toMatchObject({ state: 'idle', otherTids: [extraTid(refused.number)] })
      expect(finding.body.numbers[0]!.lineTids).toBeUndefined()
      expect((await get<IndexStatus>(`/api/index/status?number=${refused.number}~2`)).body.numbers).toEqual([])

      // Syncing again finds the same line, and no third.
      await syncAll()
      const rows = await db.query<{ number: string }>('SELECT number FROM index_numbers WHERE line_of = $1', [two.number])
      expect(rows.rows.map((r) => r.number)).toEqual([line])

      // The listing no longer gives the second tid: the line is marked as gone from the account, its messages kept.
      await control(simUrl, '/__sim/quirks', { twoHistories: [] })
      await syncAll()
      const left = (await get<IndexStatus>(`/api/index/status?number=${encodeURIComponent(line)}`)).body.numbers[0]
      expect(left).toMatchObject({ removed: true, indexed: TWIN_SIZE })
      await control(simUrl, '/__sim/quirks', { twoHistories: [two.number] })
      await syncAll()
      expect((await get<IndexStatus>(`/api/index/status?number=${encodeURIComponent(line)}`)).body.numbers[0]).toMatchObject({
        removed: false,
      })

      // A forget of the number forgets its lines with it.
      const r = await fetch(`${apiUrl}/api/index/forget`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ number: two.number }),
      })
      expect(r.status).toBe(200)
      expect(((await r.json()) as { forgotten: number }).forgotten).toBe(36 + TWIN_SIZE)
      const held = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_messages WHERE number = ANY($1::text[])', [
        [two.number, line],
      ])
      expect(held.rows[0]!.n).toBe(0)
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
  }, 120_000)

  it('a history served under a second tid the index did not know becomes a line, and the number keeps its own', async () => {
    const one = numbers[2]!
    const second = extraTid(one.number)
    const request = async (tid: string) => {
      const s = syncer()
      await s.request({ number: one.number, tid })
      await s.idle()
      await s.close()
    }
    await control(simUrl, '/__sim/quirks', { twoHistories: [one.number] })
    try {
      // Synced by name (a history opened): no listing has told the index of the second tid.
      await request(one.tid)
      expect((await get<IndexStatus>(`/api/index/status?number=${one.number}`)).body.numbers[0]).toMatchObject({ tid: one.tid, indexed: 1 })
      // Its history served under the second tid (as the history page's refresh of the index asks).
      await request(second)
      const own = (await get<IndexStatus>(`/api/index/status?number=${one.number}`)).body.numbers[0]
      expect(own).toMatchObject({ tid: one.tid, indexed: 1, state: 'idle', lineTids: [second] })
      const line = (await get<IndexStatus>(`/api/index/status?number=${one.number}~2`)).body.numbers[0]
      expect(line).toMatchObject({ tid: second, lineOf: one.number, indexed: TWIN_SIZE, state: 'idle' })
      // Asked again under either tid, each goes to its own history: no third line, no switch.
      await request(second)
      await request(one.tid)
      const rows = await db.query<{ number: string; tid: string; indexed: number }>(
        'SELECT number, tid, indexed FROM index_numbers WHERE number = $1 OR line_of = $1 ORDER BY number',
        [one.number],
      )
      expect(rows.rows).toEqual([
        { number: one.number, tid: one.tid, indexed: 1 },
        { number: `${one.number}~2`, tid: second, indexed: TWIN_SIZE },
      ])
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
  }, 120_000)
})
