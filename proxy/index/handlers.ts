import type { IncomingMessage, ServerResponse } from 'node:http'
import type {
  IndexStatus,
  LocateResult,
  MessageResult,
  PartiesResult,
  SearchResult,
  StatsResult,
  ThreadResult,
} from '../../contract/index-api.ts'
import type { Db } from '../db/types.ts'
import { ProxyError, invalid } from '../errors.ts'
import { readJsonBody, sendJson } from '../http.ts'
import type { RequestContext } from '../http-types.ts'
import { streamExport, type ExportGate } from './export.ts'
import { JOB_ID, type ExportTracker } from './export-progress.ts'
import {
  dateParam,
  decodeCursor,
  digitsParam,
  limitParam,
  numberParam,
  parseFilters,
  readParams,
  SEARCH_PARAMS,
  zoneParam,
} from './params.ts'
import {
  forget as forgetMessages,
  freshness,
  freshnessAndVersion,
  indexedCount,
  locate as locateMessage,
  messageAt,
  numberStatuses,
  parties as partiesOf,
  positionBases,
  searchPage,
  stats as statsOf,
  threadPage,
  toMessage,
  type createCountCache,
} from './queries.ts'
import type { RateMeter } from './rate-meter.ts'
import { overallProgress, type Syncer } from './sync.ts'

/**
 * The index's route handlers, one per path of contract/index-api.ts. Each reads and checks its
 * parameters (params.ts), asks queries.ts, records what it shows (`ctx.logRead`, before the
 * answer: the route table enforces it) and answers. What they share is the room: the database,
 * the syncer, the count cache and the log.
 */

export interface IndexRoom {
  db: Db
  /** The same database for bulk work (exports): its statements wait while requests' are queued. */
  bulk: Db
  syncer: Syncer
  /** Limits index exports per person and in total. */
  exportGate: ExportGate
  /** Each export's progress by the id the browser gave it, for the tray (the file goes to the download manager). */
  exports: ExportTracker
  count: ReturnType<typeof createCountCache>
  log: (line: string) => void
  /** Whether this server indexes the whole account on its own (INDEX_AUTO_SYNC). */
  autoSync: boolean
  /** Messages this server's syncs stored in the last half minute: the rate the progress reports. */
  rate: RateMeter
}

/**
 * What the index holds. `number` narrows the per-number list and the freshness to one number
 * (an export waiting for its sync asks every second or two); `summary` leaves the list out (the
 * header's indicator asks on every page, and the list is 2 MB on a 10,000-number account).
 */
async function indexStatus(room: IndexRoom, only: { number?: string; summary?: boolean } = {}): Promise<IndexStatus> {
  const { db, rate } = room
  const scope = only.number ? [only.number] : null
  const listed = await db.query<{ listed: boolean }>('SELECT EXISTS (SELECT 1 FROM index_numbers WHERE listed) AS listed')
  return {
    enabled: true,
    engine: db.engine,
    autoSync: room.autoSync,
    accountListed: listed.rows[0]?.listed ?? false,
    numbers: only.summary ? [] : await numberStatuses(db, only.number ?? null),
    freshness: await freshness(db, scope),
    progress: await progressNow(db, rate),
  }
}

/** The account's progress; a rate and a time left only while a sync runs (the window outlives the last one by half a minute). */
async function progressNow(db: Db, rate: RateMeter) {
  const p = await overallProgress(db, rate.window())
  return p.running ? p : { ...p, ratePerSecond: null, secondsLeft: null }
}

export async function status(room: IndexRoom, _req: IncomingMessage, res: ServerResponse, url: URL) {
  const p = readParams(url, ['number', 'summary'])
  const number = p.has('number') ? numberParam(p) : undefined
  const summary = p.get('summary') ?? 'false'
  if (summary !== 'true' && summary !== 'false') throw invalid('summary', 'summary must be true or false.')
  if (summary === 'true' && number) throw invalid('summary', 'Send either number or summary=true, not both.')
  sendJson(res, 200, await indexStatus(room, { number, summary: summary === 'true' }))
}

export async function sync(room: IndexRoom, req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
  const { db, syncer } = room
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
  sendJson(res, 202, await indexStatus(room))
}

