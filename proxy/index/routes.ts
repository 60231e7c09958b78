import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  INDEX_PATHS,
  type IndexStatus,
  type MessageResult,
  type LocateResult,
  type PartiesResult,
  type SearchResult,
  type StatsResult,
  type ThreadResult,
} from '../../contract/index-api.ts'
import { openDb } from '../db/open.ts'
import type { Db } from '../db/types.ts'
import { ProxyError, invalid } from '../errors.ts'
import type { Forwarder } from '../forward.ts'
import { readJsonBody, sendError, sendJson } from '../http.ts'
import type { Route, RequestContext } from '../http-types.ts'
import type { IndexConfig } from './config.ts'
import { streamExport } from './export.ts'
import {
  createCountCache,
  dateParam,
  decodeCursor,
  digitsParam,
  forget,
  freshness,
  indexedCount,
  limitParam,
  locate,
  messageAt,
  numberParam,
  numberStatuses,
  parseFilters,
  parties,
  positionBases,
  readParams,
  resolveParties,
  SEARCH_PARAMS,
  searchPage,
  stats,
  threadPage,
  toMessage,
} from './queries.ts'
import { createSyncer, ensureIndexes, type Syncer } from './sync.ts'

/**
 * The message index as the server sees it: routes under /api/index/ (contract/index-api.ts),
 * the history-viewed trigger, and the sync machinery behind them. With INDEX=off every route
 * answers 503 index_off and nothing is opened.
 */

export interface IndexDeps {
  forwarder: Forwarder
  log?: (line: string) => void
  /** An already opened database to share (team access uses the same one); else one is opened. */
  db?: Db
}

export interface MessageIndex {
  routes: Route[]
  onHistoryViewed: (number: string, tid: string) => void
  meta: () => Record<string, unknown>
  close: () => Promise<void>
  /** Null with INDEX=off (and no database given). */
  db: Db | null
  /** The sync machinery (tests, bench); null with INDEX=off. */
  syncer: Syncer | null
}

const OFF_MESSAGE = 'The message index is off (INDEX=off); search needs it.'
/** A number's history view refreshes its sync at most this often. */
const VIEW_REFRESH_MS = 5_000

const methodNotAllowed = (allowed: string) => new ProxyError(405, { kind: 'invalid_request', message: `Use ${allowed} here.` })

