import { spawn } from 'node:child_process'
import type { Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readLockHolder } from '../db/lock.ts'
import type { Db, Queryable } from '../db/types.ts'
import { openDb, type OpenedDb } from '../db/open.ts'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { createForwarder, type Forwarder } from '../forward.ts'
import { refreshAllDesk } from '../desk/refresh.ts'
import { DEMO_CREDENTIALS } from '../simulator/dataset.ts'
import { DESK_INDEX } from '../simulator/desk-cases.ts'
import { extraTid, REMOVAL_WORDINGS, type RemovalWording } from '../simulator/quirks.ts'
import { createSimulator, type Simulator } from '../simulator/simulator.ts'
import { parseIndexConfig, parseIndexConfigResult } from './config.ts'
import { parsePage } from './parse.ts'
import { forget, freshness, numberStatuses } from './queries.ts'
import { createIndex } from './routes.ts'
import { createSyncer, DESK_INDEXES, overallProgress, SECONDARY_INDEXES } from './sync.ts'
import { dropIndexes } from './sync/indexes.ts'
import { deskIndexHooks } from '../desk/index-hooks.ts'

/**
 * The sync against what real accounts do (the simulator's quirks, over HTTP), on both engines:
 * arrival rates, skewed clocks, a number listed twice, an empty number, a number removed
 * mid-sync in several wordings, stops at several points of a walk, and a dead server's lease.
 * Small histories and page sizes keep it to seconds.
 */

const engines = useEngines()

interface Listed {
  number: string
  tid: string
}

// Every index a bulk load drops and builds at the end (the desk's too: the syncers here keep the desk).
const SECONDARY = [...SECONDARY_INDEXES, ...DESK_INDEXES].map((s) => /INDEX IF NOT EXISTS (\w+)/.exec(s)![1]!)