export async function search(room: IndexRoom, _req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
  const { db, count } = room
  const started = performance.now()
  const p = readParams(url, [...SEARCH_PARAMS, 'cursor', 'limit', 'tz'])
  const f = parseFilters(p)
  const cursor = decodeCursor(p.get('cursor'))
  const limit = limitParam(p)
  // Freshness, the data version, the scope's total and the text and digit look-ups: one statement.
  const { freshness: fresh, version, scopeIndexed } = await freshnessAndVersion(db, f.numbers, f)
  const total = await count(db, f, version)
  // A text filter matching at least one row in a thousand: the newest page is found sooner by
  // walking the date index than by fetching and sorting every match.
  const walkDates = !!f.q && total * 1000 >= scopeIndexed
  const page = await searchPage(db, f, cursor, limit, walkDates)
  await ctx.logRead({ ...Object.fromEntries(p), rows: page.rows.length })
  const body: SearchResult = {
    total,
    rows: page.rows.map((r) => toMessage(r, r.position_base ?? r.ordinal)),
    nextCursor: page.nextCursor,
    freshness: fresh,
    tookMs: Math.round((performance.now() - started) * 10) / 10,
  }
  sendJson(res, 200, body)
}

export async function thread(room: IndexRoom, _req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
  const { db } = room
  const p = readParams(url, ['number', 'party', 'before', 'at', 'limit'])
  const number = numberParam(p)
  const party = digitsParam(p, 'party', true)!
  const before = decodeCursor(p.get('before'), 'before')
  const at = dateParam(p, 'at')
  const limit = limitParam(p)
  const t = await threadPage(db, number, party, before, at ? at.endExclusive : null, limit)
  await ctx.logRead({ number, party, rows: t.rows.length, ...(at ? { at: p.get('at') } : {}) })
  const body: ThreadResult = {
    number,
    party,
    total: t.total,
    firstDate: t.firstDate,
    lastDate: t.lastDate,
    rows: t.rows.map((r) => toMessage(r, r.position_base ?? r.ordinal)),
    nextCursor: t.nextCursor,
    freshness: await freshness(db, [number]),
  }
  sendJson(res, 200, body)
}

export async function parties(room: IndexRoom, _req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
  const { db } = room
  const p = readParams(url, ['number', 'party', 'limit'])
  const number = numberParam(p)
  const party = digitsParam(p, 'party', false)
  const limit = limitParam(p, 500)
  const body: PartiesResult = { number, parties: await partiesOf(db, number, party, limit), freshness: await freshness(db, [number]) }
  await ctx.logRead({ number, ...(party ? { party } : {}), rows: body.parties.length })
  sendJson(res, 200, body)
}

export async function stats(room: IndexRoom, _req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
  const { db } = room
  const p = readParams(url, ['number', 'bucket', 'from', 'to', 'tz'])
  const number = p.has('number') ? numberParam(p) : null
  const tz = zoneParam(p)
  const bucket = p.get('bucket') ?? 'day'
  if (bucket !== 'day' && bucket !== 'week') throw invalid('bucket', 'bucket must be day or week.')
  const from = dateParam(p, 'from')
  const to = dateParam(p, 'to')
  if (from && to && from.start >= to.endExclusive) throw invalid('to', 'to must not be before from.')
  const body: StatsResult = {
    number,
    bucket,
    timeZone: tz ?? 'UTC',
    buckets: await statsOf(db, number, bucket, from?.start ?? null, to?.endExclusive ?? null, tz),
    freshness: await freshness(db, number ? [number] : null),
  }
  await ctx.logRead({ ...Object.fromEntries(p) })
  sendJson(res, 200, body)
}

export async function message(room: IndexRoom, _req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
  const { db } = room
  const p = readParams(url, ['number', 'ordinal'])
  const number = numberParam(p)
  const o = p.get('ordinal') ?? ''
  if (!/^\d{1,9}$/.test(o) || Number(o) < 1) throw invalid('ordinal', 'ordinal must be a whole number from 1 (the oldest message).')
  const row = await messageAt(db, number, Number(o))
  if (!row) throw new ProxyError(404, { kind: 'not_found', message: `The index holds no message ${o} for ${number}.` })
  await ctx.logRead({ number, ordinal: Number(o), party: row.party })
  const bases = await positionBases(db, [number])
  const body: MessageResult = {
    message: toMessage(row, bases.get(number) ?? row.ordinal),
    total: await indexedCount(db, number),
    freshness: await freshness(db, [number]),
  }
  sendJson(res, 200, body)
}

