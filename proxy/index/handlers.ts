import type { Fifo } from '../kernel/fifo.ts'
import { can } from '../../contract/roles.ts'
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
import type { z } from 'zod'
import { invalid, ProxyError } from '../errors.ts'
import type { JsonAnswer, RequestContext } from '../http-types.ts'
import type { IndexAnswer } from '../../contract/index-answers.ts'
import type { NO_QUERY, RouteInput } from '../schema.ts'
import { exportActionOf, streamExport } from './export.ts'
import type { ExportGate } from '../exports/gate.ts'
import { CancelledBeforeStart, endFailed, type ExportJobHooks, type ExportTracker } from '../exports/progress.ts'
import type {
  EXPORT_CANCEL_BODY,
  EXPORT_PROGRESS_QUERY,
  EXPORT_QUERY,
  FORGET_BODY,
  LOCATE_QUERY,
  MESSAGE_QUERY,
  PARTIES_QUERY,
  SEARCH_QUERY,
  STATS_QUERY,
  STATUS_QUERY,
  SYNC_BODY,
  THREAD_QUERY,
} from './schemas.ts'
import {
  forget as forgetMessages,
  keysOf,
  indexedMessages,
  freshness,
  freshnessAndVersion,
  indexedCount,
  locate as locateMessage,
  messageAt,
  numberStatuses,
  numberStatusPage,
  parties as partiesOfNumber,
  positionBases,
  searchPage,
  threadPage,
  toMessage,
  type MessageRow,
} from './queries.ts'
import { stats as statsOf, type createCountCache } from './count-queries.ts'
import type { RateMeter } from './rate-meter.ts'
import type { IndexHooks } from './hooks.ts'
import { partyKey } from '../../contract/desk/messages.ts'
import { overallProgress, type Syncer } from './sync.ts'

/**
 * The index's route handlers, one per path of contract/index-api.ts. Each starts from its
 * parameters as its schema parsed them (schemas.ts), asks queries.ts, records what it shows (`ctx.logRead`, before the
 * answer: the route table enforces it) and answers. What they share is the room: the database,
 * the syncer, the count cache and the log.
 */

export interface IndexRoom {
  db: Db
  /** The same database for bulk work (exports): its statements wait while requests' are queued. */
  bulk: Db
  syncer: Syncer
  /** Limits index exports per person and in total; more wait in its queue. */
  exportGate: ExportGate
  /** Each export's progress by the id the browser gave it, for the tray (the file goes to the download manager). */
  exports: ExportTracker
  count: ReturnType<typeof createCountCache>
  /** The other rooms' part in a forget (rooms.ts hands them in). */
  hooks: IndexHooks
  log: (line: string) => void
  /** Whether this server indexes the whole account on its own (INDEX_AUTO_SYNC). */
  autoSync: boolean
  /** Messages this server's syncs stored in the last half minute: the rate the progress reports. */
  rate: RateMeter
  /** The door every read waits at (routes.ts READS_AT_ONCE). */
  reading: Fifo
}

/**
 * What the index holds. `number` narrows the per-number list and the freshness to one number
 * (an export waiting for its sync asks every second or two); `summary` leaves the list out (the
 * header's indicator asks on every page, and the list is 2 MB on a 10,000-number account);
 * `limit` and `match` list the first numbers whose digits hold `match`, with how many match (the
 * Index page shows 100 at a time).
 */
async function indexStatus(
  room: IndexRoom,
  only: { number?: string; summary?: boolean; limit?: number; match?: string } = {},
): Promise<IndexStatus> {
  const { db, rate } = room
  const scope = only.number ? [only.number] : null
  const listed = await db.query<{ listed: boolean }>('SELECT EXISTS (SELECT 1 FROM index_numbers WHERE listed) AS listed')
  return {
    enabled: true,
    engine: db.engine,
    autoSync: room.autoSync,
    accountListed: listed.rows[0]?.listed ?? false,
    accountListingFailure: room.syncer.listingFailure(),
    ...(only.summary
      ? { numbers: [] }
      : only.limit !== undefined || only.match !== undefined
        ? await numberStatusPage(db, only)
        : { numbers: await numberStatuses(db, only.number ?? null) }),
    freshness: await freshness(db, scope),
    progress: await progressNow(db, rate),
  }
}