async function control(url: string, path: string, body: unknown, method = 'POST') {
  const r = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`)
}

/** Wraps the real forwarder to act before the n-th history request. */
function hooked(fw: Forwarder, onHistory: (n: number) => Promise<void> | void) {
  let n = 0
  return {
    forward: async (...args: Parameters<Forwarder['forward']>) => {
      if (args[0] === 'smshistory') await onHistory(++n)
      return fw.forward(...args)
    },
    forwardBytes: async (...args: Parameters<Forwarder['forwardBytes']>) => {
      if (args[0] === 'smshistory') await onHistory(++n)
      return fw.forwardBytes(...args)
    },
    judge: (...args: Parameters<Forwarder['judge']>) => fw.judge(...args),
    close: () => fw.close(),
    count: () => n,
  }
}

/** Wraps the real forwarder to rewrite each history answer's JSON (an upstream that bends its pages). */
function bent(fw: Forwarder, change: (page: Record<string, unknown>, start: number) => void): Forwarder {
  const rewrite = (body: Buffer, fields: Array<[string, string]>) => {
    const page = JSON.parse(body.toString('utf8')) as Record<string, unknown>
    change(page, Number(fields.find(([k]) => k === 'history_start')?.[1]))
    return Buffer.from(JSON.stringify(page))
  }
  return {
    forward: async (...args) => {
      const res = await fw.forward(...args)
      if (args[0] !== 'smshistory') return res
      const body = rewrite(res.body, args[1])
      return { body, json: JSON.parse(body.toString('utf8')) as unknown }
    },
    forwardBytes: async (...args) => {
      const res = await fw.forwardBytes(...args)
      return args[0] === 'smshistory' ? { ...res, body: rewrite(res.body, args[1]) } : res
    },
    judge: (...args) => fw.judge(...args),
    close: () => fw.close(),
  }
}

/**
 * A number's history served from a list the test changes (newest first), with the real
 * envelope's other fields: for histories the simulator does not make (a late delivery below the
 * newest message). Other numbers and operations go to the real forwarder.
 */
async function served(fw: Forwarder, number: string, tid: string) {
  const fields = (start: number, end: number): Array<[string, string]> => [
    ['number', number],
    ['tid', tid],
    ['history_start', String(start)],
    ['history_end', String(end)],
  ]
  const first = JSON.parse((await fw.forward('smshistory', fields(1, 1))).body.toString('utf8')) as Record<string, unknown>
  const total = Number(first.total_message_count)
  const all = JSON.parse((await fw.forward('smshistory', fields(1, total))).body.toString('utf8')) as Record<string, unknown>
  const records = all.messages as Array<Record<string, unknown>>
  const before: Array<() => void> = []
  const answer = (f: Array<[string, string]>) => {
    for (const change of before) change()
    const get = (k: string) => Number(f.find(([x]) => x === k)?.[1])
    const page = {
      ...all,
      total_message_count: String(records.length),
      messages: records.slice(get('history_start') - 1, get('history_end')),
    }
    return Buffer.from(JSON.stringify(page))
  }
  const ours = (op: string, f: Array<[string, string]>) => op === 'smshistory' && f.some(([k, v]) => k === 'number' && v === number)
  const forwarder: Forwarder = {
    forward: async (...args) => {
      if (!ours(args[0], args[1])) return fw.forward(...args)
      const body = answer(args[1])
      return { body, json: JSON.parse(body.toString('utf8')) as unknown }
    },
    forwardBytes: async (...args) =>
      ours(args[0], args[1]) ? { body: answer(args[1]), status: 200, owned: false } : fw.forwardBytes(...args),
    judge: (...args) => fw.judge(...args),
    close: () => fw.close(),
  }
  /** `before`: changes made to the list before each answer (an upstream whose order is not stable); `envelope`: the answers' other fields. */
  return { records, forwarder, before, envelope: all }
}

describe('INDEX_AUTO_SYNC', () => {
  it('is on by default, off when asked, and a wrong value names the variable', () => {
    expect(parseIndexConfig({}).autoSync).toBe(true)
    expect(parseIndexConfig({ INDEX_AUTO_SYNC: 'off' }).autoSync).toBe(false)
    expect(parseIndexConfigResult({ INDEX_AUTO_SYNC: 'maybe' }).issues).toEqual([
      { variable: 'INDEX_AUTO_SYNC', message: 'INDEX_AUTO_SYNC must be on or off' },
    ])
  })
})

describe.each(ENGINES)('sync quirks on %s', (engine) => {
  let sim: Simulator
  let simServer: Server
  let simUrl: string
  let fw: Forwarder
  let numbers: Listed[]
  let db: OpenedDb
  /** PGlite handles opened again after a child process had the directory (the helper closes the first). */
  const reopened: OpenedDb[] = []
  const num = (i: number) => numbers[i]!

  const syncer = (forwarder: Forwarder = fw, more: Partial<Parameters<typeof createSyncer>[0]> = {}) =>
    createSyncer({ hooks: deskIndexHooks, db, forwarder, pageCap: 100, concurrency: 2, rate: 0, backoffMs: 10, maxRetries: 1, ...more })
  const syncNow = async (i: number, forwarder: Forwarder = fw, more: Partial<Parameters<typeof createSyncer>[0]> = {}) => {
    const s = syncer(forwarder, more)
    await s.request({ number: num(i).number, tid: num(i).tid })
    await s.idle()
    await s.close()
  }
  const upstreamTotal = (i: number) => {
    const base = { 0: 2345, 1: 0, 2: 1, 3: 36, 4: 420, 5: 5000 }[i]!
    return base + (sim.state.added.get(num(i).number) ?? 0)
  }
  /** Ordinals 1..n exactly, each the simulator's sequence number (its system id encodes it). */
  const expectExact = async (i: number, total: number) => {
    const r = await db.query<{ n: number; d: number; hi: number | null; bad: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT ordinal)::int AS d, max(ordinal) AS hi,
              count(*) FILTER (WHERE system_id::bigint - 200000000000 - $2::bigint * 2000000 <> ordinal)::int AS bad
       FROM index_messages WHERE number = $1`,
      [num(i).number, i],
    )
    expect(r.rows[0]).toEqual({ n: total, d: total, hi: total === 0 ? null : total, bad: 0 })
    const st = await db.query('SELECT indexed, state, full_done, error FROM index_numbers WHERE number = $1', [num(i).number])
    expect(st.rows[0]).toEqual({ indexed: total, state: 'idle', full_done: true, error: null })
    const f = await freshness(db, [num(i).number])
    expect(f.incomplete).toEqual([])
  }
  const forgetAll = async (i: number) => {
    for (const t of ['index_messages', 'index_daily', 'index_quarter_hours', 'index_parties', 'index_body_counts', 'index_numbers'])
      await db.query(`DELETE FROM ${t} WHERE number = $1`, [num(i).number])
    sim.state.added.delete(num(i).number)
  }
  const indexNames = async () =>
    (await db.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'index_messages'`)).rows.map(
      (r) => r.indexname,
    )
  /** Each secondary index's definition and storage options, by name. */
  const indexDefs = async () =>
    Object.fromEntries(
      (
        await db.query<{ name: string; def: string; options: string[] | null }>(
          `SELECT c.relname AS name, pg_get_indexdef(c.oid) AS def, c.reloptions AS options
             FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
            WHERE i.indrelid = 'index_messages'::regclass AND c.relname = ANY($1::text[])`,
          [SECONDARY],
        )
      ).rows.map((r) => [r.name, { def: r.def, options: r.options }]),
    )
  /** indexDefs as the migrations left them, before any sync dropped and built them again. */
  let migrated: Awaited<ReturnType<typeof indexDefs>>

  beforeAll(async () => {
    sim = createSimulator({ control: true })
    ;({ server: simServer, url: simUrl } = await sim.listen(0, '127.0.0.1'))
    fw = createForwarder({ baseUrl: simUrl, ...DEMO_CREDENTIALS }, 10_000)
    numbers = (JSON.parse((await fw.forward('allownednumbers', [])).body.toString()) as { data: Listed[] }).data
    db = await engines.open(engine)
    migrated = await indexDefs()
    // Creating a PGlite directory (initdb and the migrations) took over a minute on a loaded machine.
  }, 120_000)

  afterAll(async () => {
    for (const d of reopened) await d.close().catch(() => {})
    await fw?.close()
    simServer?.closeAllConnections()
    await new Promise<void>((ok) => (simServer ? simServer.close(() => ok()) : ok()))
  })

  it('indexes the whole account on first start, in the background, and reports overall progress', async () => {
    // The million-message number and the hostile one leave the account (the run stays short).
    await control(simUrl, '/__sim/quirks', { removed: [num(6).number, num(7).number] })
    try {
      const index = await createIndex(parseIndexConfig({ SYNC_RATE: '0', HISTORY_PAGE_CAP: '500' }), {
        hooks: deskIndexHooks,
        forwarder: fw,
        db,
      })
      const deadline = Date.now() + 60_000
      let p = await overallProgress(db, index.syncer!.progress)
      while ((p.numbersTotal === 0 || p.running) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200))
        p = await overallProgress(db, index.syncer!.progress)
      }
      await index.close()
      expect(p).toMatchObject({ numbersTotal: numbers.length - 2, numbersDone: numbers.length - 2, running: false, secondsLeft: null })
      expect(p.messages).toBe(p.messagesTotal)
      expect(p.messages).toBeGreaterThan(7000)
      // The rate is this server's messages over the time since its first sync began, and none
      // under a second (a fast machine indexes these 7,000 in less): read it at a later moment.
      const { since, messages } = index.syncer!.progress
      expect(since).not.toBeNull()
      expect(messages).toBe(p.messages)
      const at = Math.max(Date.now(), since! + 2_000)
      const later = await overallProgress(db, index.syncer!.progress, at)
      expect(later.ratePerSecond).toBe(Math.round(messages / ((at - since!) / 1000)))
      expect(later.ratePerSecond).toBeGreaterThan(0)
      // A restart does not list the account again: the periodic re-sync keeps it fresh.
      const again = await createIndex(parseIndexConfig({ SYNC_RATE: '0', HISTORY_PAGE_CAP: '500' }), {
        hooks: deskIndexHooks,
        forwarder: fw,
        db,
      })
      expect(await again.syncer!.syncAllOnce()).toBe(0)
      await again.close()
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
  }, 90_000)

  it('an index closed while its first listing is on its way records nothing of it', async () => {
    await db.query('UPDATE index_numbers SET listed = false')
    let asked = 0
    let answer!: () => void
    const closedFirst = new Promise<void>((resolve) => (answer = resolve))
    const slow: Forwarder = {
      ...fw,
      forward: async (...args) => {
        if (args[0] === 'allownednumbers') {
          asked += 1
          await closedFirst
        }
        return fw.forward(...args)
      },
    }
    const index = await createIndex(parseIndexConfig({ SYNC_RATE: '0', HISTORY_PAGE_CAP: '500' }), {
      hooks: deskIndexHooks,
      forwarder: slow,
      db,
    })
    await expect.poll(() => asked, { timeout: 30_000 }).toBe(1)
    await index.close()
    answer()
    // The answer came after the close: a listing recorded now would mark every number listed, and
    // the next index would take the account as listed before it ever listed it.
    await new Promise((r) => setTimeout(r, 500))
    expect(await db.query('SELECT 1 FROM index_numbers WHERE listed LIMIT 1')).toMatchObject({ rows: [] })
  }, 60_000)

  it('a first listing that fails is tried again on its own, and the status says why until one works', async () => {
    await control(simUrl, '/__sim/quirks', { removed: [num(6).number, num(7).number] })
    await db.query('UPDATE index_numbers SET listed = false')
    // Refused until the test has seen the status say so and a second try refused too: a fixed count
    // of refusals left a window under a second long to see it in, and a loaded CI machine missed it.
    let refusing = true
    let refused = 0
    const down: Forwarder = {
      ...fw,
      forward: async (...args) => {
        if (args[0] === 'allownednumbers' && refusing) {
          refused += 1
          throw new Error('The messaging service is unavailable (HTTP 503).')
        }
        return fw.forward(...args)
      },
    }
    const lines: string[] = []
    const index = await createIndex(parseIndexConfig({ SYNC_RATE: '0', HISTORY_PAGE_CAP: '500' }), {
      hooks: deskIndexHooks,
      forwarder: down,
      db,
      listRetryMs: 300,
      log: (l) => lines.push(l),
    })
    try {
      await expect.poll(() => index.syncer!.listingFailure(), { timeout: 30_000 }).toMatchObject({ message: /unavailable \(HTTP 503\)/ })
      // Tried again: no one pressed "Index all numbers".
      await expect.poll(() => refused, { timeout: 30_000 }).toBeGreaterThanOrEqual(2)
      expect(index.syncer!.listingFailure()).toMatchObject({ message: /unavailable \(HTTP 503\)/ })
      expect(await db.query('SELECT 1 FROM index_numbers WHERE listed LIMIT 1')).toMatchObject({ rows: [] })
      refusing = false
      // The next try lists the account, and the status no longer reports a failure.
      await expect
        .poll(async () => (await db.query('SELECT 1 FROM index_numbers WHERE listed LIMIT 1')).rows.length, { timeout: 30_000 })
        .toBe(1)
      expect(index.syncer!.listingFailure()).toBeNull()
      expect(lines.filter((l) => /could not list the account's numbers/.test(l))).toHaveLength(refused)
      await index.syncer!.idle()
    } finally {
      await index.close()
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
  }, 120_000)

  const synced = async (i: number) =>
    (await db.query<{ at: Date | null }>('SELECT last_synced_at AS at FROM index_numbers WHERE number = $1', [num(i).number])).rows[0]!.at
  /** An index whose periodic re-sync runs every second (nothing else starts on its own). */
  const periodicIndex = () =>
    createIndex(parseIndexConfig({ SYNC_RATE: '0', SYNC_INTERVAL_S: '1', INDEX_AUTO_SYNC: 'off' }), {
      hooks: deskIndexHooks,
      forwarder: fw,
      db,
    })
  /** Waits (15 s at most) until number i was synced again after `before`: the periodic re-sync ran. */
  const resyncedAfter = async (i: number, before: number) => {
    const deadline = Date.now() + 15_000
    while (((await synced(i))?.getTime() ?? 0) <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect((await synced(i))!.getTime()).toBeGreaterThan(before)
  }

  /**
   * Runs `fn` on a database of its own. A periodic re-sync walks every number its database holds:
   * on the shared one, the whole account the first test indexed. On a loaded machine that pass
   * outlasted the one-second interval, so the syncer was never idle between passes and the test
   * waited up to two minutes for a moment it was.
   */
  const onOwnDb = async (fn: () => Promise<void>) => {
    const shared = db
    db = await engines.open(engine)
    try {
      await fn()
    } finally {
      db = shared
    }
  }

  it(
    'the periodic re-sync leaves a number in error to its back-off (it asked an outage again every SYNC_INTERVAL_S)',
    () =>
      onOwnDb(async () => {
        await syncNow(2)
        await syncNow(3)
        // Failed a moment ago, for the fifth time in a row: its back-off (a minute, doubling with each
        // failure: 16 minutes here) has not passed, however long a loaded machine takes over the test.
        await db.query(`UPDATE index_numbers SET state = 'error', error = 'outage', failed_at = now(), failures = 5 WHERE number = $1`, [
          num(3).number,
        ])
        const index = await periodicIndex()
        try {
          const before = (await synced(2))!.getTime()
          const errored = (await synced(3))!.getTime()
          await resyncedAfter(2, before)
          await index.syncer!.idle()
          const row = await db.query<{ state: string }>('SELECT state FROM index_numbers WHERE number = $1', [num(3).number])
          expect(row.rows[0]!.state).toBe('error')
          expect((await synced(3))!.getTime()).toBe(errored)
        } finally {
          await index.close()
        }
        await syncNow(3)
      }),
    60_000,
  )

  it(
    'a forgotten number stays forgotten: the periodic re-sync and a history view pass it by, until a person syncs it',
    () =>
      onOwnDb(async () => {
        await syncNow(2)
        await syncNow(3)
        const index = await periodicIndex()
        try {
          expect(await forget(db, num(3).number, deskIndexHooks)).toBe(upstreamTotal(3))
          index.onHistoryViewed(num(3).number, num(3).tid, null)
          // The periodic re-sync runs (the number beside it is synced again) and passes the forgotten one by.
          const before = (await synced(2))!.getTime()
          await resyncedAfter(2, before)
          await index.syncer!.idle()
          const row = await db.query('SELECT state, indexed, forgotten_at IS NOT NULL AS forgotten FROM index_numbers WHERE number = $1', [
            num(3).number,
          ])
          expect(row.rows[0]).toEqual({ state: 'never', indexed: 0, forgotten: true })
          const status = (await numberStatuses(db, num(3).number))[0]!
          expect(status.forgottenAt).not.toBeNull()
          // A person asks for it by name: indexed again, and no longer said to be forgotten.
          await index.syncer!.request({ number: num(3).number })
          await index.syncer!.idle()
          await expectExact(3, upstreamTotal(3))
          expect((await numberStatuses(db, num(3).number))[0]!.forgottenAt).toBeNull()
        } finally {
          await index.close()
        }
      }),
    60_000,
  )

  it(
    'a history view whose page shows what the index holds is checked in one statement; one that shows new messages syncs them',
    () =>
      onOwnDb(async () => {
        await syncNow(3)
        const index = await createIndex(parseIndexConfig({ SYNC_RATE: '0', INDEX_AUTO_SYNC: 'off' }), {
          hooks: deskIndexHooks,
          forwarder: fw,
          db,
          viewRefreshMs: 0,
        })
        const envelope = async () => {
          const fields: Array<[string, string]> = [
            ['number', num(3).number],
            ['tid', num(3).tid],
            ['history_start', '1'],
            ['history_end', '10'],
          ]
          const { records: _, ...meta } = parsePage((await fw.forward('smshistory', fields)).body)
          return meta
        }
        try {
          // The page says what the index holds: the check is recorded as a sync's (last_synced_at), and nothing is asked upstream.
          const before = (await synced(3))!.getTime()
          await new Promise((r) => setTimeout(r, 10))
          index.onHistoryViewed(num(3).number, num(3).tid, await envelope())
          await resyncedAfter(3, before)
          await index.syncer!.idle()
          expect(index.syncer!.stats.requests).toBe(0)
          // New messages: the page's envelope differs, so the view syncs them.
          await control(simUrl, '/__sim/messages', { number: num(3).number, add: 5 })
          index.onHistoryViewed(num(3).number, num(3).tid, await envelope())
          for (let i = 0; i < 150 && index.syncer!.stats.requests === 0; i++) await new Promise((r) => setTimeout(r, 20))
          await index.syncer!.idle()
          expect(index.syncer!.stats.requests).toBeGreaterThan(0)
          await expectExact(3, upstreamTotal(3))
        } finally {
          await index.close()
        }
      }),
    60_000,
  )

  describe.each([1, 7, 50])('%i messages arriving per request', (rate) => {
    it('a full walk and then a catch-up end exact', async () => {
      await forgetAll(4)
      await control(simUrl, '/__sim/quirks', { arrivals: { number: num(4).number, perRequest: rate } })
      try {
        await syncNow(4)
        await expectExact(4, upstreamTotal(4))
        // Catch-up: the stored newest is looked for again while `rate` more arrive per request.
        await control(simUrl, '/__sim/messages', { number: num(4).number, add: 130 })
        await syncNow(4)
        await expectExact(4, upstreamTotal(4))
      } finally {
        await control(simUrl, '/__sim/quirks', {}, 'DELETE')
      }
    })
  })

  it('pages asked for ahead and answered out of order while messages arrive end exact, not "kept changing" (a smaller total served earlier is no shrink)', async () => {
    await forgetAll(5)
    // One message arriving per request, answers held 0–30 ms by turns: the four pages asked for
    // ahead come back in another order, one made earlier (a smaller total) after one made later.
    await control(simUrl, '/__sim/quirks', {
      arrivals: { number: num(5).number, perRequest: 1 },
      reorder: { number: num(5).number, scale: 2 },
    })
    try {
      await syncNow(5)
      await expectExact(5, upstreamTotal(5))
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
      await forgetAll(5)
    }
  })

  it('a total that counts more than the history serves ends the walk where the records end, instead of asking for ever', async () => {
    await forgetAll(4)
    await control(simUrl, '/__sim/quirks', { overstated: { number: num(4).number, by: 5 } })
    const logs: string[] = []
    try {
      await syncNow(4, fw, { log: (l) => logs.push(l) })
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
    // Every record the upstream serves, each at its place counted from the total it reports (5 above the simulator's own).
    const total = upstreamTotal(4)
    const r = await db.query<{ n: number; lo: number; hi: number; bad: number }>(
      `SELECT count(*)::int AS n, min(ordinal) AS lo, max(ordinal) AS hi,
              count(*) FILTER (WHERE system_id::bigint - 200000000000 - 4 * 2000000 + 5 <> ordinal)::int AS bad
       FROM index_messages WHERE number = $1`,
      [num(4).number],
    )
    expect(r.rows[0]).toEqual({ n: total, lo: 6, hi: total + 5, bad: 0 })
    const st = await db.query('SELECT state, full_done, error FROM index_numbers WHERE number = $1', [num(4).number])
    expect(st.rows[0]).toEqual({ state: 'idle', full_done: true, error: null })
    expect(logs.some((l) => l.includes(`reports ${total + 5} messages but serves none past position ${total}`))).toBe(true)
    // The Index page says it too, not only the server's log.
    expect((await numberStatuses(db, num(4).number))[0]!.finding).toBe(
      `The messaging service reports ${total + 5} messages but served none past position ${total}: 5 of its count are not in the index (deleted upstream, or a history that starts at 0).`,
    )
  }, 60_000)

  it('a short page in the middle of a walk (an upstream size limit) is walked past, not taken for the end of the history', async () => {
    await forgetAll(4)
    // Pages starting at positions 39–50 hold one record: at a cap of 20 (pages at 1, 20, 39…) the walk meets one holding only its overlap.
    const short = bent(fw, (page, start) => {
      if (start >= 39 && start <= 50) page.messages = (page.messages as unknown[]).slice(0, 1)
    })
    const logs: string[] = []
    await syncNow(4, short, { pageCap: 20, log: (l) => logs.push(l) })
    await expectExact(4, upstreamTotal(4))
    expect(logs.filter((l) => l.includes('serves none past'))).toEqual([])
  }, 60_000)

  it('a total that counts fewer than the history serves never stores an ordinal of 0 or below', async () => {
    await forgetAll(4)
    await control(simUrl, '/__sim/quirks', { overstated: { number: num(4).number, by: -5 } })
    try {
      await syncNow(4)
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
    // The upstream's total places every record: the 5 it serves past that total have no place, and are left out.
    const total = upstreamTotal(4)
    const r = await db.query<{ n: number; lo: number; hi: number; bad: number }>(
      `SELECT count(*)::int AS n, min(ordinal) AS lo, max(ordinal) AS hi,
              count(*) FILTER (WHERE system_id::bigint - 200000000000 - 4 * 2000000 - 5 <> ordinal)::int AS bad
       FROM index_messages WHERE number = $1`,
      [num(4).number],
    )
    expect(r.rows[0]).toEqual({ n: total - 5, lo: 1, hi: total - 5, bad: 0 })
    const st = await db.query('SELECT state, full_done, error FROM index_numbers WHERE number = $1', [num(4).number])
    expect(st.rows[0]).toEqual({ state: 'idle', full_done: true, error: null })
    // Said on the Index page, which called the number complete with nothing more.
    expect((await numberStatuses(db, num(4).number))[0]!.finding).toBe(
      `The messaging service reports ${total - 5} messages but served 5 more past that: the oldest 5 are not in the index (a total that lags).`,
    )
    // A walk from the top that finds nothing to say clears it (forgetting keeps it: it is about the upstream).
    await forget(db, num(4).number, deskIndexHooks)
    expect((await numberStatuses(db, num(4).number))[0]!.finding).toMatch(/a total that lags/)
    await syncNow(4)
    expect((await numberStatuses(db, num(4).number))[0]!.finding).toBeNull()
  }, 60_000)

  it('empty answers for an indexed number are asked again before anything stored is wiped', async () => {
    await forgetAll(4)
    await syncNow(4)
    await expectExact(4, upstreamTotal(4))
    const before = await db.query<{ id: string }>('SELECT min(indexed_at)::text AS id FROM index_messages WHERE number = $1', [
      num(4).number,
    ])
    // Three answers in a row say the history is empty (total 0), then it is whole again.
    await control(simUrl, '/__sim/faults', { kind: 'empty_data', times: 3, op: 'smshistory', number: num(4).number })
    const logs: string[] = []
    try {
      await syncNow(4, fw, { log: (l) => logs.push(l) })
    } finally {
      await fetch(`${simUrl}/__sim/faults`, { method: 'DELETE' })
    }
    await expectExact(4, upstreamTotal(4))
    // Nothing was wiped and fetched again: the same rows, and no re-walk.
    const after = await db.query<{ id: string }>('SELECT min(indexed_at)::text AS id FROM index_messages WHERE number = $1', [
      num(4).number,
    ])
    expect(after.rows[0]).toEqual(before.rows[0])
    expect(logs.filter((l) => l.includes('walking the history again'))).toEqual([])
    expect(logs.some((l) => l.includes(`went down from ${upstreamTotal(4)} to 0, then back`))).toBe(true)
  }, 60_000)

  it('a group message naming 400 recipients and a message dated in year 0000 are stored with the rest, not a batch refused for good', async () => {
    await forgetAll(3)
    const recipients = Array.from({ length: 400 }, (_, i) => `1415555${String(i).padStart(4, '0')}`).join(',')
    const odd = bent(fw, (page, start) => {
      const list = page.messages as Array<Record<string, unknown>>
      if (start === 1 && list.length > 2) {
        list[0]!.phone = recipients
        list[1]!.GMTdate = '0000-01-01 00:00:00'
      }
    })
    await syncNow(3, odd)
    const st = await db.query<{ indexed: number; state: string; error: string | null }>(
      'SELECT indexed, state, error FROM index_numbers WHERE number = $1',
      [num(3).number],
    )
    expect(st.rows[0]).toEqual({ indexed: upstreamTotal(3), state: 'idle', error: null })
    const group = await db.query<{ phone: string; digits: number }>(
      'SELECT phone, length(party_digits) AS digits FROM index_messages WHERE number = $1 AND ordinal = $2',
      [num(3).number, upstreamTotal(3)],
    )
    // The phone field whole; the thread key cut to what the index takes.
    expect(group.rows[0]).toEqual({ phone: recipients, digits: 512 })
    await forgetAll(3)
  })

  it('a number moved to a new tid is synced under the tid the account lists it with now, not paused as "no such number"', async () => {
    await syncNow(3)
    // The index knows only a tid the history no longer takes (the number moved to the listed one).
    await db.query(`UPDATE index_numbers SET tid = 'OLDTID77', other_tids = '{}' WHERE number = $1`, [num(3).number])
    const log: string[] = []
    const s = syncer(fw, { log: (l) => log.push(l) })
    await s.request({ number: num(3).number })
    await s.idle()
    await s.close()
    const st = await db.query('SELECT tid, other_tids, state, error FROM index_numbers WHERE number = $1', [num(3).number])
    expect(st.rows[0]).toEqual({ tid: num(3).tid, other_tids: [], state: 'idle', error: null })
    expect(log).toContain(`index: ${num(3).number}: the account now lists it under tid ${num(3).tid}`)
    await expectExact(3, upstreamTotal(3))
  })

  it('a message delivered late, below the newest stored one, is indexed at its place: the catch-up walks again rather than miss it', async () => {
    await forgetAll(3)
    const { records, forwarder } = await served(fw, num(3).number, num(3).tid)
    await syncNow(3, forwarder)
    const late = (id: string, body: string) => ({ ...records[10]!, system_id: id, message_id: `late-${id}`, body })
    // One delivered late (position 11), and two new ones on top.
    records.splice(10, 0, late('299999999001', 'delivered late'))
    records.unshift(late('299999999003', 'newest'), late('299999999002', 'new'))
    await syncNow(3, forwarder)
    const st = await db.query('SELECT indexed, state, error FROM index_numbers WHERE number = $1', [num(3).number])
    expect(st.rows[0]).toEqual({ indexed: records.length, state: 'idle', error: null })
    // Each record at the ordinal its position gives (the newest is the total).
    const stored = await db.query<{ system_id: string; ordinal: number }>(
      'SELECT system_id, ordinal FROM index_messages WHERE number = $1',
      [num(3).number],
    )
    const ordinalOf = new Map(stored.rows.map((r) => [r.system_id, r.ordinal]))
    expect(records.map((r, i) => ordinalOf.get(String(r.system_id)) === records.length - i).every(Boolean)).toBe(true)
    await forgetAll(3)
  })

  /** Each record at the ordinal its position gives (the newest is the total), and nothing else. */
  const expectPlaced = async (i: number, records: Array<Record<string, unknown>>, key: (r: Record<string, unknown>) => string) => {
    const stored = await db.query<{ k: string; ordinal: number }>(
      `SELECT COALESCE(system_id, '') || '|' || COALESCE(body, (SELECT body FROM index_bodies b WHERE b.id = body_id), '') AS k, ordinal
         FROM index_messages WHERE number = $1`,
      [num(i).number],
    )
    expect(stored.rows.length).toBe(records.length)
    const ordinalOf = new Map(stored.rows.map((r) => [r.k, r.ordinal]))
    expect(records.filter((r, j) => ordinalOf.get(key(r)) !== records.length - j)).toEqual([])
    const [st] = await numberStatuses(db, num(i).number)
    expect(st).toMatchObject({ indexed: records.length, state: 'idle', error: null, fullyIndexed: true })
  }

  it('old messages purged upstream while new ones arrive: the catch-up finds it holds more than the total, walks again, and ends exact', async () => {
    await forgetAll(4)
    const { records, forwarder } = await served(fw, num(4).number, num(4).tid)
    await syncNow(4, forwarder)
    const key = (r: Record<string, unknown>) => `${String(r.system_id ?? '')}|${String(r.body ?? '')}`
    for (let round = 0; round < 3; round++) {
      // The three oldest purged (the list is newest first), ten new on top.
      records.splice(records.length - 3, 3)
      const fresh = Array.from({ length: 10 }, (_, k) => ({
        ...records[0]!,
        system_id: `29999999${round}${String(k).padStart(3, '0')}`,
        message_id: `new-${round}-${k}`,
        body: `new ${round}.${k}`,
      }))
      records.unshift(...fresh.reverse())
      await syncNow(4, forwarder)
      await expectPlaced(4, records, key)
    }
    await forgetAll(4)
  })

  it('old messages purged on a busy number (one arriving before every answer): walked again and exact, not "then back" until it gave up', async () => {
    await forgetAll(4)
    const { records, forwarder, before } = await served(fw, num(4).number, num(4).tid)
    await syncNow(4, forwarder)
    let k = 0
    before.push(() => {
      records.unshift({ ...records[0]!, system_id: `2998${String(k).padStart(8, '0')}`, message_id: `busy-${k}`, body: `busy ${k}` })
      k += 1
    })
    records.splice(records.length - 3, 3)
    const lines: string[] = []
    try {
      await syncNow(4, forwarder, { log: (l) => lines.push(l) })
    } finally {
      before.length = 0
    }
    expect(k).toBeGreaterThan(3)
    expect(lines.filter((l) => l.includes('then back')).length).toBeLessThanOrEqual(1)
    expect(lines.some((l) => /fewer messages than the index holds: some were removed upstream; walking the history again/.test(l))).toBe(
      true,
    )
    await expectPlaced(4, records, (r) => `${String(r.system_id ?? '')}|${String(r.body ?? '')}`)
    await forgetAll(4)
  })

  it('an envelope naming a newest message the history no longer serves does not pass for a history sent oldest first', async () => {
    await forgetAll(5)
    const { records, forwarder } = await served(fw, num(5).number, num(5).tid)
    records.shift() // deleted upstream; the envelope still names it
    await syncNow(5, forwarder)
    await expectPlaced(5, records, (r) => `${String(r.system_id ?? '')}|${String(r.body ?? '')}`)
    await forgetAll(5)
  })

  it('records with neither a system id nor a message id: a catch-up stores the new ones by their place (it stored none)', async () => {
    await forgetAll(3)
    const { records, forwarder } = await served(fw, num(3).number, num(3).tid)
    // Each body unique, so the test can tell the records apart (the index cannot).
    records.forEach((r, j) => {
      r.system_id = null
      r.message_id = null
      r.body = `record ${records.length - j}`
    })
    await syncNow(3, forwarder)
    const key = (r: Record<string, unknown>) => `|${String(r.body ?? '')}`
    await expectPlaced(3, records, key)
    records.unshift(...Array.from({ length: 5 }, (_, k) => ({ ...records[0]!, body: `no ids ${5 - k}` })))
    await syncNow(3, forwarder)
    await expectPlaced(3, records, key)
    await forgetAll(3)
  })

  it('a new record with no ids is stored when stored ones near the top have ids and one lacks them (a mix dropped it)', async () => {
    await forgetAll(3)
    const { records, forwarder } = await served(fw, num(3).number, num(3).tid)
    records.forEach((r, j) => (r.body = `record ${records.length - j}`))
    records[0]!.system_id = null
    records[0]!.message_id = null
    await syncNow(3, forwarder)
    const key = (r: Record<string, unknown>) => `${String(r.system_id ?? '')}|${String(r.body ?? '')}`
    await expectPlaced(3, records, key)
    // Two new ones, one with ids and one without (with every new one id-less, all were kept).
    records.unshift({ ...records[1]!, system_id: '299700000001', message_id: 'new-with-ids', body: 'new, ids' })
    records.unshift({ ...records[1]!, system_id: null, message_id: null, body: 'new, no ids' })
    await syncNow(3, forwarder)
    await expectPlaced(3, records, key)
    await forgetAll(3)
  })

  it('an empty answer for a page inside the history is asked again, and the walk ends exact (it stopped the sync at once)', async () => {
    await forgetAll(4)
    const { forwarder } = await served(fw, num(4).number, num(4).tid)
    // The answers for positions from 100 come back with no records, twice, then whole.
    let empties = 2
    const emptied = (fields: Array<[string, string]>, body: Buffer): Buffer | null => {
      const start = fields.find(([k]) => k === 'history_start')?.[1]
      const mine = fields.some(([k, v]) => k === 'number' && v === num(4).number)
      if (!mine || start !== '100' || empties === 0) return null
      empties -= 1
      return Buffer.from(JSON.stringify({ ...(JSON.parse(body.toString('utf8')) as Record<string, unknown>), messages: null }))
    }
    const emptying: Forwarder = {
      ...forwarder,
      forward: async (...args) => {
        const got = await forwarder.forward(...args)
        const body = emptied(args[1], got.body)
        return body ? { body, json: JSON.parse(body.toString('utf8')) as unknown } : got
      },
      forwardBytes: async (...args) => {
        const got = await forwarder.forwardBytes(...args)
        const body = emptied(args[1], got.body)
        return body ? { ...got, body } : got
      },
    }
    await syncNow(4, emptying)
    expect(empties).toBe(0)
    await expectExact(4, upstreamTotal(4))
    await forgetAll(4)
  })

  it('a history sent oldest first is stopped at its first page, before anything is stored (it stored two batches reversed)', async () => {
    await forgetAll(5)
    const { records, forwarder } = await served(fw, num(5).number, num(5).tid)
    records.reverse()
    // Batches of 500: the old check, at the history's last page, came after nine of them were stored.
    await syncNow(5, forwarder, { storeRows: 500 })
    const [st] = await numberStatuses(db, num(5).number)
    expect(st).toMatchObject({ state: 'error', indexed: 0, fullyIndexed: false })
    expect(st!.error).toContain('oldest first')
    const left = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_messages WHERE number = $1', [num(5).number])
    expect(left.rows[0]!.n).toBe(0)
    await forgetAll(5)
  })

  it('a re-walk that fails part-way keeps every stored message (it wiped them first), and the next sync ends exact; marks handled stay', async () => {
    await forgetAll(3)
    const { records, forwarder } = await served(fw, num(3).number, num(3).tid)
    // Pages of 10: the re-walk of 39 takes several, and the later ones fail while `failing` is on.
    let failing = false
    const deep = (f: Array<[string, string]>) => Number(f.find(([k]) => k === 'history_start')?.[1]) >= 19
    const flaky: Forwarder = {
      forward: async (...args) => {
        if (failing && args[0] === 'smshistory' && deep(args[1])) throw new Error('connection reset')
        return forwarder.forward(...args)
      },
      forwardBytes: async (...args) => {
        if (failing && args[0] === 'smshistory' && deep(args[1])) throw new Error('connection reset')
        return forwarder.forwardBytes(...args)
      },
      judge: (...args) => forwarder.judge(...args),
      close: () => forwarder.close(),
    }
    await syncNow(3, flaky, { pageCap: 10 })
    await expectExact(3, records.length)
    const party = (await db.query<{ p: string }>('SELECT party_digits AS p FROM index_messages WHERE number = $1 LIMIT 1', [num(3).number]))
      .rows[0]!.p
    await db.query(`INSERT INTO desk_handled (number, party, handled_at, handled_by) VALUES ($1, $2, now(), 'agent')`, [
      num(3).number,
      party,
    ])
    const storedIds = async () =>
      (
        await db.query<{ s: string }>('SELECT system_id AS s FROM index_messages WHERE number = $1 ORDER BY ordinal', [num(3).number])
      ).rows.map((r) => r.s)
    const kept = await storedIds()
    // A message delivered late (below the newest stored one): the catch-up walks the history again.
    records.splice(10, 0, { ...records[10]!, system_id: '299999999001', message_id: 'late-1', body: 'delivered late' })
    failing = true
    await syncNow(3, flaky, { pageCap: 10 })
    const st = await db.query<{ state: string }>('SELECT state FROM index_numbers WHERE number = $1', [num(3).number])
    expect(st.rows[0]!.state).toBe('error')
    // Nothing stored was lost: the walk's batches were held back, not written over a wiped number.
    expect(await storedIds()).toEqual(kept)
    const f = await freshness(db, [num(3).number])
    expect(f.incomplete).toEqual([num(3).number])
    failing = false
    await syncNow(3, flaky, { pageCap: 10 })
    const stored = await db.query<{ system_id: string; ordinal: number }>(
      'SELECT system_id, ordinal FROM index_messages WHERE number = $1',
      [num(3).number],
    )
    const ordinalOf = new Map(stored.rows.map((r) => [r.system_id, r.ordinal]))
    expect(stored.rows).toHaveLength(records.length)
    expect(records.every((r, i) => ordinalOf.get(String(r.system_id)) === records.length - i)).toBe(true)
    const after = await db.query('SELECT indexed, state, error FROM index_numbers WHERE number = $1', [num(3).number])
    expect(after.rows[0]).toEqual({ indexed: records.length, state: 'idle', error: null })
    // A person's "mark handled" is not the upstream's to take back.
    const handled = await db.query('SELECT handled_by FROM desk_handled WHERE number = $1 AND party = $2', [num(3).number, party])
    expect(handled.rows).toEqual([{ handled_by: 'agent' }])
    await db.query('DELETE FROM desk_handled WHERE number = $1', [num(3).number])
    await forgetAll(3)
  }, 60_000)

  it('new messages sharing one timestamp, in another order at each request, are never stored twice while the number reads complete', async () => {
    await forgetAll(3)
    const { records, forwarder, before } = await served(fw, num(3).number, num(3).tid)
    await syncNow(3, forwarder)
    const same = (k: number) => ({ ...records[0]!, system_id: `29999999910${k}`, message_id: `same-${k}`, GMTdate: '2026-11-21 09:00:00' })
    records.unshift(...[1, 2, 3, 4, 5].map(same))
    // ORDER BY date LIMIT without a tie-break: the five come back in another order each time.
    let turn = 0
    before.push(() => {
      const five = records.splice(0, 5)
      turn += 1
      records.unshift(...five.map((_, i) => five[(i + turn) % 5]!))
    })
    for (let k = 0; k < 4; k++) await syncNow(3, forwarder, { pageCap: 10 })
    const st = await db.query<{ indexed: number; state: string }>('SELECT indexed, state FROM index_numbers WHERE number = $1', [
      num(3).number,
    ])
    const dup = await db.query<{ n: number; d: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT system_id)::int AS d FROM index_messages WHERE number = $1',
      [num(3).number],
    )
    expect(dup.rows[0]!.n).toBe(dup.rows[0]!.d)
    expect(st.rows[0]).toEqual({ indexed: records.length, state: 'idle' })
    await forgetAll(3)
  }, 60_000)

  it('an upstream that serves at most 25 records an answer is paged by 25: a catch-up of 300 takes tens of requests, not thousands', async () => {
    await forgetAll(4)
    const limited = hooked(
      bent(fw, (page) => {
        page.messages = (page.messages as unknown[]).slice(0, 25)
      }),
      () => {},
    )
    const logs: string[] = []
    await syncNow(4, limited, { pageCap: 100, log: (l) => logs.push(l) })
    await expectExact(4, upstreamTotal(4))
    await control(simUrl, '/__sim/messages', { number: num(4).number, add: 300 })
    const before = limited.count()
    await syncNow(4, limited, { pageCap: 100 })
    await expectExact(4, upstreamTotal(4))
    expect(limited.count() - before).toBeLessThan(60)
    expect(logs).toContain('index: the messaging service served 25 records where 100 were asked: paging by 25 from now on')
    await forgetAll(4)
  }, 60_000)

  it('"sent oldest first" is not said of a two-message history whose envelope lags a message, nor of a page whose last record reuses the newest id', async () => {
    await forgetAll(3)
    const two = await served(fw, num(3).number, num(3).tid)
    two.records.splice(2)
    two.envelope.most_recent_msg_id = two.records[1]!.system_id
    two.envelope.most_recent_date = two.records[1]!.GMTdate
    await syncNow(3, two.forwarder)
    expect((await db.query('SELECT indexed, state, error FROM index_numbers WHERE number = $1', [num(3).number])).rows[0]).toEqual({
      indexed: 2,
      state: 'idle',
      error: null,
    })
    await forgetAll(3)
    const reused = await served(fw, num(3).number, num(3).tid)
    // An older record (position 28, the first page's last at a cap of 28) carries the newest one's system id.
    reused.records[27] = { ...reused.records[27]!, system_id: reused.records[0]!.system_id }
    await syncNow(3, reused.forwarder, { pageCap: 28 })
    expect((await db.query('SELECT indexed, state, error FROM index_numbers WHERE number = $1', [num(3).number])).rows[0]).toEqual({
      indexed: reused.records.length,
      state: 'idle',
      error: null,
    })
    await forgetAll(3)
  })

  it('a listing of no numbers marks none of them removed (a bad answer, not an emptied account)', async () => {
    await syncNow(2)
    // As an earlier listing recorded it.
    await db.query('UPDATE index_numbers SET listed = true, removed_at = NULL WHERE number = $1', [num(2).number])
    await control(simUrl, '/__sim/quirks', { removed: numbers.map((n) => n.number) })
    const log: string[] = []
    try {
      const s = syncer(fw, { log: (l) => log.push(l) })
      expect(await s.syncAll()).toBe(0)
      await s.idle()
      await s.close()
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
    const removed = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_numbers WHERE removed_at IS NOT NULL')
    expect(removed.rows[0]!.n).toBe(0)
    expect(log).toContain('index: the account listing named no numbers; no number is marked as removed from it')
  })

  it('a total of "" (or 0 beside records) is no total: the stored history is kept, never wiped to "complete, 0"', async () => {
    await forgetAll(3)
    await syncNow(3)
    await expectExact(3, upstreamTotal(3))
    for (const total of ['', ' ', 0]) {
      await syncNow(
        3,
        bent(fw, (page) => {
          page.total_message_count = total
        }),
      )
      const st = await db.query<{ indexed: number; state: string; error: string | null }>(
        'SELECT indexed, state, error FROM index_numbers WHERE number = $1',
        [num(3).number],
      )
      expect(st.rows[0], JSON.stringify(total)).toMatchObject({ indexed: upstreamTotal(3), state: 'error' })
      expect(st.rows[0]!.error, JSON.stringify(total)).toMatch(/total/)
      const held = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_messages WHERE number = $1', [num(3).number])
      expect(held.rows[0]!.n).toBe(upstreamTotal(3))
    }
    await syncNow(3)
    await expectExact(3, upstreamTotal(3))
  })

  it('a number whose catch-up stopped on an error is not reported complete (its newest messages are not known to be here), until a sync works', async () => {
    await forgetAll(3)
    await syncNow(3)
    await expectExact(3, upstreamTotal(3))
    sim.state.added.set(num(3).number, 5)
    await control(simUrl, '/__sim/faults', { kind: 'status', status: 500, op: 'smshistory', number: num(3).number })
    try {
      await syncNow(3)
    } finally {
      await fetch(`${simUrl}/__sim/faults`, { method: 'DELETE' })
    }
    expect((await numberStatuses(db, num(3).number))[0]).toMatchObject({ state: 'error', fullyIndexed: false })
    expect((await freshness(db, [num(3).number])).incomplete).toEqual([num(3).number])
    await syncNow(3)
    await expectExact(3, upstreamTotal(3))
  })

  it("a refusal's removed mark goes with the sync that works, even when the listing cannot be read then", async () => {
    await forgetAll(3)
    await syncNow(3) // by name: no listing has named it
    await db.query(`UPDATE index_numbers SET removed_at = now(), removed_by = 'refusal' WHERE number = $1`, [num(3).number])
    await control(simUrl, '/__sim/faults', { kind: 'status', status: 503, op: 'allownednumbers' })
    const fresh = createForwarder({ baseUrl: simUrl, ...DEMO_CREDENTIALS }, 10_000)
    try {
      await syncNow(3, fresh)
    } finally {
      await fetch(`${simUrl}/__sim/faults`, { method: 'DELETE' })
      await fresh.close()
    }
    expect((await numberStatuses(db, num(3).number))[0]).toMatchObject({ state: 'idle', removed: false })
    await expectExact(3, upstreamTotal(3))
    await forgetAll(3)
  })

  it('a 429 is busy, not a refusal: waited out (Retry-After) and retried, never a pause', async () => {
    await forgetAll(3)
    await control(simUrl, '/__sim/faults', {
      kind: 'status',
      status: 429,
      retryAfter: 1,
      times: 2,
      op: 'smshistory',
      number: num(3).number,
    })
    const logs: string[] = []
    const started = Date.now()
    try {
      await syncNow(3, fw, { maxRetries: 3, log: (l) => logs.push(l) })
    } finally {
      await fetch(`${simUrl}/__sim/faults`, { method: 'DELETE' })
    }
    await expectExact(3, upstreamTotal(3))
    // Each 429 said to wait a second, and the sync did.
    expect(logs.filter((l) => /HTTP 429\).* retrying in 1000 ms/.test(l))).toHaveLength(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000)
  }, 60_000)

  it('a refusal whose words say it passes ("Internal error, please try again later") is retried, never a pause; another refusal still pauses', async () => {
    /** A fresh sync of number 3 while the history refuses it `times` times in these words. */
    const refusedSync = async (message: string, times: number) => {
      await forgetAll(3)
      await control(simUrl, '/__sim/faults', { kind: 'reject', message, times, op: 'smshistory', number: num(3).number })
      try {
        await syncNow(3, fw, { maxRetries: 3 })
      } finally {
        await fetch(`${simUrl}/__sim/faults`, { method: 'DELETE' })
      }
    }
    await refusedSync('Internal error, please try again later', 2)
    await expectExact(3, upstreamTotal(3))
    await refusedSync('Number suspended', 1)
    const st = await db.query<{ state: string; error: string }>('SELECT state, error FROM index_numbers WHERE number = $1', [num(3).number])
    expect(st.rows[0]!.state).toBe('paused')
    expect(st.rows[0]!.error).toContain('Number suspended')
    await forgetAll(3)
  }, 60_000)

  it('a number whose sync gave up on an outage is tried again by the server on its own, with a back-off', async () => {
    await forgetAll(3)
    // More 503s than the retries allow: the sync stops with an error.
    await control(simUrl, '/__sim/faults', { kind: 'status', status: 503, times: 2, op: 'smshistory', number: num(3).number })
    const s = syncer(fw, { maxRetries: 1, leaseMs: 150, errorRetryMs: 1_500 })
    try {
      await s.request({ number: num(3).number, tid: num(3).tid })
      await expect
        .poll(
          async () =>
            (await db.query<{ state: string }>('SELECT state FROM index_numbers WHERE number = $1', [num(3).number])).rows[0]?.state,
          {
            timeout: 10_000,
          },
        )
        .toBe('error')
      const failed = await db.query<{ failures: number }>('SELECT failures FROM index_numbers WHERE number = $1', [num(3).number])
      expect(failed.rows[0]!.failures).toBe(1)
      // The outage is over; nobody asks: the sweep picks the number up once its back-off has passed.
      // Generous: the sweep's sync walks the whole number again, which took over 10 s in a CI run
      // with lint and the other test files on the same two cores.
      await expect
        .poll(
          async () =>
            (await db.query<{ state: string }>('SELECT state FROM index_numbers WHERE number = $1', [num(3).number])).rows[0]?.state,
          {
            timeout: 60_000,
          },
        )
        .toBe('idle')
      await s.idle()
    } finally {
      await s.close()
      await fetch(`${simUrl}/__sim/faults`, { method: 'DELETE' })
    }
    await expectExact(3, upstreamTotal(3))
    const after = await db.query<{ failures: number; failed_at: Date | null }>(
      'SELECT failures, failed_at FROM index_numbers WHERE number = $1',
      [num(3).number],
    )
    expect(after.rows[0]).toEqual({ failures: 0, failed_at: null })
  }, 120_000)

  it('a complete walk whose indexes were never built (killed after its last commit) gets them at its next sync', async () => {
    await forgetAll(3)
    await syncNow(3)
    // The state a bulk load killed after its last batch's commit leaves: complete, indexes dropped.
    expect(await dropIndexes(db, true)).toBe(true)
    expect(await indexNames()).not.toContain('index_messages_thread')
    await syncNow(3)
    expect(await indexNames()).toEqual(expect.arrayContaining(SECONDARY))
    // Built again as the migrations left them: the same definitions, options included (migration 710).
    expect(await indexDefs()).toEqual(migrated)
    await expectExact(3, upstreamTotal(3))
  }, 60_000)

  it('arrivals that keep pushing each page up to its overlap end in a bounded "grows faster" error, not a loop', async () => {
    await forgetAll(3)
    // Pages of 10, 9 arrivals before each answer: every page holds the overlap and nothing older.
    await control(simUrl, '/__sim/quirks', { arrivals: { number: num(3).number, perRequest: 9 } })
    const logs: string[] = []
    try {
      await syncNow(3, fw, { pageCap: 10, log: (l) => logs.push(l) })
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
    const st = await db.query<{ state: string; error: string | null }>('SELECT state, error FROM index_numbers WHERE number = $1', [
      num(3).number,
    ])
    expect(st.rows[0]).toMatchObject({ state: 'error', error: expect.stringMatching(/grows faster/) })
    // Never taken for a history that ends short of its total.
    expect(logs.filter((l) => l.includes('serves none past position'))).toEqual([])
  }, 60_000)

  it('a page cap of 1 still walks (the sync pages by at least 2: consecutive pages share a record)', async () => {
    await forgetAll(3)
    await syncNow(3, fw, { pageCap: 1 })
    await expectExact(3, upstreamTotal(3))
  }, 60_000)

  it("prepares a walk's next batch while the one before is stored, and ends exact", async () => {
    await forgetAll(5)
    const s = syncer(fw, { storeRows: 200, pageCap: 100, concurrency: 1 })
    try {
      await s.request({ number: num(5).number, tid: num(5).tid })
      await s.idle()
      // 25 batches: the pages are asked for ahead, so the next batch is ready while a store runs.
      expect(s.stats.overlappedBatches).toBeGreaterThan(0)
    } finally {
      await s.close()
    }
    await expectExact(5, upstreamTotal(5))
  }, 60_000)

  it('orders by position and identity: a skewed clock does not stop the sync', async () => {
    await forgetAll(3)
    await control(simUrl, '/__sim/quirks', { skewedClock: true })
    try {
      await syncNow(3, fw, { pageCap: 10 })
      await expectExact(3, 36)
      const dates = await db.query<{ inverted: number }>(
        `SELECT count(*)::int AS inverted FROM index_messages a JOIN index_messages b ON b.number = a.number AND b.ordinal = a.ordinal - 3
         WHERE a.number = $1 AND a.date < b.date`,
        [num(3).number],
      )
      expect(dates.rows[0]!.inverted).toBeGreaterThan(0)
      await control(simUrl, '/__sim/messages', { number: num(3).number, add: 12 })
      await syncNow(3, fw, { pageCap: 10 })
      await expectExact(3, upstreamTotal(3))
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
  })

  it('a number asked for by name is synced next, before the numbers "index all" queued', async () => {
    // The million-message number and the hostile one leave the account (the run stays short).
    const gone = [num(6).number, num(7).number]
    await control(simUrl, '/__sim/quirks', { removed: gone })
    try {
      // The order in which the numbers' histories are first asked for.
      const order: string[] = []
      const note = (fields: Array<[string, string]>) => {
        const n = fields.find(([k]) => k === 'number')?.[1]
        if (n !== undefined && !order.includes(n)) order.push(n)
      }
      const seen: Forwarder = {
        forward: async (...args) => {
          if (args[0] === 'smshistory') note(args[1])
          return fw.forward(...args)
        },
        forwardBytes: async (...args) => {
          if (args[0] === 'smshistory') note(args[1])
          return fw.forwardBytes(...args)
        },
        judge: (...args) => fw.judge(...args),
        close: () => fw.close(),
      }
      const s = syncer(seen, { concurrency: 1 })
      const listed = numbers.filter((n) => !gone.includes(n.number))
      expect(await s.syncAll()).toBe(listed.length)
      // The last two listed are asked for by name while the first listed is syncing.
      const [second, last] = listed.slice(-2).map((n) => n.number)
      await s.request({ number: second! })
      await s.request({ number: last! })
      // The re-sync queues in the background: behind what is queued, so it moves nothing.
      await s.enqueue(listed.map((n) => n.number))
      await s.idle()
      await s.close()
      // The first listed number was running; then the last one asked for, then the one before it.
      expect(order.slice(0, 3)).toEqual([listed[0]!.number, last, second])
      expect(order.slice(3)).toEqual(listed.slice(1, -2).map((n) => n.number))
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
  }, 60_000)

  it('a person asking for a number while its sync runs gets a sync after it: a refusal lifted meanwhile does not leave it paused', async () => {
    await forgetAll(3)
    // The running sync's first history request waits at a gate, and is then refused once.
    let reached!: () => void
    const atGate = new Promise<void>((r) => (reached = r))
    let open!: () => void
    const gate = new Promise<void>((r) => (open = r))
    let held = false
    const hold = async () => {
      if (held) return
      held = true
      reached()
      await gate
    }
    const gated: Forwarder = {
      forward: async (...args) => {
        if (args[0] === 'smshistory') await hold()
        return fw.forward(...args)
      },
      forwardBytes: async (...args) => {
        if (args[0] === 'smshistory') await hold()
        return fw.forwardBytes(...args)
      },
      judge: (...args) => fw.judge(...args),
      close: () => fw.close(),
    }
    await control(simUrl, '/__sim/faults', {
      kind: 'reject',
      message: 'Number suspended',
      times: 1,
      op: 'smshistory',
      number: num(3).number,
    })
    const s = syncer(gated)
    try {
      await s.request({ number: num(3).number, tid: num(3).tid })
      await atGate
      // The person presses Sync now while the first sync waits.
      await s.request({ number: num(3).number })
      open()
      await s.idle()
    } finally {
      await s.close()
      await fetch(`${simUrl}/__sim/faults`, { method: 'DELETE' })
    }
    await expectExact(3, upstreamTotal(3))
  }, 60_000)

  it('counts a number with no messages as indexed', async () => {
    await syncNow(1)
    await expectExact(1, 0)
  })

  it.each([2, 5, 9, 17])('a walk stopped at request %i resumes and ends with every secondary index', async (at) => {
    // An empty index, so that the walk loads in bulk.
    await forget(db, null, deskIndexHooks)
    let first: ReturnType<typeof createSyncer> | null = null
    const killer = hooked(fw, (n) => {
      if (n === at) void first?.close()
    })
    // A bulk load (indexes dropped) from 1,000 messages, so this small history takes that path.
    first = syncer(killer, { bulkMin: 1000, concurrency: 1 })
    await first.request({ number: num(0).number, tid: num(0).tid })
    await first.idle()
    const mid = await db.query<{ state: string; full_done: boolean }>('SELECT state, full_done FROM index_numbers WHERE number = $1', [
      num(0).number,
    ])
    expect(mid.rows[0]).toEqual({ state: 'queued', full_done: false })
    expect(await indexNames()).not.toContain('index_messages_thread')
    expect(await indexNames()).not.toContain('index_messages_desk_quiet')
    await syncNow(0, fw, { bulkMin: 1000 })
    await expectExact(0, 2345)
    expect(await indexNames()).toEqual(expect.arrayContaining(SECONDARY))
  })

  it('a bulk load stopped by a person (forget, stop) puts every secondary index back at once', async () => {
    await forget(db, null, deskIndexHooks)
    let s: ReturnType<typeof createSyncer> | null = null
    const stops: Array<Promise<void>> = []
    const stopper = hooked(fw, (n) => {
      if (n === 5) stops.push(s!.stop(num(0).number))
    })
    s = syncer(stopper, { bulkMin: 1000, concurrency: 1 })
    await s.request({ number: num(0).number, tid: num(0).tid })
    await s.idle()
    expect(stops).toHaveLength(1)
    await Promise.all(stops)
    // The walk stopped short (nobody resumes it: the person stopped it), and nothing waits for a restart.
    const row = await db.query<{ full_done: boolean }>('SELECT full_done FROM index_numbers WHERE number = $1', [num(0).number])
    expect(row.rows[0]!.full_done).toBe(false)
    expect(await indexNames()).toEqual(expect.arrayContaining(SECONDARY))
    await s.close()
  })

  it("keeps a bulk load's indexes dropped when another number's walk ends as the load starts", async () => {
    // The interleaving that rebuilt them mid-load: the small walk's end finds no bulk load yet
    // and goes to build the missing indexes; the big walk drops them before that look runs.
    await forget(db, null, deskIndexHooks)
    const gate = (ms: number) => {
      let open = () => {}
      const p = new Promise<void>((r) => (open = r))
      const timer = setTimeout(open, ms)
      return { p, open: () => (clearTimeout(timer), open()) }
    }
    const looked = gate(5_000)
    const dropped = gate(5_000)
    let firstHeld = true
    let firstLook = true
    // The order of the statements: the last COPY of a walk's rows, the first index build.
    let seq = 0
    let lastCopy = 0
    let firstBuild = 0
    const onSql = async (sql: string) => {
      if (sql.startsWith('COPY index_messages')) lastCopy = ++seq
      if (sql.startsWith('CREATE INDEX') && firstBuild === 0) firstBuild = ++seq
      if (firstHeld && sql.includes('sum(indexed)')) {
        firstHeld = false
        await looked.p
      } else if (firstLook && sql.includes('FROM pg_indexes')) {
        firstLook = false
        looked.open()
        await dropped.p
      } else if (sql.startsWith('DROP INDEX')) setTimeout(dropped.open, 200)
    }
    // The same handle (its COPY too), its statements watched.
    const watch = (q: Queryable & { copyFrom?: (sql: string, data: string) => Promise<void> }): Queryable =>
      Object.assign(Object.create(q) as Queryable, {
        query: async (sql: string, params?: readonly unknown[]) => {
          await onSql(sql)
          return q.query(sql, params)
        },
        ...(q.copyFrom
          ? {
              copyFrom: async (sql: string, data: string) => {
                await onSql(sql)
                return q.copyFrom!(sql, data)
              },
            }
          : {}),
      })
    const watched: Db = {
      engine: db.engine,
      query: (sql, params) => watch(db).query(sql, params),
      transaction: (fn) => db.transaction((tx) => fn(watch(tx))),
      withConnection: (fn) => db.withConnection((c) => fn(watch(c))),
      close: () => db.close(),
    }
    const big = num(5)
    const s = createSyncer({ hooks: deskIndexHooks, db: watched, forwarder: fw, pageCap: 20, concurrency: 2, rate: 0, bulkMin: 1000 })
    await s.request({ number: big.number, tid: big.tid })
    await s.request({ number: num(3).number, tid: num(3).tid })
    await s.idle()
    await s.close()
    // Both gates were passed in the order that rebuilt the indexes mid-load, not by their time-outs.
    expect(firstHeld || firstLook).toBe(false)
    // No index was built before the bulk load's last rows went in.
    expect(lastCopy).toBeGreaterThan(0)
    expect(firstBuild).toBeGreaterThan(lastCopy)
    await expectExact(5, upstreamTotal(5))
    await expectExact(3, upstreamTotal(3))
    expect(await indexNames()).toEqual(expect.arrayContaining(SECONDARY))
  })

  it('never reports a number complete when its sync stopped short', async () => {
    await forgetAll(3)
    await syncNow(3)
    await expectExact(3, 36)
    await control(simUrl, '/__sim/messages', { number: num(3).number, add: 20 })
    // After the probe, every request fails: the catch-up stops with an error.
    const failing = hooked(fw, async (n) => {
      if (n === 2) await control(simUrl, '/__sim/faults', { kind: 'status', status: 500, op: 'smshistory', number: num(3).number })
    })
    try {
      await syncNow(3, failing)
    } finally {
      await fetch(`${simUrl}/__sim/faults`, { method: 'DELETE' })
    }
    const st = await db.query<{ state: string }>('SELECT state FROM index_numbers WHERE number = $1', [num(3).number])
    expect(st.rows[0]!.state).toBe('error')
    expect((await freshness(db, [num(3).number])).incomplete).toEqual([num(3).number])
    await syncNow(3)
    await expectExact(3, upstreamTotal(3))
  })

  it.each(Object.keys(REMOVAL_WORDINGS) as RemovalWording[])(
    'a number removed mid-sync (refused as "%s") pauses, is marked removed and is never reported fresh',
    async (wording) => {
      await forgetAll(4)
      const removing = hooked(fw, async (n) => {
        if (n === 3) await control(simUrl, '/__sim/quirks', { removed: [num(4).number], wording })
      })
      try {
        await syncNow(4, removing, { pageCap: 50 })
      } finally {
        await control(simUrl, '/__sim/quirks', {}, 'DELETE')
      }
      const st = await db.query<{ state: string; error: string; removed: boolean }>(
        'SELECT state, error, removed_at IS NOT NULL AS removed FROM index_numbers WHERE number = $1',
        [num(4).number],
      )
      expect(st.rows[0]!.state).toBe('paused')
      // Whatever the wording, the account's own listing no longer holds the number: it left the
      // account (forward.ts decides "no such number" from the listing), and the service's words are kept.
      expect(st.rows[0]!.error).toMatch(/no such number/)
      if (wording !== 'unknown') expect(st.rows[0]!.error).toContain(REMOVAL_WORDINGS[wording])
      expect(st.rows[0]!.removed).toBe(true)
      expect((await freshness(db, [num(4).number])).incomplete).toEqual([num(4).number])
    },
  )

  it('indexes every listed number: one listed twice with two tids, an empty one; retrying succeeds; a number that left is marked', async () => {
    // The million-message number and the hostile one leave the account (the listing stays small).
    const gone = [num(6).number, num(7).number]
    await control(simUrl, '/__sim/quirks', { listedTwice: [num(3).number], removed: gone })
    try {
      for (let round = 0; round < 2; round++) {
        const s = syncer(fw, { concurrency: 2 })
        expect(await s.syncAll()).toBe(numbers.length - 2)
        await s.idle()
        await s.close()
      }
      const st = await db.query<{ number: string; tid: string; other_tids: string[]; state: string }>(
        'SELECT number, tid, other_tids, state FROM index_numbers WHERE number = $1',
        [num(3).number],
      )
      expect(st.rows[0]).toMatchObject({ tid: num(3).tid, other_tids: [extraTid(num(3).number)], state: 'idle' })
      const listed = numbers.filter((n) => !gone.includes(n.number)).map((n) => n.number)
      const f = await freshness(db, listed)
      expect(f.incomplete).toEqual([])
      // The numbers that left were listed before (as an earlier listing would have recorded them).
      await db.query(
        `INSERT INTO index_numbers (number, tid, listed) SELECT n, 'T', true FROM unnest($1::text[]) AS n ON CONFLICT DO NOTHING`,
        [gone],
      )
      const s = syncer(fw)
      await s.syncAll()
      await s.idle()
      await s.close()
      const marked = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM index_numbers WHERE number = ANY($1::text[]) AND removed_at IS NOT NULL',
        [gone],
      )
      expect(marked.rows[0]!.n).toBe(2)
      // The status shows both findings.
      const statuses = await numberStatuses(db)
      expect(statuses.find((x) => x.number === num(3).number)).toMatchObject({ removed: false, otherTids: [extraTid(num(3).number)] })
      expect(statuses.find((x) => x.number === gone[0])).toMatchObject({ removed: true })
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
  })

  it('a number first synced by name is marked removed when a listing lacks it; one refused on a stale listing the account contradicts is paused, not removed; a sync that works clears the mark', async () => {
    await forgetAll(3)
    await syncNow(3) // by name: no listing has named it
    await control(simUrl, '/__sim/quirks', { removed: [num(3).number, num(6).number, num(7).number] })
    try {
      const s = syncer(fw)
      await s.syncAll()
      await s.idle()
      await s.close()
      expect((await numberStatuses(db, num(3).number))[0]).toMatchObject({ removed: true })
      expect((await freshness(db, [num(3).number])).incomplete).toEqual([num(3).number])
      // Refused while gone: the forwarder now holds a listing without it (trusted for 30 s).
      await syncNow(3)
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
    // Back in the account, and refused once in other words: the stale listing says "no such
    // number", the listing read then has it under this tid. Paused with the service's words.
    await forgetAll(3)
    await control(simUrl, '/__sim/faults', {
      kind: 'reject',
      message: 'Service error 17',
      times: 1,
      op: 'smshistory',
      number: num(3).number,
    })
    try {
      await syncNow(3)
      const [st] = await numberStatuses(db, num(3).number)
      expect(st).toMatchObject({ state: 'paused', removed: false })
      expect(st!.error).toContain('The account lists this number')
      expect(st!.error).toContain('Service error 17')
    } finally {
      await fetch(`${simUrl}/__sim/faults`, { method: 'DELETE' })
    }
    // Marked removed by a refusal, then served: the mark goes with the sync that worked.
    await db.query('UPDATE index_numbers SET removed_at = now() WHERE number = $1', [num(3).number])
    await syncNow(3)
    expect((await numberStatuses(db, num(3).number))[0]).toMatchObject({ state: 'idle', removed: false })
    await expectExact(3, upstreamTotal(3))
    await forgetAll(3)
  })

  it("'Index all' leaves a forgotten number forgotten unless an admin asks (revive), and queues the rest", async () => {
    await forgetAll(3)
    await syncNow(3)
    await forget(db, num(3).number, deskIndexHooks)
    const state = async () =>
      (
        await db.query<{ forgotten: boolean; indexed: number }>(
          'SELECT forgotten_at IS NOT NULL AS forgotten, indexed FROM index_numbers WHERE number = $1',
          [num(3).number],
        )
      ).rows[0]
    expect(await state()).toEqual({ forgotten: true, indexed: 0 })
    await control(simUrl, '/__sim/quirks', { removed: [num(6).number, num(7).number] })
    try {
      for (const revive of [false, true]) {
        const s = syncer(fw)
        await s.syncAll({ revive })
        await s.idle()
        await s.close()
        expect(await state(), `revive ${revive}`).toEqual(
          revive ? { forgotten: false, indexed: upstreamTotal(3) } : { forgotten: true, indexed: 0 },
        )
      }
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
    await forgetAll(3)
  })

  it('a number the upstream serves but its listing lacks stays marked removed through the syncs that work, until a listing names it again', async () => {
    await forgetAll(4)
    await syncNow(4)
    await control(simUrl, '/__sim/quirks', { unlisted: [num(4).number], removed: [num(6).number, num(7).number] })
    try {
      const s = syncer(fw)
      await s.syncAll()
      await s.idle()
      await s.close()
      expect((await numberStatuses(db, num(4).number))[0]).toMatchObject({ removed: true })
      // Its history is still served: the sync works, and the mark stays (it went with each sync,
      // and came back with each listing).
      await syncNow(4)
      expect((await numberStatuses(db, num(4).number))[0]).toMatchObject({ state: 'idle', removed: true })
      expect((await freshness(db, [num(4).number])).incomplete).toEqual([num(4).number])
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
    // Listed again (the large numbers left out, the run stays short): the mark goes.
    await control(simUrl, '/__sim/quirks', { removed: [num(6).number, num(7).number] })
    try {
      const s = syncer(fw)
      await s.syncAll()
      await s.idle()
      await s.close()
    } finally {
      await control(simUrl, '/__sim/quirks', {}, 'DELETE')
    }
    expect((await numberStatuses(db, num(4).number))[0]).toMatchObject({ state: 'idle', removed: false })
    await expectExact(4, upstreamTotal(4))
    await forgetAll(4)
  })

  // A process of its own killed mid-walk (on PostgreSQL another server takes the number over;
  // on PGlite the next process to open the directory does, past the dead pid's lock file).
  // Killed after 1,100 of its 2,345 messages here; early (300) and late (2,000) in the long tier.
  for (const after of [300, 1100, 2000])
    it(
      `a server killed (SIGKILL) after ${after} messages: another takes the number over and ends exact, with every index`,
      { timeout: 90_000, tags: after === 1100 ? [] : ['long'] },
      async () => {
        await forget(db, null, deskIndexHooks)
        await forgetAll(0)
        let target: string
        if (engine === 'postgres') {
          const where = await db.query<{ port: string; name: string }>('SELECT current_setting($1) AS port, current_database() AS name', [
            'port',
          ])
          target = `postgres://postgres@127.0.0.1:${where.rows[0]!.port}/${where.rows[0]!.name}`
        } else {
          // The child needs the directory to itself.
          target = db.location
          await db.close()
        }
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', 'proxy/testing/sync-child.ts', target, simUrl, num(0).number, num(0).tid],
          {
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        )
        let err = ''
        let stored = 0
        child.stderr.on('data', (d: Buffer) => (err += d.toString()))
        child.stdout.on('data', (d: Buffer) => {
          for (const line of d.toString().split('\n')) if (/^\d+$/.test(line)) stored = Number(line)
        })
        try {
          // PGlite's child opens the directory first (seconds on a loaded machine).
          const deadline = Date.now() + 45_000
          for (;;) {
            if (engine === 'postgres') {
              const r = await db.query<{ indexed: number }>('SELECT indexed FROM index_numbers WHERE number = $1', [num(0).number])
              stored = r.rows[0]?.indexed ?? 0
            }
            if (stored >= after) break
            if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the child never reached ${after} messages: ${err}`)
            await new Promise((ok) => setTimeout(ok, 5))
          }
        } finally {
          const exited = child.exitCode !== null || child.signalCode !== null ? null : new Promise((ok) => child.once('exit', ok))
          child.kill('SIGKILL')
          await exited
          // The next tests need the directory back, whatever became of the child.
          if (engine === 'pglite') {
            // The killed process's lock file is left behind, naming a dead pid: stale, taken over.
            expect(readLockHolder(target)).toEqual({ pid: child.pid })
            db = await openDb({ dataDir: target })
            reopened.push(db)
          }
        }
        const mid = await db.query<{ state: string; full_done: boolean; held: boolean; indexed: number }>(
          'SELECT state, full_done, locked_by IS NOT NULL AS held, indexed FROM index_numbers WHERE number = $1',
          [num(0).number],
        )
        expect(mid.rows[0]).toMatchObject({ state: 'syncing', full_done: false, held: true })
        expect(mid.rows[0]!.indexed).toBeGreaterThan(0)
        expect(mid.rows[0]!.indexed).toBeLessThan(2345)
        expect(await indexNames()).not.toContain('index_messages_thread')
        const s = createSyncer({ hooks: deskIndexHooks, db, forwarder: fw, pageCap: 100, concurrency: 1, rate: 0, leaseMs: 500 })
        const until = Date.now() + 20_000
        for (;;) {
          await s.resumePending()
          await s.idle()
          const r = await db.query<{ state: string }>('SELECT state FROM index_numbers WHERE number = $1', [num(0).number])
          if (r.rows[0]!.state === 'idle' || Date.now() > until) break
          await new Promise((ok) => setTimeout(ok, 100))
        }
        await s.close()
        await expectExact(0, 2345)
        expect(await indexNames()).toEqual(expect.arrayContaining(SECONDARY))
      },
    )

  /** A number's desk tables in a stable order, dates as ISO text (a row-for-row comparison). */
  const deskTables = async (number: string) => {
    const rows = async (sql: string) => JSON.parse(JSON.stringify((await db.query(sql, [number])).rows)) as unknown[]
    return {
      messages: await rows('SELECT * FROM desk_messages WHERE number = $1 ORDER BY ordinal'),
      threads: await rows('SELECT * FROM desk_threads WHERE number = $1 ORDER BY party'),
      periods: await rows('SELECT * FROM desk_opt_periods WHERE number = $1 ORDER BY party, opt_ordinal'),
      quietDays: await rows(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, to_char(local_day, 'YYYY-MM-DD') AS local_day, outbound, unknown, quiet
           FROM desk_quiet_days WHERE number = $1 ORDER BY day, local_day`,
      ),
      segmentDays: await rows(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, messages, segments, ucs2, extra FROM desk_segment_days WHERE number = $1 ORDER BY day`,
      ),
      dirty: await rows('SELECT party FROM desk_dirty WHERE number = $1 ORDER BY party'),
    }
  }
  /** The same number's desk rebuilt from its stored rows alone: facts cleared, tables emptied, refreshAllDesk (which reads the rows back). */
  const rebuiltDesk = async (number: string) => {
    await db.query(
      `UPDATE index_messages SET desk_inbound = NULL, desk_opt = NULL, desk_segments = NULL, desk_forcing = NULL, desk_extra = NULL,
         desk_local_day = NULL, desk_quiet = NULL WHERE number = $1`,
      [number],
    )
    for (const t of ['desk_threads', 'desk_opt_periods', 'desk_quiet_days', 'desk_segment_days', 'desk_dirty'])
      await db.query(`DELETE FROM ${t} WHERE number = $1`, [number])
    await db.query('UPDATE index_numbers SET desk_behind = true WHERE number = $1', [number])
    await refreshAllDesk(db)
    return deskTables(number)
  }

  it('keeps the desk during a bulk walk (COPY, rows prepared before their transaction) as a rebuild from the rows gives: fresh, resumed after a stop, and after a catch-up', async () => {
    const desk = num(DESK_INDEX)
    const opts = { bulkMin: 100, storeRows: 40, pageCap: 20, concurrency: 1 }
    // The reference: the history stored with the desk off, its desk then built from the rows.
    await forget(db, null, deskIndexHooks)
    await syncNow(DESK_INDEX, fw, { ...opts, desk: false })
    expect((await deskTables(desk.number)).threads).toEqual([])
    await refreshAllDesk(db)
    const reference = await deskTables(desk.number)
    const total = (await db.query<{ n: number }>('SELECT indexed AS n FROM index_numbers WHERE number = $1', [desk.number])).rows[0]!.n
    expect(total).toBeGreaterThan(4 * opts.storeRows)
    expect(reference.messages).toHaveLength(total)
    expect(reference.periods.length).toBeGreaterThan(0)
    expect(reference.quietDays.length).toBeGreaterThan(0)
    expect(reference.dirty).toEqual([])
    // The per-day segment counts, kept by the batches, are what grouping every message gives.
    const grouped = await db.query(
      `SELECT to_char(date AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS messages, sum(segments)::int AS segments,
              count(*) FILTER (WHERE encoding = 'UCS-2')::int AS ucs2, sum(extra_segments)::int AS extra
         FROM desk_messages WHERE number = $1 GROUP BY 1 ORDER BY 1`,
      [desk.number],
    )
    expect(reference.segmentDays).toEqual(grouped.rows)

    // A fresh bulk walk keeping the desk.
    await forget(db, null, deskIndexHooks)
    await syncNow(DESK_INDEX, fw, opts)
    expect(await indexNames()).toEqual(expect.arrayContaining(SECONDARY))
    expect(await deskTables(desk.number)).toEqual(reference)

    // A walk stopped mid-way (some batches stored with their counts), then resumed.
    await forget(db, null, deskIndexHooks)
    let first: ReturnType<typeof createSyncer> | null = null
    const killer = hooked(fw, (n) => {
      if (n === 4) void first?.close()
    })
    first = syncer(killer, opts)
    await first.request({ number: desk.number, tid: desk.tid })
    await first.idle()
    const mid = await db.query<{ full_done: boolean; indexed: number }>('SELECT full_done, indexed FROM index_numbers WHERE number = $1', [
      desk.number,
    ])
    expect(mid.rows[0]!.full_done).toBe(false)
    expect(mid.rows[0]!.indexed).toBeGreaterThan(0)
    await syncNow(DESK_INDEX, fw, opts)
    expect(await deskTables(desk.number)).toEqual(reference)

    // New messages stored by the catch-up (row by row, INSERT): the desk equals a rebuild from the rows.
    await control(simUrl, '/__sim/messages', { number: desk.number, add: 40 })
    await syncNow(DESK_INDEX, fw, opts)
    const caughtUp = await deskTables(desk.number)
    expect(caughtUp.messages).toHaveLength(total + 40)
    expect(await rebuiltDesk(desk.number)).toEqual(caughtUp)
    sim.state.added.delete(desk.number)
  }, 120_000)

  /** Everything the index keeps of a number, bodies and statuses by their text (ids differ between two walks), dates as ISO text. */
  const indexTables = async (number: string) => {
    const rows = async (sql: string) => JSON.parse(JSON.stringify((await db.query(sql, [number])).rows)) as unknown[]
    return {
      messages: await rows(
        `SELECT to_jsonb(m) - 'body_id' - 'status_id' - 'indexed_at' AS m, b.body AS text, s.status AS status_text
           FROM index_messages m LEFT JOIN index_bodies b ON b.id = m.body_id LEFT JOIN index_statuses s ON s.id = m.status_id
          WHERE m.number = $1 ORDER BY m.ordinal`,
      ),
      bodies: await rows(
        `SELECT b.body, b.desk_forcing, b.desk_extra, c.count FROM index_body_counts c JOIN index_bodies b ON b.id = c.body_id
          WHERE c.number = $1 ORDER BY b.body`,
      ),
      daily: await rows('SELECT * FROM index_daily WHERE number = $1 ORDER BY 2'),
      quarters: await rows('SELECT * FROM index_quarter_hours WHERE number = $1 ORDER BY 2'),
      parties: await rows('SELECT * FROM index_parties WHERE number = $1 ORDER BY party'),
      number: await rows(
        `SELECT indexed, top_ordinal, full_done, cp_next, cp_total, cp_check, upstream_total, newest_msg_id, newest_at, state, error
           FROM index_numbers WHERE number = $1`,
      ),
      desk: await deskTables(number),
    }
  }

  it("walks through the page worker as on the server's thread: every row, roll-up and desk count; stopped and resumed", async () => {
    const desk = num(DESK_INDEX)
    const opts = { bulkMin: 100, storeRows: 40, pageCap: 20, concurrency: 1 }
    await forget(db, null, deskIndexHooks)
    await syncNow(DESK_INDEX, fw, { ...opts, pageWorkerMin: Number.POSITIVE_INFINITY })
    const reference = await indexTables(desk.number)
    expect(reference.messages.length).toBeGreaterThan(4 * opts.storeRows)
    expect(reference.desk.periods.length).toBeGreaterThan(0)

    // The same walk with the worker from its second page on (pageWorkerMin 0): its pages come as bytes.
    let bytes = 0
    const counted: Forwarder = {
      ...fw,
      forwardBytes: (...args) => {
        bytes += 1
        return fw.forwardBytes(...args)
      },
    }
    await forget(db, null, deskIndexHooks)
    await syncNow(DESK_INDEX, counted, { ...opts, pageWorkerMin: 0 })
    expect(bytes).toBeGreaterThanOrEqual(reference.messages.length / opts.pageCap - 1)
    expect(await indexTables(desk.number)).toEqual(reference)

    // Stopped after a few batches, then resumed from the checkpoint, both through the worker.
    await forget(db, null, deskIndexHooks)
    let first: ReturnType<typeof createSyncer> | null = null
    const killer = hooked(fw, (n) => {
      if (n === 5) void first?.close()
    })
    first = syncer(killer, { ...opts, pageWorkerMin: 0 })
    await first.request({ number: desk.number, tid: desk.tid })
    await first.idle()
    const mid = await db.query<{ full_done: boolean; indexed: number }>('SELECT full_done, indexed FROM index_numbers WHERE number = $1', [
      desk.number,
    ])
    expect(mid.rows[0]).toMatchObject({ full_done: false, indexed: expect.any(Number) })
    expect(mid.rows[0]!.indexed).toBeGreaterThan(0)
    await syncNow(DESK_INDEX, fw, { ...opts, pageWorkerMin: 0 })
    expect(await indexTables(desk.number)).toEqual(reference)
  }, 120_000)

  describe.each([7, 50])('through the page worker, %i messages arriving per request', (rate) => {
    it('a full walk and then a catch-up end exact', async () => {
      await forgetAll(4)
      await control(simUrl, '/__sim/quirks', { arrivals: { number: num(4).number, perRequest: rate } })
      try {
        await syncNow(4, fw, { pageWorkerMin: 0 })
        await expectExact(4, upstreamTotal(4))
        await control(simUrl, '/__sim/messages', { number: num(4).number, add: 130 })
        await syncNow(4, fw, { pageWorkerMin: 0 })
        await expectExact(4, upstreamTotal(4))
      } finally {
        await control(simUrl, '/__sim/quirks', {}, 'DELETE')
      }
    })
  })

  it('takes over a number left syncing by a dead server once its lease expires', async () => {
    await forgetAll(5)
    let first: ReturnType<typeof createSyncer> | null = null
    const killer = hooked(fw, (n) => {
      if (n === 6) void first?.close()
    })
    first = syncer(killer, { concurrency: 1 })
    await first.request({ number: num(5).number, tid: num(5).tid })
    await first.idle()
    // What a server killed mid-walk leaves: the number syncing under its fresh lease.
    await db.query(`UPDATE index_numbers SET state = 'syncing', locked_by = 'dead-server', locked_at = now() WHERE number = $1`, [
      num(5).number,
    ])
    // Another server on the same database (or this one restarted).
    const other = engine === 'postgres' ? await engines.reopen(db) : db
    const s = createSyncer({ hooks: deskIndexHooks, db: other, forwarder: fw, pageCap: 100, concurrency: 1, rate: 0, leaseMs: 400 })
    await s.resumePending()
    await s.idle()
    const held = await db.query<{ state: string }>('SELECT state FROM index_numbers WHERE number = $1', [num(5).number])
    expect(held.rows[0]!.state).toBe('syncing') // the lease is still live: left alone
    const deadline = Date.now() + 10_000
    for (;;) {
      await new Promise((r) => setTimeout(r, 100))
      await s.idle()
      const r = await db.query<{ state: string }>('SELECT state FROM index_numbers WHERE number = $1', [num(5).number])
      if (r.rows[0]!.state === 'idle' || Date.now() > deadline) break
    }
    await s.close()
    await expectExact(5, 5000)
  })

  it('renews a live lease: a sync lasting several lease periods keeps its number, and another server is refused it', async () => {
    await forgetAll(4)
    const leaseMs = 800
    // About 23 pages at 8 requests a second: some 2.8 s, over three lease periods.
    const counted = hooked(fw, () => {})
    const s = syncer(counted, { leaseMs, rate: 8, pageCap: 20, storeRows: 100, concurrency: 1 })
    // The other server competes until a few pages before the end (it would take the number, rightly,
    // once this sync let go of it).
    const competing = () => counted.count() < 18
    const otherDb = engine === 'postgres' ? await engines.reopen(db) : db
    const otherLog: string[] = []
    const other = createSyncer({
      hooks: deskIndexHooks,
      db: otherDb,
      forwarder: fw,
      pageCap: 100,
      concurrency: 1,
      rate: 0,
      leaseMs,
      log: (l) => otherLog.push(l),
    })
    const started = Date.now()
    let done = false
    await s.request({ number: num(4).number, tid: num(4).tid })
    const finished = s.idle().then(() => (done = true))
    const holders = new Set<string | null>()
    // The other server competes once this one holds the lease: before that, whichever claims it
    // first rightly wins (in one CI run the other server's claim landed first, on its own pool).
    const holding = Date.now() + 10_000
    for (;;) {
      const r = await db.query<{ locked_by: string | null }>('SELECT locked_by FROM index_numbers WHERE number = $1', [num(4).number])
      if (r.rows[0]?.locked_by) break
      if (Date.now() > holding) throw new Error('the first server never took the lease')
      await new Promise((ok) => setTimeout(ok, 20))
    }
    try {
      while (!done && competing()) {
        const r = await db.query<{ locked_by: string | null; state: string }>(
          'SELECT locked_by, state FROM index_numbers WHERE number = $1',
          [num(4).number],
        )
        if (r.rows[0]!.state === 'syncing') holders.add(r.rows[0]!.locked_by)
        // The other server asks for the number, and looks for expired leases, all along.
        await other.request({ number: num(4).number })
        await other.resumePending()
        await other.idle()
        await new Promise((ok) => setTimeout(ok, 100))
      }
      await finished
    } finally {
      await s.close()
      await other.close()
    }
    // One holder throughout, renewed by its heartbeat; the other server never fetched a page.
    expect(holders.size).toBe(1)
    expect([...holders][0]).not.toBeNull()
    expect(otherLog.filter((l) => /holds this number; skipped/.test(l)).length).toBeGreaterThan(3)
    expect(other.stats.requests).toBe(0)
    expect(other.progress.messages).toBe(0)
    // The rate makes the sync last over three lease periods: without renewals it would have lost the number.
    expect(Date.now() - started).toBeGreaterThan(3 * leaseMs)
    await expectExact(4, upstreamTotal(4))
  }, 60_000)

  it('stops a sync whose lease another server took: no more pages or writes, and the taker ends exact', async () => {
    await forgetAll(4)
    const leaseMs = 600
    const stealing = hooked(fw, async (n) => {
      // As a server that found the lease expired (this one stalled) would: the number is its own now.
      if (n === 6)
        await db.query(`UPDATE index_numbers SET locked_by = 'other-server', locked_at = now() WHERE number = $1`, [num(4).number])
    })
    const s = syncer(stealing, { leaseMs, rate: 8, pageCap: 20, storeRows: 100, concurrency: 1 })
    await s.request({ number: num(4).number, tid: num(4).tid })
    await s.idle()
    await s.close()
    const asked = stealing.count()
    const row = async () =>
      (
        await db.query<{ locked_by: string | null; state: string; full_done: boolean; indexed: number }>(
          'SELECT locked_by, state, full_done, indexed FROM index_numbers WHERE number = $1',
          [num(4).number],
        )
      ).rows[0]!
    const after = await row()
    // Stopped within a heartbeat or two of the loss (the pages already asked for ahead still
    // arrive), far short of the 22 or so pages of the whole history, and the taker's lease left alone.
    expect(asked).toBeLessThan(6 + 8)
    expect(after).toMatchObject({ locked_by: 'other-server', state: 'syncing', full_done: false })
    expect(after.indexed).toBeLessThan(420)
    await new Promise((ok) => setTimeout(ok, 2 * leaseMs))
    expect(stealing.count()).toBe(asked)
    expect((await row()).indexed).toBe(after.indexed)
    // The taker (here, once its lease expired unrenewed, any server) resumes from the checkpoint.
    const taker = createSyncer({ hooks: deskIndexHooks, db, forwarder: fw, pageCap: 20, concurrency: 1, rate: 0, leaseMs: 200 })
    await taker.resumePending()
    await taker.idle()
    await taker.close()
    await expectExact(4, upstreamTotal(4))
  }, 60_000)

  it('ends a sync whose store failed for another reason: the number shows the error and its lease goes at once', async () => {
    await forgetAll(3)
    // What a refused statement does mid-walk (a full disk, a constraint): every roll-up insert fails.
    const failing = hooked(fw, async (n) => {
      if (n !== 2) return
      await db.query(
        `CREATE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no space left (test)'; END $$`,
      )
      await db.query('CREATE TRIGGER test_refuse BEFORE INSERT OR UPDATE ON index_daily FOR EACH ROW EXECUTE FUNCTION test_refuse()')
    })
    const log: string[] = []
    try {
      await syncNow(3, failing, { pageCap: 10, storeRows: 10, concurrency: 1, leaseMs: 60_000, log: (l) => log.push(l) })
      const st = await db.query<{ state: string; error: string | null; locked_by: string | null }>(
        'SELECT state, error, locked_by FROM index_numbers WHERE number = $1',
        [num(3).number],
      )
      // Not left "syncing" under a live lease for a minute, and the reason is there to read.
      expect(st.rows[0]).toMatchObject({ state: 'error', locked_by: null })
      // The page says what happened and where to look (the database's own words can quote values); the log has them.
      expect(st.rows[0]!.error).toMatch(/could not store this number's messages: the database refused a statement \(SQLSTATE P0001\)/)
      expect(st.rows[0]!.error).not.toMatch(/no space left/)
      expect(log.some((l) => l.includes(num(3).number) && l.includes('no space left (test)'))).toBe(true)
      expect((await freshness(db, [num(3).number])).incomplete).toEqual([num(3).number])
    } finally {
      await db.query('DROP TRIGGER IF EXISTS test_refuse ON index_daily')
      await db.query('DROP FUNCTION IF EXISTS test_refuse()')
    }
    // Once the cause is gone, asking again ends exact.
    await syncNow(3)
    await expectExact(3, upstreamTotal(3))
  }, 60_000)

  it('fences a sync whose lease was taken before its heartbeat noticed: not one row written after the takeover', async () => {
    await forgetAll(4)
    // What the number held when another server took it over, read once the takeover committed.
    const held = async () =>
      (
        await db.query(
          `SELECT (SELECT count(*)::int FROM index_messages WHERE number = $1) AS messages,
                  (SELECT COALESCE(sum(inbound + outbound), 0)::int FROM index_daily WHERE number = $1) AS daily,
                  n.indexed, n.top_ordinal, n.cp_next, n.cp_check, n.upstream_total, n.locked_by, n.state, n.error
           FROM index_numbers n WHERE n.number = $1`,
          [num(4).number],
        )
      ).rows[0]
    let atTakeover: unknown = null
    const stealing = hooked(fw, async (n) => {
      if (n === 6) {
        await db.query(`UPDATE index_numbers SET locked_by = 'other-server', locked_at = now() WHERE number = $1`, [num(4).number])
        atTakeover = await held()
      }
    })
    // A lease of a minute: its heartbeat (every 20 s) never runs in this sync, so only the fence
    // in the store's transaction can stop the old server's writes.
    const log: string[] = []
    const s = syncer(stealing, { leaseMs: 60_000, rate: 8, pageCap: 20, storeRows: 60, concurrency: 1, log: (l) => log.push(l) })
    await s.request({ number: num(4).number, tid: num(4).tid })
    await s.idle()
    await s.close()
    expect(atTakeover).toMatchObject({ locked_by: 'other-server', state: 'syncing' })
    expect(await held()).toEqual(atTakeover)
    // Its first batch after the takeover was refused, and the sync stopped there, quietly.
    expect(log.some((l) => /took this number over; stopped/.test(l))).toBe(true)
    expect(stealing.count()).toBeLessThan(6 + 8)
    // The taker (any server, once the lease it holds here expires unrenewed) ends exact.
    await db.query(`UPDATE index_numbers SET locked_at = now() - interval '1 hour' WHERE number = $1`, [num(4).number])
    const taker = createSyncer({ hooks: deskIndexHooks, db, forwarder: fw, pageCap: 20, concurrency: 1, rate: 0, leaseMs: 200 })
    await taker.resumePending()
    await taker.idle()
    await taker.close()
    await expectExact(4, upstreamTotal(4))
  }, 60_000)
})