export async function locate(room: IndexRoom, _req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
  const { db } = room
  const p = readParams(url, ['number', 'date'])
  const number = numberParam(p)
  const day = dateParam(p, 'date', true)!
  const row = await locateMessage(db, number, day.endExclusive)
  await ctx.logRead({ number, date: p.get('date'), ...(row ? { ordinal: row.ordinal, party: row.party } : {}) })
  const bases = await positionBases(db, [number])
  const body: LocateResult = {
    message: row ? toMessage(row, bases.get(number) ?? row.ordinal) : null,
    total: await indexedCount(db, number),
    freshness: await freshness(db, [number]),
  }
  sendJson(res, 200, body)
}

/** `job`: the browser's id for this export, so the tray can ask how far it has come and cancel it. */
function jobParam(p: Map<string, string>): string | null {
  const job = p.get('job')
  if (job === undefined) return null
  if (!JOB_ID.test(job)) throw invalid('job', 'job must be 8 to 64 letters, digits, "-" or "_".')
  return job
}

export async function exportMessages(room: IndexRoom, req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
  const { bulk, exportGate, log } = room
  const who = ctx.principal?.name ?? ''
  const p = readParams(url, [...SEARCH_PARAMS, 'format', 'tz', 'job'])
  const jobId = jobParam(p)
  const job = jobId === null ? undefined : room.exports.begin(who, jobId)
  try {
    const f = parseFilters(p)
    const format = p.get('format') ?? 'csv'
    if (format !== 'csv' && format !== 'ndjson') throw invalid('format', 'format must be csv or ndjson.')
    const tz = p.get('tz') ?? 'UTC'
    await streamExport(bulk, req, res, {
      filters: f,
      params: p,
      format,
      tz,
      logStart: (d, action) => ctx.logRead(d, action),
      audit: ctx.audit,
      log,
      gate: exportGate,
      who,
      job,
    })
  } catch (err) {
    // A refusal before the stream (a bad filter, an unknown zone) reaches the tray as well as the
    // download, which the browser shows only as "failed". streamExport ends the record itself
    // for what it runs into; a second end is ignored.
    job?.end({
      state: 'failed',
      error:
        err instanceof ProxyError
          ? err.body
          : { kind: 'server_error', message: 'The export failed on the server; the cause is in its log.' },
    })
    throw err
  }
}

export async function exportProgress(room: IndexRoom, _req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
  const p = readParams(url, ['job'])
  const job = jobParam(p)
  if (job === null) throw invalid('job', 'job is required: the id the export was started with.')
  sendJson(res, 200, room.exports.get(ctx.principal?.name ?? '', job))
}

export async function exportCancel(room: IndexRoom, req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
  readParams(url, [])
  const body = await readJsonBody(req)
  for (const k of Object.keys(body)) if (k !== 'job') throw invalid(k.slice(0, 40), `Unknown field "${k.slice(0, 40)}": send job.`)
  if (typeof body.job !== 'string' || !JOB_ID.test(body.job)) throw invalid('job', 'job is required: the id the export was started with.')
  const record = room.exports.cancel(ctx.principal?.name ?? '', body.job)
  ctx.audit(`${record.action ?? 'search.export'}.cancel`, { job: body.job, rows: record.rows })
  sendJson(res, 200, record)
}

export async function forget(room: IndexRoom, req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) {
  const { db, syncer, log } = room
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
  const forgotten = await forgetMessages(db, number)
  ctx.audit('index.forget', number ? { number, messages: forgotten } : { all: true, messages: forgotten })
  log(`index: forgot ${forgotten} messages (${number ?? 'all numbers'})`)
  sendJson(res, 200, { forgotten })
}

/** The handler of each index path. */
export const HANDLERS = {
  status,
  sync,
  search,
  thread,
  parties,
  stats,
  message,
  locate,
  export: exportMessages,
  exportProgress,
  exportCancel,
  forget,
} satisfies Record<string, (room: IndexRoom, req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) => Promise<void>>