export async function createIndex(cfg: IndexConfig, deps: IndexDeps): Promise<MessageIndex> {
  const log = deps.log ?? (() => {})
  if (!cfg.enabled) {
    const handle = async (_req: IncomingMessage, res: ServerResponse) =>
      sendError(res, new ProxyError(503, { kind: 'index_off', message: OFF_MESSAGE }))
    return {
      routes: [{ prefix: '/api/index/', handle }],
      onHistoryViewed: () => {},
      meta: () => ({ index: { enabled: false } }),
      close: async () => {},
      db: deps.db ?? null,
      syncer: null,
    }
  }

  const ownDb = !deps.db
  const db = deps.db ?? (await openDb({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl ?? undefined, log }))
  const location = 'location' in db && typeof db.location === 'string' ? db.location : db.engine
  const syncer = createSyncer({
    db,
    forwarder: deps.forwarder,
    pageCap: cfg.pageCap,
    concurrency: cfg.syncConcurrency,
    rate: cfg.syncRate,
    log,
  })
  // A bulk load cut short leaves the secondary indexes dropped: rebuild them unless a walk is
  // about to resume (it rebuilds them when it ends).
  const pending = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM index_numbers WHERE state IN ('queued', 'syncing')`)
  if ((pending.rows[0]?.n ?? 0) === 0) await ensureIndexes(db, log)
  // Syncs that were queued or running when the server stopped continue from their checkpoints.
  void syncer
    .resumePending()
    .catch((err: unknown) => log(`index: could not resume pending syncs: ${err instanceof Error ? err.message : String(err)}`))
  let interval: NodeJS.Timeout | null = null
  if (cfg.syncIntervalS > 0) {
    interval = setInterval(() => {
      void db
        .query<{ number: string }>(`SELECT number FROM index_numbers WHERE full_done OR state IN ('idle', 'error')`)
        .then(async (r) => {
          for (const { number } of r.rows) await syncer.request({ number })
        })
        .catch((err: unknown) => log(`index: periodic sync failed: ${err instanceof Error ? err.message : String(err)}`))
    }, cfg.syncIntervalS * 1000)
    interval.unref()
  }
  const lastViewed = new Map<string, number>()
  const count = createCountCache()

  const status = async (): Promise<IndexStatus> => ({
    enabled: true,
    engine: db.engine,
    numbers: await numberStatuses(db),
    freshness: await freshness(db, null),
  })

  async function handleStatus(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (req.method !== 'GET') throw methodNotAllowed('GET')
    readParams(url, [])
    sendJson(res, 200, await status())
  }

  async function handleSync(req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
    if (req.method !== 'POST') throw methodNotAllowed('POST')
    readParams(url, [])
    const body = await readJsonBody(req)
    for (const k of Object.keys(body))
      if (!['number', 'tid', 'all'].includes(k))
        throw invalid(k.slice(0, 40), `Unknown field "${k.slice(0, 40)}": send number (and tid) or all.`)
    if (body.all !== undefined && typeof body.all !== 'boolean') throw invalid('all', 'all must be true or false.')
    if (body.all === true) {
      if (body.number !== undefined) throw invalid('number', 'Send either number or all, not both.')
      const n = await syncer.syncAll()
      ctx.audit('index.sync', { all: true, numbers: n })
    } else {
      if (typeof body.number !== 'string') throw invalid('number', 'number is required (or all: true).')
      const number = body.number.replace(/^\+/, '')
      if (!/^\d{6,15}$/.test(number)) throw invalid('number', 'number must be an account number: 6 to 15 digits.')
      let tid: string | undefined
      if (body.tid !== undefined) {
        if (typeof body.tid !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(body.tid))
          throw invalid('tid', "tid must be the number's identifier (letters and digits).")
        tid = body.tid
      }
      const known = await db.query('SELECT 1 FROM index_numbers WHERE number = $1', [number])
      if (known.rows.length === 0 && tid === undefined) throw invalid('tid', 'tid is required for a number the index has not seen yet.')
      await syncer.request({ number, tid })
      ctx.audit('index.sync', { number })
    }
    sendJson(res, 202, await status())
  }

  async function handleSearch(req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
    if (req.method !== 'GET') throw methodNotAllowed('GET')
    const started = performance.now()
    const p = readParams(url, [...SEARCH_PARAMS, 'cursor', 'limit', 'tz'])
    const f = parseFilters(p)
    const cursor = decodeCursor(p.get('cursor'))
    const limit = limitParam(p)
    ctx.audit('search', Object.fromEntries(p))
    await resolveParties(db, f)
    const total = await count(db, f)
    // A text filter matching at least one row in a thousand: the newest page is found sooner by
    // walking the date index than by fetching and sorting every match.
    const walkDates =
      !!f.q &&
      total * 1000 >=
        (await count(db, {
          ...f,
          q: null,
          party: null,
          parties: null,
          direction: null,
          status: null,
          media: null,
          from: null,
          toExclusive: null,
          toInclusive: null,
        }))
    const [page, fresh] = await Promise.all([searchPage(db, f, cursor, limit, walkDates), freshness(db, f.numbers)])
    const bases = await positionBases(
      db,
      page.rows.map((r) => r.number),
    )
    const body: SearchResult = {
      total,
      rows: page.rows.map((r) => toMessage(r, bases.get(r.number) ?? r.ordinal)),
      nextCursor: page.nextCursor,
      freshness: fresh,
      tookMs: Math.round((performance.now() - started) * 10) / 10,
    }
    sendJson(res, 200, body)
  }

  async function handleThread(req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
    if (req.method !== 'GET') throw methodNotAllowed('GET')
    const p = readParams(url, ['number', 'party', 'before', 'at', 'limit'])
    const number = numberParam(p)
    const party = digitsParam(p, 'party', true)!
    const before = decodeCursor(p.get('before'), 'before')
    const at = dateParam(p, 'at')
    const limit = limitParam(p)
    ctx.audit('thread.view', { number, party })
    const t = await threadPage(db, number, party, before, at ? at.endExclusive : null, limit)
    const bases = await positionBases(db, [number])
    const body: ThreadResult = {
      number,
      party,
      total: t.total,
      firstDate: t.firstDate,
      lastDate: t.lastDate,
      rows: t.rows.map((r) => toMessage(r, bases.get(number) ?? r.ordinal)),
      nextCursor: t.nextCursor,
      freshness: await freshness(db, [number]),
    }
    sendJson(res, 200, body)
  }

  async function handleParties(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (req.method !== 'GET') throw methodNotAllowed('GET')
    const p = readParams(url, ['number', 'party', 'limit'])
    const number = numberParam(p)
    const party = digitsParam(p, 'party', false)
    const limit = limitParam(p, 500)
    const body: PartiesResult = { number, parties: await parties(db, number, party, limit), freshness: await freshness(db, [number]) }
    sendJson(res, 200, body)
  }

  async function handleStats(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (req.method !== 'GET') throw methodNotAllowed('GET')
    const p = readParams(url, ['number', 'bucket', 'from', 'to'])
    const number = p.has('number') ? numberParam(p) : null
    const bucket = p.get('bucket') ?? 'day'
    if (bucket !== 'day' && bucket !== 'week') throw invalid('bucket', 'bucket must be day or week.')
    const from = dateParam(p, 'from')
    const to = dateParam(p, 'to')
    if (from && to && from.start >= to.endExclusive) throw invalid('to', 'to must not be before from.')
    const body: StatsResult = {
      number,
      bucket,
      buckets: await stats(db, number, bucket, from?.start ?? null, to?.endExclusive ?? null),
      freshness: await freshness(db, number ? [number] : null),
    }
    sendJson(res, 200, body)
  }

  async function handleMessage(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (req.method !== 'GET') throw methodNotAllowed('GET')
    const p = readParams(url, ['number', 'ordinal'])
    const number = numberParam(p)
    const o = p.get('ordinal') ?? ''
    if (!/^\d{1,9}$/.test(o) || Number(o) < 1) throw invalid('ordinal', 'ordinal must be a whole number from 1 (the oldest message).')
    const row = await messageAt(db, number, Number(o))
    if (!row) throw new ProxyError(404, { kind: 'not_found', message: `The index holds no message ${o} for ${number}.` })
    const bases = await positionBases(db, [number])
    const body: MessageResult = {
      message: toMessage(row, bases.get(number) ?? row.ordinal),
      total: await indexedCount(db, number),
      freshness: await freshness(db, [number]),
    }
    sendJson(res, 200, body)
  }

  async function handleLocate(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (req.method !== 'GET') throw methodNotAllowed('GET')
    const p = readParams(url, ['number', 'date'])
    const number = numberParam(p)
    const day = dateParam(p, 'date', true)!
    const row = await locate(db, number, day.endExclusive)
    const bases = await positionBases(db, [number])
    const body: LocateResult = {
      message: row ? toMessage(row, bases.get(number) ?? row.ordinal) : null,
      total: await indexedCount(db, number),
      freshness: await freshness(db, [number]),
    }
    sendJson(res, 200, body)
  }

  async function handleExport(req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
    if (req.method !== 'GET') throw methodNotAllowed('GET')
    const p = readParams(url, [...SEARCH_PARAMS, 'format', 'tz'])
    const f = parseFilters(p)
    const format = p.get('format') ?? 'csv'
    if (format !== 'csv' && format !== 'ndjson') throw invalid('format', 'format must be csv or ndjson.')
    const tz = p.get('tz') ?? 'UTC'
    await streamExport(db, req, res, { filters: f, params: p, format, tz, audit: ctx.audit, log })
  }

  async function handleForget(req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
    if (req.method !== 'POST') throw methodNotAllowed('POST')
    readParams(url, [])
    const body = await readJsonBody(req)
    for (const k of Object.keys(body))
      if (!['number', 'all'].includes(k)) throw invalid(k.slice(0, 40), `Unknown field "${k.slice(0, 40)}": send number or all.`)
    let number: string | null
    if (body.all === true) {
      if (body.number !== undefined) throw invalid('number', 'Send either number or all, not both.')
      number = null
    } else {
      if (body.all !== undefined && body.all !== false) throw invalid('all', 'all must be true or false.')
      if (typeof body.number !== 'string' || !/^\+?\d{6,15}$/.test(body.number))
        throw invalid('number', 'number is required (6 to 15 digits), or all: true.')
      number = body.number.replace(/^\+/, '')
    }
    // A running sync would write rows back after the delete: stop it first.
    await syncer.stop(number ?? undefined)
    const forgotten = await forget(db, number)
    ctx.audit('forget', number ? { number, messages: forgotten } : { all: true, messages: forgotten })
    log(`index: forgot ${forgotten} messages (${number ?? 'all numbers'})`)
    sendJson(res, 200, { forgotten })
  }

  const table: Record<string, (req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) => Promise<void>> = {
    [INDEX_PATHS.status]: handleStatus,
    [INDEX_PATHS.sync]: handleSync,
    [INDEX_PATHS.search]: handleSearch,
    [INDEX_PATHS.thread]: handleThread,
    [INDEX_PATHS.parties]: handleParties,
    [INDEX_PATHS.stats]: handleStats,
    [INDEX_PATHS.message]: handleMessage,
    [INDEX_PATHS.locate]: handleLocate,
    [INDEX_PATHS.export]: handleExport,
    [INDEX_PATHS.forget]: handleForget,
  }

  const handle = async (req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) => {
    const fn = table[url.pathname]
    try {
      if (!fn) throw new ProxyError(404, { kind: 'not_found', message: `No index path ${url.pathname.slice(0, 80)}.` })
      await fn(req, res, url, ctx)
    } catch (err) {
      if (res.headersSent) {
        res.destroy()
        return
      }
      if (err instanceof ProxyError) return sendError(res, err)
      const code = (err as { code?: string }).code
      // 57014: statement timeout: the query was too broad for the bound every query carries.
      if (code === '57014')
        return sendError(
          res,
          new ProxyError(503, {
            kind: 'timeout',
            message: 'The search took too long and was stopped. Narrow it (a longer text, a number or a date range) and try again.',
          }),
        )
      throw err
    }
  }

  return {
    routes: [
      { prefix: '/api/index/', handle },
      // Deleting customer messages is an administrator's decision.
      { prefix: INDEX_PATHS.forget, handle, adminOnly: true },
      // Whole-history and search-result exports are an administrator's (see the roles); viewers
      // export the rows on screen, which the browser writes itself.
      { prefix: INDEX_PATHS.export, handle, adminOnly: true },
    ],
    onHistoryViewed: (number: string, tid: string) => {
      const n = number.replace(/^\+/, '')
      if (!/^\d{6,15}$/.test(n) || !/^[A-Za-z0-9_-]{1,64}$/.test(tid)) return
      const now = Date.now()
      if (syncer.isBusy(n) || now - (lastViewed.get(n) ?? 0) < VIEW_REFRESH_MS) return
      lastViewed.set(n, now)
      if (lastViewed.size > 50_000) lastViewed.clear()
      void syncer
        .request({ number: n, tid })
        .catch((err: unknown) => log(`index: ${n}: ${err instanceof Error ? err.message : String(err)}`))
    },
    meta: () => ({ index: { enabled: true, engine: db.engine, location } }),
    close: async () => {
      if (interval) clearInterval(interval)
      await syncer.close()
      if (ownDb) await db.close()
    },
    db,
    syncer,
  }
}