/** The account's progress; a rate and a time left only while a sync runs (the window outlives the last one by half a minute). */
async function progressNow(db: Db, rate: RateMeter) {
  const p = await overallProgress(db, rate.window())
  return p.running ? p : { ...p, ratePerSecond: null, secondsLeft: null }
}

/** What an index row's schema parsed: its query, and its body where it has one. */
export type IndexInput<Q, B = undefined> = RouteInput<z.output<Q>, B extends z.ZodType ? z.output<B> : undefined, undefined>

/** An index handler: the room and what its row's schema parsed, never the request, the response or the URL; it gives back its answer. */
export type Handler<Q, B = undefined> = (room: IndexRoom, ctx: RequestContext, input: IndexInput<Q, B>) => Promise<JsonAnswer>

/** The export's handler: a file streamed to the raw response, as the client takes it (back-pressure, leaving). */
export type StreamHandler<Q> = (
  room: IndexRoom,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  input: IndexInput<Q>,
) => Promise<void>

export const status: Handler<typeof STATUS_QUERY> = async (room, _ctx, { query }) => {
  return { status: 200, body: (await indexStatus(room, query)) satisfies IndexAnswer<'status'> }
}

export const sync: Handler<typeof NO_QUERY, typeof SYNC_BODY> = async (room, ctx, { body }) => {
  const { db, syncer } = room
  const admin = can(ctx.principal?.role ?? null, 'forgetMessages')
  if (body.all) {
    // "Index all" by someone who may not forget leaves the numbers an admin forgot forgotten; an admin's indexes them again.
    await ctx.audit('index.sync', { all: true })
    await syncer.syncAll({ revive: admin })
  } else {
    const { number } = body
    let { tid } = body
    const known = await db.query<{ forgotten: boolean }>(
      'SELECT forgotten_at IS NOT NULL AS forgotten FROM index_numbers WHERE number = $1',
      [number],
    )
    if (known.rows[0]?.forgotten && !admin)
      throw new ProxyError(403, {
        kind: 'forbidden',
        field: 'number',
        message: `An admin forgot what the index held of ${number}; only an admin can index it again.`,
      })
    if (known.rows.length === 0) {
      // A number the index has not seen is one of the account's, or nothing is queued: any
      // signed-in person's made-up number stayed in every search's "still indexing" for good.
      const listed = await syncer.listedTids(number)
      if (listed === null)
        throw new ProxyError(404, {
          kind: 'not_found',
          field: 'number',
          message: `The account has no number ${number}: the index keeps the account's own numbers.`,
        })
      tid ??= listed[0]
    }
    await ctx.audit('index.sync', { number })
    await syncer.request({ number, tid })
  }
  return { status: 202, body: (await indexStatus(room)) satisfies IndexAnswer<'sync'> }
}

export const search: Handler<typeof SEARCH_QUERY> = async (room, ctx, { query }) => {
  const { db, count } = room
  const started = performance.now()
  const { filters: f, cursor, limit } = query
  // Freshness, the data version, the scope's total and the text and digit look-ups: one statement.
  const { freshness: fresh, version, scopeIndexed } = await freshnessAndVersion(db, f.numbers, f)
  const { total, capped } = await count(db, f, version)
  // A text filter matching at least one row in a thousand: the newest page is found sooner by
  // walking the date index than by fetching and sorting every match.
  const walkDates = !!f.q && total * 1000 >= scopeIndexed
  const page = await searchPage(db, f, cursor, limit, walkDates)
  // The customers whose messages the page shows, beside the filters as sent: a search by part of a
  // number ("4263835"), or by text, read whole customers' messages, and the log's party filter
  // found the entry only under the text typed.
  await ctx.logRead({ ...query.sent, rows: page.rows.length, parties: partiesOf(page.rows) })
  const body: SearchResult = {
    total,
    totalCapped: capped,
    rows: page.rows.map((r) => toMessage(r, r.position_base ?? r.ordinal)),
    nextCursor: page.nextCursor,
    freshness: fresh,
    tookMs: Math.round((performance.now() - started) * 10) / 10,
  }
  return { status: 200, body: body }
}

export const thread: Handler<typeof THREAD_QUERY> = async (room, ctx, { query }) => {
  const { db } = room
  const { number, party, before, at, limit } = query
  // The page, the freshness and the opt-out state asked for at once: none needs another's answer,
  // and one after the other each waited its own turn for the database behind every other
  // request's (under 50 searchers, a thread's median answer took half as long again as a search's).
  const [t, fresh, optedOut] = await Promise.all([
    threadPage(db, number, party, before, at ? at.endExclusive : null, limit),
    freshness(db, [number]),
    // With the first page: whether the desk has this customer opted out here, so the thread warns before anyone texts them.
    before ? null : optedOutHere(db, number, party),
  ])
  await ctx.logRead({ number, party, rows: t.rows.length, ...(at ? { at: at.text } : {}) })
  const body: ThreadResult = {
    number,
    party,
    total: t.total,
    firstDate: t.firstDate,
    lastDate: t.lastDate,
    rows: t.rows.map((r) => toMessage(r, r.position_base ?? r.ordinal)),
    nextCursor: t.nextCursor,
    freshness: fresh,
    ...(before ? {} : { optedOut }),
  }
  return { status: 200, body: body }
}

/** The desk's opt-out state of a party on a number (keyed as the desk keys parties), or null. */
async function optedOutHere(db: Db, number: string, party: string): Promise<{ since: string | null } | null> {
  const r = await db.query<{ since: Date | null }>(
    'SELECT opted_out_at AS since FROM desk_threads WHERE number = $1 AND party = $2 AND opted_out',
    [number, partyKey(party)],
  )
  const row = r.rows[0]
  return row ? { since: row.since ? new Date(row.since).toISOString() : null } : null
}

export const parties: Handler<typeof PARTIES_QUERY> = async (room, ctx, { query: { number, party, limit } }) => {
  const { db } = room
  const body: PartiesResult = { number, parties: await partiesOfNumber(db, number, party, limit), freshness: await freshness(db, [number]) }
  // The customers listed (their counts and last dates), beside the digits typed.
  await ctx.logRead({ number, ...(party ? { party } : {}), rows: body.parties.length, parties: body.parties.map((x) => x.party) })
  return { status: 200, body: body }
}

export const stats: Handler<typeof STATS_QUERY> = async (room, ctx, { query: { number, bucket, from, to, tz } }) => {
  const { db } = room
  const body: StatsResult = {
    number,
    bucket,
    timeZone: tz ?? 'UTC',
    buckets: await statsOf(db, number, bucket, from?.start ?? null, to?.endExclusive ?? null, tz).catch((err: unknown) => {
      // A zone this JavaScript knows and the database's time-zone data does not (US/Pacific-New,
      // dropped from tzdata): the request's, not the server's, failure.
      if (tz && (err as { code?: unknown } | null)?.code === '22023' && /time zone/i.test(String((err as Error).message)))
        throw invalid('tz', `tz ${tz} is not a time zone the database knows; use a current IANA name such as America/Los_Angeles.`)
      throw err
    }),
    freshness: await freshness(db, number ? [number] : null),
  }
  // What was read, as the schema parsed it (the data came from these, not from the raw query string).
  await ctx.logRead({
    ...(number ? { number } : {}),
    bucket,
    ...(from ? { from: from.start } : {}),
    ...(to ? { before: to.endExclusive } : {}),
    ...(tz ? { tz } : {}),
  })
  return { status: 200, body: body }
}

export const message: Handler<typeof MESSAGE_QUERY> = async (room, ctx, { query: { number, ordinal } }) => {
  const { db } = room
  const row = await messageAt(db, number, ordinal)
  if (!row) throw new ProxyError(404, { kind: 'not_found', message: `The index holds no message ${ordinal} for ${number}.` })
  // The customer as the index keys them (the row has no `party`: it was logged as null, and the log's party filter missed the read).
  await ctx.logRead({ number, ordinal, party: partyOfRow(row) })
  const bases = await positionBases(db, [number])
  const body: MessageResult = {
    message: toMessage(row, bases.get(number) ?? row.ordinal),
    total: await indexedCount(db, number),
    freshness: await freshness(db, [number]),
  }
  return { status: 200, body: body }
}

export const locate: Handler<typeof LOCATE_QUERY> = async (room, ctx, { query: { number, date } }) => {
  const { db } = room
  const row = await locateMessage(db, number, date.day?.endExclusive ?? '')
  await ctx.logRead({ number, date: date.text, ...(row ? { ordinal: row.ordinal, party: partyOfRow(row) } : {}) })
  const bases = await positionBases(db, [number])
  const body: LocateResult = {
    message: row ? toMessage(row, bases.get(number) ?? row.ordinal) : null,
    total: await indexedCount(db, number),
    freshness: await freshness(db, [number]),
  }
  return { status: 200, body: body }
}

export const exportMessages: StreamHandler<typeof EXPORT_QUERY> = async (room, req, res, ctx, { query }) => {
  const { bulk, exportGate, log } = room
  const who = ctx.principal?.name ?? ''
  let job: ExportJobHooks | undefined
  try {
    job = query.job === undefined ? undefined : room.exports.begin(who, query.job)
  } catch (err) {
    // Cancelled in the tray before this request arrived: refused having read nothing, and the
    // cancel logged now, under the export's own action and filters, which the cancel did not know.
    if (err instanceof CancelledBeforeStart) {
      const asked = readOrNull(query.read)
      // Nothing was read: a cancel the log cannot hold is still a cancel (its failure is in the server log).
      if (asked)
        await ctx
          .audit(`${exportActionOf(asked.filters)}.cancel`, {
            what: Object.fromEntries(asked.params),
            job: query.job,
            rows: 0,
            started: false,
          })
          .catch(() => undefined)
    }
    throw err
  }
  try {
    await streamExport(bulk, req, res, {
      ...query.read(),
      logStart: (d, action) => ctx.logRead(d, action),
      // The export's end: its rows have gone out and its start's entry holds the read, so a lost end is a server log line.
      audit: (action, details) => void ctx.audit(action, details).catch(() => undefined),
      log,
      gate: exportGate,
      who,
      job,
    })
  } catch (err) {
    // A refusal before the stream (a bad filter, an unknown zone) reaches the tray as well as the
    // download, which the browser shows only as "failed". streamExport ends the record itself
    // for what it runs into; a second end is ignored.
    endFailed(job, err)
    throw err
  }
}

export const exportProgress: Handler<typeof EXPORT_PROGRESS_QUERY> = async (room, ctx, { query }) => {
  return { status: 200, body: room.exports.get(ctx.principal?.name ?? '', query.job) satisfies IndexAnswer<'exportProgress'> }
}

export const exportCancel: Handler<typeof NO_QUERY, typeof EXPORT_CANCEL_BODY> = async (room, ctx, { body }) => {
  const { record, logged } = room.exports.cancel(ctx.principal?.name ?? '', body.job)
  // One not begun yet is logged by its request when it arrives (it names what it would have read).
  // A cancel takes nothing away that the log must hold first; its failure is in the server log.
  if (logged) await ctx.audit(`${logged.action}.cancel`, { ...logged.what, job: body.job, rows: record.rows }).catch(() => undefined)
  return { status: 200, body: record satisfies IndexAnswer<'exportCancel'> }
}

export const forget: Handler<typeof NO_QUERY, typeof FORGET_BODY> = async (room, ctx, { body: number }) => {
  const { db, syncer, log } = room
  // The entry first, with what the index holds now: a forget the log cannot record does not happen.
  const keys = number === null ? null : await keysOf(db, number)
  const held = await indexedMessages(db, keys)
  await ctx.audit('index.forget', number ? { number, messages: held } : { all: true, messages: held })
  // A running sync would write rows back after the delete: stop it (and its further lines') first.
  if (keys === null) await syncer.stop()
  else for (const key of keys) await syncer.stop(key)
  const forgotten = await forgetMessages(db, number, room.hooks)
  log(`index: forgot ${forgotten} messages (${number ?? 'all numbers'})`)
  return { status: 200, body: { forgotten } satisfies IndexAnswer<'forget'> }
}

/** The row's customer as the index keys parties (contract/desk partyKey of its phone), or null. */
function partyOfRow(row: MessageRow): string | null {
  return row.phone ? partyKey(row.phone) || null : null
}

/** The distinct customers of a page of rows, in their order. */
function partiesOf(rows: readonly MessageRow[]): string[] {
  return [...new Set(rows.flatMap((r) => partyOfRow(r) ?? []))]
}

/** The export's filters, or null when they are not valid (its request is refused for them anyway). */
function readOrNull<T>(read: () => T): T | null {
  try {
    return read()
  } catch {
    return null
  }
}
