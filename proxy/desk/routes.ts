import type { IncomingMessage, ServerResponse } from 'node:http'
import { DEFAULT_THRESHOLD_MS } from '../../contract/desk/needs-reply.ts'
import { partyForms, partyKey } from '../../contract/desk/messages.ts'
import { localTime } from '../../contract/desk/quiet-hours.ts'
import type { Db } from '../db/types.ts'
import { ProxyError, invalid } from '../errors.ts'
import { BOM, csvRow } from '../../contract/csv.ts'
import { fitFileName } from '../../contract/file-name.ts'
import { DESK_EXPORT_ACTIONS, type DeskExportAction } from '../../contract/index-api.ts'
import { readJsonBody, SECURITY_HEADERS, sendError, sendJson } from '../http.ts'
import { EXPORT_STALL_MS, ExportRefused, type ExportGate, type ExportTicket } from '../exports/gate.ts'
import { CancelledBeforeStart, endFailed, JOB_ID, type ExportJobHooks, type ExportTracker } from '../exports/progress.ts'
import { turnOf } from '../exports/turn.ts'
import { zoneFormatter } from '../exports/zone-cells.ts'
import { cellOf, streamedXlsx } from '../exports/xlsx.ts'
import type { RequestContext, RouteSpec } from '../http-types.ts'
import { names, NO_QUERY, param, query } from '../schema.ts'
import { dateParam, digitsParam, INT4_MAX, limitParam, numberParam, readParams, zoneValue } from '../kernel/params.ts'
import { BODY_OF } from '../kernel/stored-messages.ts'
import { flushDesk, refreshDesk } from './refresh.ts'
import { partiesShown, partyCollector, type PartiesShown } from '../log-parties.ts'
import { sentAfterBatch, sentAfterCount, sentAfterPage, type SentRow } from './sent-after.ts'

/**
 * The support desk's routes: reads of the desk tables that refreshDesk keeps during sync. Every
 * answer shows customer data, so each route declares its access-log action and records the read
 * before answering. Messages' text comes from index_messages by (number, ordinal), so a message
 * forgotten since the last refresh is not shown.
 */

const MAX_THRESHOLD_MINUTES = 60 * 24 * 365

const optionalNumber = (p: Map<string, string>) => (p.has('number') ? numberParam(p) : null)

/** `at`: the instant the queue is judged at (ISO 8601 with a zone), now by default. */
function atParam(p: Map<string, string>): Date {
  const at = dateParam(p, 'at')
  if (!at) return new Date()
  if (at.isDay) throw invalid('at', 'at must be an ISO 8601 timestamp with a zone (2026-11-21T12:04:00Z), not a day.')
  return new Date(at.start)
}

/** The team's threshold (desk_settings), or the default when no admin has set one. */
async function teamThreshold(db: Db): Promise<{ thresholdMinutes: number; updatedAt: string | null; updatedBy: string | null }> {
  const r = await db.query<{ threshold_minutes: number; updated_at: Date; updated_by: string }>(
    'SELECT threshold_minutes, updated_at, updated_by FROM desk_settings WHERE id = 1',
  )
  const row = r.rows[0]
  return row
    ? { thresholdMinutes: row.threshold_minutes, updatedAt: iso(row.updated_at), updatedBy: row.updated_by }
    : { thresholdMinutes: DEFAULT_THRESHOLD_MS / 60_000, updatedAt: null, updatedBy: null }
}

async function thresholdParam(p: Map<string, string>, db: Db): Promise<number> {
  const v = p.get('thresholdMinutes')
  if (v === undefined || v === '') return (await teamThreshold(db)).thresholdMinutes
  if (!/^\d{1,6}$/.test(v) || Number(v) > MAX_THRESHOLD_MINUTES)
    throw invalid('thresholdMinutes', `thresholdMinutes must be a whole number of minutes from 0 to ${MAX_THRESHOLD_MINUTES}.`)
  return Number(v)
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

/**
 * Numbers the index holds messages of. Forget should delete the desk's rows too (forgetDesk);
 * until it does, a forgotten number's desk rows are never shown.
 */
const HELD = `SELECT number FROM index_numbers WHERE indexed > 0`

const BODY = BODY_OF('m')

type QueueRow = {
  number: string
  party: string
  waiting_since: Date
  unanswered: number
  last_inbound_at: Date | null
  last_inbound_ordinal: number | null
  body: string | null
  handled_at: Date | null
  handled_by: string | null
  opted_out: boolean
  total: number
}

/**
 * The waiting threads due at `at`, longest wait first (the queue page and its export), from just
 * after `after` (the last row of the batch before: keyset over the order, so the export reads the
 * queue in batches however long it is).
 */
async function queueRows(
  db: Db,
  number: string | null,
  threshold: number,
  at: Date,
  limit: number,
  batch: { after: Pick<QueueRow, 'waiting_since' | 'number' | 'party'> | null } | null = null,
) {
  const due = new Date(at.getTime() - threshold * 60_000)
  const after = batch?.after ?? null
  // The page's total comes with its rows; an export's batches leave it out, since a window count
  // would read every remaining row of the queue for each batch.
  const total = batch ? '0' : 'count(*) OVER ()::int'
  const r = await db.query<QueueRow>(
    `SELECT t.number, t.party, t.waiting_since, t.unanswered, t.last_inbound_at, t.last_inbound_ordinal, ${BODY} AS body,
            h.handled_at, h.handled_by, t.opted_out, ${total} AS total
       FROM desk_threads t
       JOIN index_messages m ON m.number = t.number AND m.ordinal = t.last_inbound_ordinal
       LEFT JOIN desk_handled h ON h.number = t.number AND h.party = t.party
      WHERE t.waiting_since IS NOT NULL AND t.waiting_since <= $1 AND ($2::text IS NULL OR t.number = $2)
        AND ($4::timestamptz IS NULL OR (t.waiting_since >= $4 AND (t.waiting_since, t.number, t.party) > ($4, $5, $6)))
      ORDER BY t.waiting_since, t.number, t.party
      LIMIT $3`,
    [due, number, limit, after?.waiting_since ?? null, after?.number ?? null, after?.party ?? null],
  )
  return r.rows
}

/** How many threads are due at `at` (the export's row count, for its header and file name). */
async function queueCount(db: Db, number: string | null, threshold: number, at: Date): Promise<number> {
  const due = new Date(at.getTime() - threshold * 60_000)
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM desk_threads t
       JOIN index_messages m ON m.number = t.number AND m.ordinal = t.last_inbound_ordinal
      WHERE t.waiting_since IS NOT NULL AND t.waiting_since <= $1 AND ($2::text IS NULL OR t.number = $2)`,
    [due, number],
  )
  return r.rows[0]?.n ?? 0
}

async function needsReplyRoute(_req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db) {
  const p = readParams(url, ['number', 'thresholdMinutes', 'at', 'limit'])
  const number = optionalNumber(p)
  const threshold = await thresholdParam(p, db)
  const at = atParam(p)
  const limit = limitParam(p, 100)
  const rows = await queueRows(db, number, threshold, at, limit)
  // `at` when the request named one (a queue as it stood then): the entry says which queue was read.
  await ctx.logRead({
    ...(number ? { number } : {}),
    ...(p.get('at') ? { at: at.toISOString() } : {}),
    thresholdMinutes: threshold,
    rows: rows.length,
    ...partiesShown(rows.map((x) => x.party)),
  })
  sendJson(res, 200, {
    at: at.toISOString(),
    thresholdMinutes: threshold,
    total: rows[0]?.total ?? 0,
    rows: rows.map((x) => ({
      number: x.number,
      party: x.party,
      since: iso(x.waiting_since),
      waitedMs: at.getTime() - new Date(x.waiting_since).getTime(),
      unanswered: x.unanswered,
      lastInbound: { ordinal: x.last_inbound_ordinal, date: iso(x.last_inbound_at), body: x.body },
      handled: x.handled_at ? { at: iso(x.handled_at), by: x.handled_by } : null,
      // Asked, then opted out: the answer is a call or an email, not a text.
      optedOut: x.opted_out,
    })),
  })
}

/**
 * How many customers wait now, for the navigation's badge: a count only, no party, number or text,
 * so it reads no customer data and leaves no access-log entry (the badge asks every minute on
 * every open page; the queue itself, `needs-reply`, is logged as a read).
 */
async function needsReplyCountRoute(_req: IncomingMessage, res: ServerResponse, url: URL, _ctx: RequestContext, db: Db) {
  const p = readParams(url, ['number'])
  const number = optionalNumber(p)
  const threshold = await thresholdParam(p, db)
  const at = new Date()
  sendJson(res, 200, { at: at.toISOString(), thresholdMinutes: threshold, total: await queueCount(db, number, threshold, at) })
}

const QUEUE_CSV_HEADER = [
  'customer',
  'number',
  'waiting_since',
  'waited_minutes',
  'unanswered',
  'last_inbound_at',
  'last_inbound_text',
  'opted_out',
]

/**
 * `tz`, the zone the page shows its dates in (an IANA name; the app sends it): each date column's
 * time on that zone's clock (`YYYY-MM-DD HH:MM:SS`, as the message exports' date_local), in
 * columns of their own at the end of the row, so the UTC columns keep their places. The page
 * said "since Nov 13, 6:41 PM" and the file only 2026-11-14T02:41Z. Without `tz`, none.
 */
function localColumns(p: { get(name: string): string | null | undefined }, dates: readonly string[]) {
  // Checked as every other export's tz is (zoneValue), by the route's schema before the export waits its turn.
  const tz = zoneValue('tz', p.get('tz') ?? undefined)
  if (tz === null) return { header: [] as string[], cells: (..._: Array<Date | string | null>) => [] as string[] }
  const local = zoneFormatter(tz)
  return {
    header: dates.map((d) => `${d}_local (${tz})`),
    cells: (...values: Array<Date | string | null>) => values.map((v) => (v === null ? '' : local(new Date(v).getTime()))),
  }
}

/** A desk export's parameters: these names, and `tz` checked as a zone (localColumns). */
const exportQuery = (...keys: string[]) =>
  query({
    ...Object.fromEntries(keys.map((k) => [k, param((v) => v)])),
    tz: param((v) => zoneValue('tz', v)),
    format: param((v) => deskFormat(v)),
  })

/** A desk export's file: CSV (the default) or .xlsx, the same columns either way. */
type DeskFormat = 'csv' | 'xlsx'
function deskFormat(v: string | null | undefined): DeskFormat {
  if (v === undefined || v === null || v === '' || v === 'csv') return 'csv'
  if (v === 'xlsx') return 'xlsx'
  throw invalid('format', 'format must be csv or xlsx.')
}

/** The whole queue as CSV (the page shows the longest waits only), in keyset batches, every cell through contract/csv's guard. */
async function needsReplyExportRoute(_req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db, job: Job) {
  const p = readParams(url, ['number', 'thresholdMinutes', 'at', 'tz', 'job', 'format'])
  const format = deskFormat(p.get('format'))
  const local = localColumns(p, ['waiting_since', 'last_inbound_at'])
  const number = optionalNumber(p)
  const threshold = await thresholdParam(p, db)
  const at = atParam(p)
  const rows = await queueCount(db, number, threshold, at)
  // `at` when the request named one, as the page's read logs it: the queue as it stood then.
  const what = { ...(number ? { number } : {}), ...(p.get('at') ? { at: at.toISOString() } : {}), thresholdMinutes: threshold }
  await ctx.logRead({ ...what, rows, export: format })
  // Dated by the instant the queue is judged at (now, unless the request names another).
  const name = deskFileName('needs-reply', [number ?? 'all-numbers'], rows, at, format)
  await streamCsv<QueueRow>(
    res,
    name,
    rows,
    [...QUEUE_CSV_HEADER, ...local.header],
    (after) => queueRows(db, number, threshold, at, DESK_EXPORT.batch, { after }),
    (x) => [
      x.party,
      x.number,
      iso(x.waiting_since),
      Math.floor((at.getTime() - new Date(x.waiting_since).getTime()) / 60_000),
      x.unanswered,
      iso(x.last_inbound_at),
      x.body ?? '',
      x.opted_out ? 'yes' : 'no',
      ...local.cells(x.waiting_since, x.last_inbound_at),
    ],
    (result) => exportDone(ctx, 'needs-reply', what, result, format),
    job,
    format,
  )
}

/** A mark's number and party as sent (the party's digits as typed), each checked and named when wrong. */
function threadOf(body: Record<string, unknown>): { number: string; typed: string } {
  if (typeof body.number !== 'string' || !/^\+?\d{6,15}$/.test(body.number))
    throw invalid('number', 'number is required: the account number, 6 to 15 digits.')
  if (typeof body.party !== 'string' || body.party.length > 64 || !/^\d{1,15}$/.test(body.party.replace(/\D/g, '')))
    throw invalid('party', 'party is required: the customer’s phone number (at most 15 digits).')
  return { number: body.number.replace(/^\+/, ''), typed: body.party.replace(/\D/g, '') }
}

async function handledRoute(req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db) {
  readParams(url, [])
  const body = await readJsonBody(req)
  for (const k of Object.keys(body))
    if (k !== 'number' && k !== 'party' && k !== 'through')
      throw invalid(k.slice(0, 40), `Unknown field "${k.slice(0, 40)}": send number, party and through.`)
  const { number, typed } = threadOf(body)
  const through = body.through
  // Ordinals are PostgreSQL integers: a larger one failed in the database as a 500.
  if (
    through !== undefined &&
    through !== null &&
    (typeof through !== 'number' || !Number.isSafeInteger(through) || through < 1 || through > INT4_MAX)
  )
    throw invalid(
      'through',
      `through, when sent, is the ordinal of the newest message from the customer that was seen: a whole number from 1 to ${INT4_MAX}.`,
    )
  // The thread as the index keys it (contract/desk partyKey), whichever way the party was typed.
  const known = await db.query<{ party: string }>('SELECT party FROM desk_threads WHERE number = $1 AND party = $2', [
    number,
    partyKey(typed),
  ])
  const party = known.rows[0]?.party
  if (!party)
    throw new ProxyError(404, { kind: 'not_found', field: 'party', message: `The index holds no conversation of ${number} with ${typed}.` })
  // Handled up to the message the person saw: one from this customer on this number.
  let seen: { date: Date; ordinal: number } | null = null
  if (typeof through === 'number') {
    const m = await db.query<{ date: Date; ordinal: number }>(
      'SELECT date, ordinal FROM index_messages WHERE number = $1 AND party_digits = $2 AND ordinal = $3 AND desk_inbound',
      [number, party, through],
    )
    seen = m.rows[0] ?? null
    if (!seen)
      throw new ProxyError(404, {
        kind: 'not_found',
        field: 'through',
        message: `The index holds no message ${through} from ${typed} on ${number}.`,
      })
  }
  const by = ctx.principal?.name ?? 'unknown'
  // The entry first: a mark the access log cannot record is not made.
  await ctx.audit('needs-reply.handled', { number, party, ...(seen ? { through: seen.ordinal } : {}) })
  // The mark it replaces is kept for an undo (one step back).
  const r = await db.query<{ handled_at: Date }>(
    `INSERT INTO desk_handled (number, party, handled_at, handled_by, through_date, through_ordinal) VALUES ($1, $2, now(), $3, $4, $5)
     ON CONFLICT (number, party) DO UPDATE SET handled_at = now(), handled_by = $3, through_date = $4, through_ordinal = $5,
       prev = jsonb_build_object('handled_at', desk_handled.handled_at, 'handled_by', desk_handled.handled_by,
                                 'through_date', desk_handled.through_date, 'through_ordinal', desk_handled.through_ordinal,
                                 -- Whether a mark came before that one: an undo that puts it back knows whether it may be undone in turn.
                                 'prev', CASE WHEN desk_handled.prev IS NULL OR desk_handled.prev = 'null'::jsonb THEN NULL
                                              ELSE '{"undone": true}'::jsonb END)
     RETURNING handled_at`,
    [number, party, by, seen?.date ?? null, seen?.ordinal ?? null],
  )
  await refreshDesk(db, number, [party])
  sendJson(res, 200, { number, party, handledAt: iso(r.rows[0]!.handled_at), handledBy: by })
}

/**
 * Undoes a "mark handled": the mark made at `handledAt` is replaced by the one it replaced, or
 * removed when there was none, and the thread's wait worked out again. A mark made since (by
 * anyone) is not undone by an older undo: 409.
 */
async function unhandledRoute(req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db) {
  readParams(url, [])
  const body = await readJsonBody(req)
  for (const k of Object.keys(body))
    if (k !== 'number' && k !== 'party' && k !== 'handledAt')
      throw invalid(k.slice(0, 40), `Unknown field "${k.slice(0, 40)}": send number, party and handledAt.`)
  const { number, typed } = threadOf(body)
  const at = typeof body.handledAt === 'string' && body.handledAt.length <= 40 ? Date.parse(body.handledAt) : Number.NaN
  if (!Number.isFinite(at)) throw invalid('handledAt', 'handledAt is required: the time of the mark to undo, as the mark gave it.')
  const party = partyKey(typed)
  // What the undo would do, read first: a refused undo is not logged, and one the log cannot
  // record is not done. The transaction checks again under its lock.
  const decide = async (q: Pick<Db, 'query'>, lock: boolean) => {
    const cur = await q.query<{ handled_at: Date; prev: Record<string, unknown> | string | null }>(
      `SELECT handled_at, prev FROM desk_handled WHERE number = $1 AND party = $2${lock ? ' FOR UPDATE' : ''}`,
      [number, party],
    )
    const row = cur.rows[0]
    if (!row) return { state: 'none' as const }
    // Compared to the millisecond the answer gave (the stored time has microseconds).
    if (Math.floor(new Date(row.handled_at).getTime()) !== at) return { state: 'newer' as const }
    const prev = typeof row.prev === 'string' ? (JSON.parse(row.prev) as Record<string, unknown>) : row.prev
    // A mark an undo put back, when another came before it, does not know that one: it is not undone
    // again (deleting it would drop the older mark). One that had none before it may be.
    if (prev?.undone === true) return { state: 'put-back' as const }
    return { state: 'undo' as const, prev }
  }
  const preview = await decide(db, false)
  if (preview.state === 'undo') await ctx.audit('needs-reply.unhandled', { number, party, restored: preview.prev !== null })
  const done = await db.transaction(async (tx) => {
    const decided = preview.state === 'undo' ? await decide(tx, true) : preview
    if (decided.state !== 'undo') return decided.state
    const { prev } = decided
    if (!prev) await tx.query('DELETE FROM desk_handled WHERE number = $1 AND party = $2', [number, party])
    else
      await tx.query(
        `UPDATE desk_handled SET handled_at = ($3::jsonb->>'handled_at')::timestamptz, handled_by = $3::jsonb->>'handled_by',
           through_date = ($3::jsonb->>'through_date')::timestamptz, through_ordinal = ($3::jsonb->>'through_ordinal')::int,
           prev = NULLIF($3::jsonb->'prev', 'null'::jsonb)
         WHERE number = $1 AND party = $2`,
        [number, party, JSON.stringify(prev)],
      )
    return prev ? ('restored' as const) : ('removed' as const)
  })
  if (done === 'none')
    throw new ProxyError(404, { kind: 'not_found', field: 'party', message: `No mark of ${party} on ${number} is there to undo.` })
  if (done === 'put-back')
    throw new ProxyError(409, {
      kind: 'invalid_request',
      field: 'handledAt',
      message: 'This mark was put back by an undo: only the last mark can be undone, one step back.',
    })
  if (done === 'newer')
    throw new ProxyError(409, {
      kind: 'invalid_request',
      field: 'handledAt',
      message: 'This conversation was marked again since: that newer mark stays.',
    })
  await refreshDesk(db, number, [party])
  sendJson(res, 200, { number, party, restored: done === 'restored' })
}

async function settingsRoute(_req: IncomingMessage, res: ServerResponse, url: URL, _ctx: RequestContext, db: Db) {
  readParams(url, [])
  sendJson(res, 200, await teamThreshold(db))
}

/** An admin sets the team's needs-reply threshold; every field is checked and named when wrong. */
async function saveSettingsRoute(req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db) {
  readParams(url, [])
  const body = await readJsonBody(req)
  for (const k of Object.keys(body))
    if (k !== 'thresholdMinutes') throw invalid(k.slice(0, 40), `Unknown field "${k.slice(0, 40)}": send thresholdMinutes.`)
  const v = body.thresholdMinutes
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_THRESHOLD_MINUTES)
    throw invalid('thresholdMinutes', `thresholdMinutes must be a whole number of minutes from 0 to ${MAX_THRESHOLD_MINUTES}.`)
  const by = ctx.principal?.name ?? 'unknown'
  // The threshold it replaces goes into the entry too (the default when none was set); the entry
  // is stored first, and a change the log cannot record is not made.
  const was = await db.query<{ was: number | null }>(`SELECT threshold_minutes AS was FROM desk_settings WHERE id = 1`)
  await ctx.audit('needs-reply.settings', { thresholdMinutes: v, was: was.rows[0]?.was ?? DEFAULT_THRESHOLD_MS / 60_000 })
  await db.query(
    `INSERT INTO desk_settings (id, threshold_minutes, updated_at, updated_by) VALUES (1, $1, now(), $2)
     ON CONFLICT (id) DO UPDATE SET threshold_minutes = $1, updated_at = now(), updated_by = $2`,
    [v, by],
  )
  sendJson(res, 200, await teamThreshold(db))
}

type OptRow = {
  number: string
  party: string
  opted_out: boolean
  opted_out_at: Date | null
  opt_history: Array<{ state: string; ordinal: number; date: string }>
  sent_after: number
  total: number
}

function stateParam(p: Map<string, string>): string {
  const state = p.get('state') || 'all'
  if (state !== 'all' && state !== 'opted-out' && state !== 'opted-in')
    throw invalid('state', 'state must be all, opted-out (still out) or opted-in (back in).')
  return state
}

const LEDGER_WHERE = `opt_history <> '[]' AND ($1::text IS NULL OR number = $1) AND number IN (${HELD})
        AND ($2 = 'all' OR ($2 = 'opted-out') = opted_out)`

async function optOutsRoute(_req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db) {
  const p = readParams(url, ['number', 'state', 'limit', 'offset'])
  const number = optionalNumber(p)
  const state = stateParam(p)
  const limit = limitParam(p, 100)
  const offset = offsetParam(p)
  const r = await db.query<OptRow>(
    `SELECT number, party, opted_out, opted_out_at, opt_history, sent_after, count(*) OVER ()::int AS total
       FROM desk_threads
      WHERE ${LEDGER_WHERE}
      ORDER BY opted_out DESC, opted_out_at DESC NULLS LAST, number, party
      LIMIT $3 OFFSET $4`,
    [number, state, limit, offset],
  )
  const sums = await db.query<{ opted_out: number; opted_in: number; sent_after: number }>(
    `SELECT count(*) FILTER (WHERE opted_out)::int AS opted_out, count(*) FILTER (WHERE NOT opted_out)::int AS opted_in,
            COALESCE(sum(sent_after), 0)::int AS sent_after
       FROM desk_threads WHERE opt_history <> '[]' AND ($1::text IS NULL OR number = $1) AND number IN (${HELD})`,
    [number],
  )
  await ctx.logRead({ ...(number ? { number } : {}), state, rows: r.rows.length, ...partiesShown(r.rows.map((x) => x.party)) })
  sendJson(res, 200, {
    optedOut: sums.rows[0]?.opted_out ?? 0,
    optedBackIn: sums.rows[0]?.opted_in ?? 0,
    sentAfter: sums.rows[0]?.sent_after ?? 0,
    total: r.rows[0]?.total ?? 0,
    rows: r.rows.map((x) => ({
      number: x.number,
      party: x.party,
      optedOut: x.opted_out,
      since: iso(x.opted_out_at),
      history: x.opt_history,
      sentAfter: x.sent_after,
    })),
  })
}

async function sentAfterRoute(_req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db) {
  const p = readParams(url, ['number', 'party', 'limit', 'offset'])
  const number = optionalNumber(p)
  const party = digitsParam(p, 'party', false)
  const limit = limitParam(p, 100)
  const offset = offsetParam(p)
  const scope = { number, keys: party ? partyForms(party) : null }
  const rows = await sentAfterPage(db, scope, limit, offset)
  const total = await sentAfterCount(db, scope)
  await ctx.logRead({
    ...(number ? { number } : {}),
    ...(party ? { party } : {}),
    rows: rows.length,
    ...partiesShown(rows.map((x) => x.party)),
  })
  sendJson(res, 200, {
    total,
    rows: rows.map((x) => ({
      number: x.number,
      party: x.party,
      message: { ordinal: x.ordinal, date: iso(x.date), body: x.body, status: x.status, failed: x.failed },
      optOut: { ordinal: x.opt_ordinal, date: iso(x.opt_date), body: x.opt_body },
      afterMs: Number(x.after_ms),
    })),
  })
}

/**
 * Rows per keyset batch of the desk's CSV exports: memory stays flat however long the report is.
 * An object so the tests can lower it and cross batch boundaries with the demo's few rows.
 */
export const DESK_EXPORT = { batch: 1000 }

/**
 * Streams a CSV download: the header, then batches from `next` (called with the last row of the
 * batch before, null first) until one comes back short, waiting for the socket to drain and
 * stopping when the client goes away. Every cell goes through contract/csv's formula guard.
 * `done` hears the rows written and whether the client took them all, also when a batch fails
 * (then what went out before it), so the access log says how far an export got. `job`, when the
 * tray gave the export an id: its progress record (rows and bytes written, of how many, the file's
 * name) and its Cancel, which cuts the download as the index's exports do.
 */
/** How an export ended: the rows that went out, whether all did, and the customers they showed. */
type ExportResult = { rows: number; complete: boolean } & PartiesShown

async function streamCsv<T extends { party: string }>(
  res: ServerResponse,
  fileName: string,
  rows: number,
  header: readonly string[],
  next: (after: T | null) => Promise<T[]>,
  cells: (row: T) => readonly unknown[],
  done: (result: ExportResult) => void,
  job: Job,
  format: DeskFormat = 'csv',
): Promise<void> {
  // The customers sent, for the closing entry: filtering the log by one finds the export.
  const sent = partyCollector()
  let gone = res.destroyed
  res.on('close', () => {
    if (!res.writableFinished) gone = true
  })
  // Cancel in the tray: the download is cut, so the browser's copy ends unfinished rather than looking whole.
  const onCancel = () => {
    gone = true
    res.destroy()
  }
  // Cancelled while it counted (after its turn, before the first byte): nothing is sent.
  if (job?.signal.aborted) {
    done({ rows: 0, complete: false, parties: [] })
    job.end({ state: 'cancelled', by: 'you' })
    sendError(res, new CancelledBeforeStart())
    return
  }
  job?.signal.addEventListener('abort', onCancel, { once: true })
  job?.update({ total: rows, fileName })
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'content-disposition': `attachment; filename="${fileName}"`,
    'cache-control': 'no-store',
    'x-row-count': String(rows),
  })
  let bytes = 0
  const write = async (chunk: string | Uint8Array) => {
    if (gone) return
    bytes += Buffer.byteLength(chunk)
    if (res.write(chunk)) return
    await new Promise<void>((ok) => {
      // A reader that stops taking the file holds an export turn: past the limit it is cut and
      // the turn freed, and the closing entry says how many rows went.
      const stalled = setTimeout(() => {
        gone = true
        res.destroy()
      }, EXPORT_STALL_MS)
      const done = () => {
        clearTimeout(stalled)
        res.off('drain', done)
        res.off('close', done)
        ok()
      }
      res.on('drain', done)
      res.on('close', done)
    })
  }
  let written = 0
  let failed = false
  try {
    // The same columns as a sheet: ids and phones as text, the ISO dates as date cells (cellOf).
    const sheet =
      format === 'xlsx'
        ? streamedXlsx({ sheet: fileName.replace(/^switchboard-/, ''), columns: header.map((name) => ({ name })) }, write)
        : null
    if (!sheet) await write(BOM + csvRow(header))
    let last: T | null = null
    for (;;) {
      const batch = await next(last)
      if (sheet) {
        for (const r of batch) sheet.row(cells(r).map(cellOf))
        await sheet.batchDone()
      } else if (batch.length) await write(batch.map((r) => csvRow(cells(r))).join(''))
      if (!gone) {
        written += batch.length
        for (const r of batch) sent.add(r.party)
      }
      job?.update({ rows: written, bytes })
      if (batch.length < DESK_EXPORT.batch || gone) break
      last = batch[batch.length - 1]!
    }
    // A sheet cut short gets no closing parts, so it does not open as if whole.
    if (sheet && !gone) await sheet.end()
  } catch (err) {
    failed = true
    throw err
  } finally {
    job?.signal.removeEventListener('abort', onCancel)
    done({ rows: written, complete: !gone && !failed, ...sent.shown() })
  }
  // A failure is recorded by the caller, with its reason (deskRoutes).
  job?.end(gone ? { state: 'cancelled', by: job.signal.aborted ? 'you' : 'browser' } : { state: 'done' })
  res.end()
}

/** `switchboard-needs-reply-18323232323-12-rows-2026-11-24.csv`: contract/file-name.ts's shape, as the index export names its files. */
type DeskReport = 'needs-reply' | 'opt-outs' | 'sent-after-opt-out' | 'quiet-hours'

export function deskFileName(
  report: DeskReport,
  [scope = 'all-numbers', ...filters]: string[],
  rows: number,
  now = new Date(),
  ext: DeskFormat = 'csv',
): string {
  return fitFileName({ subject: report, scope, filters, rows, ext, date: now })
}

/**
 * The export's second access-log entry, as the index export writes it: what was asked for and
 * how many rows went out, and whether the client took them all (the read entry before it holds
 * the count there was to send).
 */
function exportDone(ctx: RequestContext, report: DeskReport, filters: Record<string, unknown>, result: ExportResult, format: DeskFormat) {
  // The rows have gone out: the start's entry holds the read; a lost end is in the server log.
  void ctx.audit(`${report}.export.done`, { ...filters, format, ...result }).catch(() => undefined)
}

const SENT_CSV_HEADER = [
  'number',
  'customer',
  'opt_out_at',
  'opt_out_text',
  'sent_at',
  'sent_text',
  'status',
  'failed',
  'minutes_after_opt_out',
  'opt_out_ordinal',
  'sent_ordinal',
]

/** Every send after opt-out, with both messages, newest first as on the page: keyset batches (sent-after.ts). */
async function sentAfterExportRoute(_req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db, job: Job) {
  const p = readParams(url, ['number', 'party', 'tz', 'job', 'format'])
  const format = deskFormat(p.get('format'))
  const local = localColumns(p, ['opt_out_at', 'sent_at'])
  const number = optionalNumber(p)
  const party = digitsParam(p, 'party', false)
  const scope = { number, keys: party ? partyForms(party) : null }
  const rows = await sentAfterCount(db, scope)
  const what = { ...(number ? { number } : {}), ...(party ? { party } : {}) }
  await ctx.logRead({ ...what, rows, export: format })
  const name = deskFileName('sent-after-opt-out', [number ?? 'all-numbers', ...(party ? [`party-${party}`] : [])], rows, undefined, format)
  await streamCsv<SentRow>(
    res,
    name,
    rows,
    [...SENT_CSV_HEADER, ...local.header],
    (after) => sentAfterBatch(db, scope, after, DESK_EXPORT.batch),
    (x) => [
      x.number,
      x.party,
      iso(x.opt_date),
      x.opt_body ?? '',
      iso(x.date),
      x.body ?? '',
      x.status ?? '',
      x.failed ? 'yes' : 'no',
      Math.floor(Number(x.after_ms) / 60_000),
      x.opt_ordinal,
      x.ordinal,
      ...local.cells(x.opt_date, x.date),
    ],
    (result) => exportDone(ctx, 'sent-after-opt-out', what, result, format),
    job,
    format,
  )
}

const LEDGER_CSV_HEADER = ['number', 'customer', 'state', 'opted_out_since', 'sent_after_opt_out', 'history']

/** The whole opt-out ledger (the page shows 500 rows), by number and customer: keyset batches over the primary key. */
async function optOutsExportRoute(_req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db, job: Job) {
  const p = readParams(url, ['number', 'state', 'tz', 'job', 'format'])
  const format = deskFormat(p.get('format'))
  const local = localColumns(p, ['opted_out_since'])
  const number = optionalNumber(p)
  const state = stateParam(p)
  const total = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM desk_threads WHERE ${LEDGER_WHERE}`, [number, state])
  const rows = total.rows[0]?.n ?? 0
  const what = { ...(number ? { number } : {}), state }
  await ctx.logRead({ ...what, rows, export: format })
  const name = deskFileName('opt-outs', [number ?? 'all-numbers', state], rows, undefined, format)
  await streamCsv<OptRow>(
    res,
    name,
    rows,
    [...LEDGER_CSV_HEADER, ...local.header],
    async (after) => {
      const r = await db.query<OptRow>(
        `SELECT number, party, opted_out, opted_out_at, opt_history, sent_after, 0 AS total
           FROM desk_threads
          WHERE ${LEDGER_WHERE} AND ($3::text IS NULL OR (number, party) > ($3, $4))
          ORDER BY number, party LIMIT $5`,
        [number, state, after?.number ?? null, after?.party ?? null, DESK_EXPORT.batch],
      )
      return r.rows
    },
    (x) => [
      x.number,
      x.party,
      x.opted_out ? 'opted-out' : 'opted-in',
      iso(x.opted_out_at),
      x.sent_after,
      x.opt_history.map((h) => `${h.state} ${iso(h.date)}`).join('; '),
      ...local.cells(x.opted_out_at),
    ],
    (result) => exportDone(ctx, 'opt-outs', what, result, format),
    job,
    format,
  )
}

type CustomerRow = {
  number: string
  party: string
  first_at: Date
  last_at: Date
  inbound: number
  outbound: number
  failed: number
  waiting_since: Date | null
  unanswered: number
  opted_out: boolean
  opted_out_at: Date | null
  opt_history: unknown[]
  sent_after: number
}

async function customerRoute(_req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db) {
  const p = readParams(url, ['party'])
  const asked = digitsParam(p, 'party', true)!
  const r = await db.query<CustomerRow>(
    `SELECT number, party, first_at, last_at, inbound, outbound, failed, waiting_since, unanswered, opted_out, opted_out_at,
            opt_history, sent_after
       FROM desk_threads WHERE party = ANY($1::text[]) AND number IN (${HELD}) ORDER BY last_at DESC, number`,
    [partyForms(asked)],
  )
  const rows = r.rows
  // The customer under the key the index and every other entry use (the digits found, or the
  // typed digits' key), as other reads of them are logged and answered; the digits as typed beside it.
  const found = [...new Set(rows.map((x) => x.party))]
  const party = found.length === 1 ? found[0]! : partyKey(asked)
  await ctx.logRead({ party, ...(asked !== party ? { asked } : {}), numbers: rows.length })
  const min = (xs: Date[]) => (xs.length ? new Date(Math.min(...xs.map((d) => new Date(d).getTime()))) : null)
  const max = (xs: Date[]) => (xs.length ? new Date(Math.max(...xs.map((d) => new Date(d).getTime()))) : null)
  const sum = (f: (x: CustomerRow) => number) => rows.reduce((a, x) => a + f(x), 0)
  sendJson(res, 200, {
    party,
    numbers: rows.map((x) => x.number),
    firstContact: iso(min(rows.map((x) => x.first_at))),
    lastContact: iso(max(rows.map((x) => x.last_at))),
    inbound: sum((x) => x.inbound),
    outbound: sum((x) => x.outbound),
    failed: sum((x) => x.failed),
    optedOutOn: rows.filter((x) => x.opted_out).map((x) => x.number),
    waitingSince: iso(min(rows.filter((x) => x.waiting_since).map((x) => x.waiting_since!))),
    threads: rows.map((x) => ({
      number: x.number,
      party: x.party,
      firstAt: iso(x.first_at),
      lastAt: iso(x.last_at),
      inbound: x.inbound,
      outbound: x.outbound,
      failed: x.failed,
      waitingSince: iso(x.waiting_since),
      unanswered: x.unanswered,
      optedOut: x.opted_out,
      optedOutAt: iso(x.opted_out_at),
      optHistory: x.opt_history,
      sentAfter: x.sent_after,
    })),
  })
}

/** `offset`: rows to skip, for paging a ledger (bounded: the lists are per account, not per message). */
function offsetParam(p: Map<string, string>): number {
  const v = p.get('offset')
  if (v === undefined || v === '') return 0
  if (!/^\d{1,6}$/.test(v)) throw invalid('offset', 'offset must be a whole number of rows from 0 to 999999.')
  return Number(v)
}

function rangeParams(p: Map<string, string>) {
  const from = dateParam(p, 'from')
  const to = dateParam(p, 'to')
  if (from && to && from.start >= to.endExclusive) throw invalid('to', 'to must not be before from.')
  return { from: from?.start ?? null, to: to?.endExclusive ?? null }
}

/** A range bound that falls on a UTC midnight (or none): the per-day roll-ups answer for it. */
const isWholeDay = (x: string | null) => x === null || Date.parse(x) % 86_400_000 === 0

type SegmentDay = { day: string; messages: number; segments: number; ucs2: number; extra: number }

async function quietHoursRoute(_req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db) {
  const p = readParams(url, ['number', 'from', 'to', 'limit'])
  const number = numberParam(p)
  const { from, to } = rangeParams(p)
  const limit = limitParam(p, 100)
  const args = [number, from, to]
  // Whole UTC days (a day parameter, or none) sum the per-day counts; a bound inside a day
  // counts that stretch's sends one by one.
  const byDay = isWholeDay(from) && isWholeDay(to)
  const range = `number = $1 AND number IN (${HELD}) AND ($2::timestamptz IS NULL OR date >= $2) AND ($3::timestamptz IS NULL OR date < $3)`
  const dayRange = `number = $1 AND number IN (${HELD}) AND ($2::date IS NULL OR day >= $2) AND ($3::date IS NULL OR day < $3)`
  const dayArgs = [number, from?.slice(0, 10) ?? null, to?.slice(0, 10) ?? null]
  const days = byDay
    ? await db.query<{ day: string; quiet: number }>(
        `SELECT to_char(local_day, 'YYYY-MM-DD') AS day, sum(quiet)::int AS quiet FROM desk_quiet_days
          WHERE ${dayRange} GROUP BY local_day HAVING sum(quiet) > 0 ORDER BY local_day`,
        dayArgs,
      )
    : await db.query<{ day: string; quiet: number }>(
        `SELECT to_char(local_day, 'YYYY-MM-DD') AS day, count(*)::int AS quiet FROM desk_messages
          WHERE ${range} AND quiet GROUP BY local_day ORDER BY local_day`,
        args,
      )
  const totals = byDay
    ? await db.query<{ outbound: number; unknown: number }>(
        `SELECT COALESCE(sum(outbound), 0)::int AS outbound, COALESCE(sum(unknown), 0)::int AS unknown FROM desk_quiet_days WHERE ${dayRange}`,
        dayArgs,
      )
    : await db.query<{ outbound: number; unknown: number }>(
        `SELECT count(*)::int AS outbound, count(*) FILTER (WHERE quiet IS NULL)::int AS unknown FROM desk_messages
          WHERE ${range} AND direction = 'outbound'`,
        args,
      )
  const rows = await quietRows(db, number, from, to, limit)
  await ctx.logRead({
    number,
    ...(from ? { from: p.get('from') } : {}),
    ...(to ? { to: p.get('to') } : {}),
    rows: rows.length,
    ...partiesShown(rows.map((x) => x.party)),
  })
  sendJson(res, 200, {
    number,
    window: { start: 8, end: 21 },
    approximate: 'Zones come from the area code; number portability and travel make them approximate.',
    outbound: totals.rows[0]?.outbound ?? 0,
    unknownZone: totals.rows[0]?.unknown ?? 0,
    quiet: days.rows.reduce((a, d) => a + d.quiet, 0),
    days: days.rows,
    rows: rows.map((x) => ({ ordinal: x.ordinal, party: x.party, date: iso(x.date), localDay: x.local_day, body: x.body })),
  })
}

type QuietRow = { ordinal: number; party: string; date: Date; local_day: string | null; body: string | null }

/**
 * The quiet-hour sends of one number in a range, newest first, from just after `after` (keyset
 * over the partial index index_messages_desk_quiet: number, date DESC, ordinal DESC). The page
 * reads its first rows; the export reads them all, batch by batch.
 */
async function quietRows(
  db: Db,
  number: string,
  from: string | null,
  to: string | null,
  limit: number,
  after: Pick<QuietRow, 'date' | 'ordinal'> | null = null,
) {
  // The page is cut from the desk's rows first; only its rows visit the messages for their text
  // (the store step writes a message and its desk row in one transaction, forget deletes both).
  const r = await db.query<QuietRow>(
    `WITH page AS MATERIALIZED (
       SELECT d.number, d.ordinal, d.party, d.date, d.local_day FROM desk_messages d
        WHERE d.number = $1 AND ($2::timestamptz IS NULL OR d.date >= $2) AND ($3::timestamptz IS NULL OR d.date < $3) AND d.quiet
          AND ($5::timestamptz IS NULL OR (d.date <= $5 AND (d.date, d.ordinal) < ($5, $6::int)))
        ORDER BY d.date DESC, d.ordinal DESC LIMIT $4)
     SELECT d.ordinal, d.party, d.date, to_char(d.local_day, 'YYYY-MM-DD') AS local_day, ${BODY} AS body
       FROM page d JOIN index_messages m ON m.number = d.number AND m.ordinal = d.ordinal
      ORDER BY d.date DESC, d.ordinal DESC`,
    [number, from, to, limit, after?.date ?? null, after?.ordinal ?? null],
  )
  return r.rows
}

const QUIET_CSV_HEADER = ['number', 'customer', 'sent_at', 'customer_local_day', 'customer_local_time', 'customer_zone', 'text', 'ordinal']

/**
 * Why a send counts as quiet, for the file's reader: the customer's local time with its offset
 * ("2026-11-20T05:30-05:00") and the zone their area code gave (contract/desk/quiet-hours.ts), as the page shows them.
 */
function theirTime(party: string, date: Date | string | null): [string, string] {
  const local = date === null ? null : localTime(party, date)
  if (!local) return ['', '']
  const two = (n: number) => String(n).padStart(2, '0')
  const off = Math.abs(local.offsetMinutes)
  const sign = local.offsetMinutes < 0 ? '-' : '+'
  return [`${local.day}T${two(local.hour)}:${two(local.minute)}${sign}${two(Math.floor(off / 60))}:${two(off % 60)}`, local.zone]
}

/**
 * Every quiet-hour send of a number in the page's range (the page lists the newest 500), newest
 * first, in keyset batches, every cell through contract/csv's guard.
 */
async function quietHoursExportRoute(_req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db, job: Job) {
  const p = readParams(url, ['number', 'from', 'to', 'tz', 'job', 'format'])
  const format = deskFormat(p.get('format'))
  const local = localColumns(p, ['sent_at'])
  const number = numberParam(p)
  const { from, to } = rangeParams(p)
  const total = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM desk_messages
      WHERE number = $1 AND number IN (${HELD}) AND ($2::timestamptz IS NULL OR date >= $2) AND ($3::timestamptz IS NULL OR date < $3) AND quiet`,
    [number, from, to],
  )
  const rows = total.rows[0]?.n ?? 0
  const what = { number, ...(from ? { from: p.get('from') } : {}), ...(to ? { to: p.get('to') } : {}) }
  await ctx.logRead({ ...what, rows, export: format })
  const name = deskFileName(
    'quiet-hours',
    [number, ...(from ? [`from-${p.get('from')}`] : []), ...(to ? [`to-${p.get('to')}`] : [])],
    rows,
    undefined,
    format,
  )
  await streamCsv<QuietRow>(
    res,
    name,
    rows,
    [...QUIET_CSV_HEADER, ...local.header],
    (after) => quietRows(db, number, from, to, DESK_EXPORT.batch, after),
    (x) => [
      number,
      x.party,
      iso(x.date),
      x.local_day ?? '',
      ...theirTime(x.party, x.date),
      x.body ?? '',
      x.ordinal,
      ...local.cells(x.date),
    ],
    (result) => exportDone(ctx, 'quiet-hours', what, result, format),
    job,
    format,
  )
}

async function segmentsRoute(_req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db) {
  const p = readParams(url, ['number', 'from', 'to'])
  const number = numberParam(p)
  const { from, to } = rangeParams(p)
  const args = [number, from, to]
  const range = `number = $1 AND number IN (${HELD}) AND ($2::timestamptz IS NULL OR date >= $2) AND ($3::timestamptz IS NULL OR date < $3)`
  // Whole UTC days (a day parameter, or none) read the per-day counts the sync keeps
  // (desk_segment_days); a bound inside a day counts that stretch's messages one by one.
  const days =
    isWholeDay(from) && isWholeDay(to)
      ? await db.query<SegmentDay>(
          `SELECT to_char(day, 'YYYY-MM-DD') AS day, messages, segments, ucs2, extra FROM desk_segment_days
          WHERE number = $1 AND number IN (${HELD}) AND ($2::date IS NULL OR day >= $2) AND ($3::date IS NULL OR day < $3)
          ORDER BY day`,
          [number, from?.slice(0, 10) ?? null, to?.slice(0, 10) ?? null],
        )
      : await db.query<SegmentDay>(
          `SELECT to_char(date AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS messages, sum(segments)::int AS segments,
                count(*) FILTER (WHERE encoding = 'UCS-2')::int AS ucs2, sum(extra_segments)::int AS extra
           FROM desk_messages WHERE ${range} GROUP BY 1 ORDER BY 1`,
          args,
        )
  // costlyCharacters over SQL: each message's extra segments shared equally among its forcing characters.
  const chars = await db.query<{ char: string; messages: number; extra: number }>(
    `SELECT c AS char, count(*)::int AS messages, sum(extra_segments::float8 / cardinality(forcing)) AS extra
       FROM desk_messages, unnest(forcing) AS c WHERE ${range} AND forcing IS NOT NULL
      GROUP BY c`,
    args,
  )
  // Ranked as costlyCharacters ranks (ties by localeCompare, which SQL collations do not share).
  const all = chars.rows
    .map((c) => ({ char: c.char, messages: c.messages, extraSegments: Math.round(Number(c.extra) * 1000) / 1000 }))
    .sort((a, b) => b.extraSegments - a.extraSegments || b.messages - a.messages || a.char.localeCompare(b.char))
  const ranked = all.slice(0, 20)
  await ctx.logRead({ number, ...(from ? { from: p.get('from') } : {}), ...(to ? { to: p.get('to') } : {}) })
  sendJson(res, 200, {
    number,
    days: days.rows,
    costliest: ranked,
    // Beyond the 20 listed: how many characters forced UCS-2 in all, and how many of them never cost a segment.
    forcingCharacters: all.length,
    freeCharacters: all.filter((c) => c.extraSegments === 0).length,
  })
}

/** An export's progress record, when the tray gave it an id (`job`); null otherwise, and for every other route. */
type Job = ExportJobHooks | null

type DeskHandler = (req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db, job: Job) => Promise<void>

/**
 * A sync's lease counts as live for this long after its last heartbeat. Leases default to 30 s
 * and are renewed every third of that; a longer wait here only means a dead server's threads wait
 * a little longer for a read to recompute them.
 */
const LIVE_LEASE_SECONDS = 60

/**
 * Recomputes the threads a sync left marked, except those of numbers whose sync is still running:
 * that sync recomputes them when it ends (proxy/index/sync/number.ts), once. Recomputing them on
 * every read instead made each read during a bulk load recompute threads of 100,000+ messages that
 * the next batch marks again: tens of seconds per read, for state the sync was about to replace.
 */
async function flushSettled(db: Db): Promise<void> {
  const r = await db.query<{ number: string }>(
    `SELECT DISTINCT d.number FROM desk_dirty d LEFT JOIN index_numbers n ON n.number = d.number
      WHERE n.locked_by IS NULL OR n.locked_at IS NULL OR n.locked_at < now() - make_interval(secs => $1::double precision)`,
    [LIVE_LEASE_SECONDS],
  )
  if (r.rows.length > 0)
    await flushDesk(
      db,
      r.rows.map((x) => x.number),
    )
}

/** `threads`: the route reads a thread's ordered state (waiting, opt-out periods), which a sync's batches defer. */
const DESK_ROUTES: ReadonlyArray<Omit<RouteSpec, 'handle'> & { run: DeskHandler; threads?: true }> = [
  {
    method: 'GET',
    path: '/api/desk/needs-reply',
    access: 'signed-in',
    reads: 'needs-reply.view',
    schema: { querystring: names('number', 'thresholdMinutes', 'at', 'limit') },
    run: needsReplyRoute,
    threads: true,
  },
  {
    method: 'GET',
    path: '/api/desk/needs-reply/count',
    access: 'signed-in',
    reads: null,
    schema: { querystring: names('number') },
    run: needsReplyCountRoute,
    threads: true,
  },
  {
    method: 'GET',
    path: '/api/desk/needs-reply/export',
    access: 'signed-in',
    reads: 'needs-reply.export',
    schema: { querystring: exportQuery('number', 'thresholdMinutes', 'at', 'job') },
    run: needsReplyExportRoute,
    threads: true,
  },
  { method: 'POST', path: '/api/desk/handled', access: 'signed-in', reads: null, schema: { querystring: NO_QUERY }, run: handledRoute },
  {
    method: 'POST',
    path: '/api/desk/handled/undo',
    access: 'signed-in',
    reads: null,
    schema: { querystring: NO_QUERY },
    run: unhandledRoute,
  },
  {
    method: 'GET',
    path: '/api/desk/opt-outs',
    access: 'signed-in',
    reads: 'opt-outs.view',
    schema: { querystring: names('number', 'state', 'limit', 'offset') },
    run: optOutsRoute,
    threads: true,
  },
  {
    method: 'GET',
    path: '/api/desk/opt-outs/export',
    access: 'signed-in',
    reads: 'opt-outs.export',
    schema: { querystring: exportQuery('number', 'state', 'job') },
    run: optOutsExportRoute,
    threads: true,
  },
  {
    method: 'GET',
    path: '/api/desk/sent-after-opt-out',
    access: 'signed-in',
    reads: 'sent-after-opt-out.view',
    schema: { querystring: names('number', 'party', 'limit', 'offset') },
    run: sentAfterRoute,
    threads: true,
  },
  {
    method: 'GET',
    path: '/api/desk/sent-after-opt-out/export',
    access: 'signed-in',
    reads: 'sent-after-opt-out.export',
    schema: { querystring: exportQuery('number', 'party', 'job') },
    run: sentAfterExportRoute,
    threads: true,
  },
  {
    method: 'GET',
    path: '/api/desk/customer',
    access: 'signed-in',
    reads: 'customer.view',
    schema: { querystring: names('party') },
    run: customerRoute,
    threads: true,
  },
  {
    method: 'GET',
    path: '/api/desk/quiet-hours',
    access: 'signed-in',
    reads: 'quiet-hours.view',
    schema: { querystring: names('number', 'from', 'to', 'limit') },
    run: quietHoursRoute,
  },
  {
    method: 'GET',
    path: '/api/desk/quiet-hours/export',
    access: 'signed-in',
    reads: 'quiet-hours.export',
    schema: { querystring: exportQuery('number', 'from', 'to', 'job') },
    run: quietHoursExportRoute,
  },
  {
    method: 'GET',
    path: '/api/desk/segments',
    access: 'signed-in',
    reads: 'segments.view',
    schema: { querystring: names('number', 'from', 'to') },
    run: segmentsRoute,
  },
  { method: 'GET', path: '/api/desk/settings', access: 'signed-in', reads: null, schema: { querystring: NO_QUERY }, run: settingsRoute },
  { method: 'POST', path: '/api/desk/settings', access: 'admin', reads: null, schema: { querystring: NO_QUERY }, run: saveSettingsRoute },
]

/**
 * The desk's rows of the route table, over the index's database (null with INDEX=off: every route
 * answers 503). Report exports wait under `gate`, the index's export limits, and report to
 * `exports`, the index's progress records, so the tray follows them as it follows the index's.
 */
export function deskRoutes(db: Db | null, gate: ExportGate | null = null, exports: ExportTracker | null = null): RouteSpec[] {
  return DESK_ROUTES.map(({ run, threads, ...r }) => ({
    ...r,
    handle: async (req, res, url, ctx) => {
      if (!db) throw new ProxyError(503, { kind: 'index_off', message: 'The message index is off on this server (INDEX=off).' })
      const exporting = r.path.endsWith('/export')
      const who = ctx.principal?.name ?? ''
      const job = exporting && exports ? jobOf(url, exports, ctx, r.reads) : null
      try {
        // An export waits its turn under the limits the index's exports keep (per person and in
        // total): 40 report exports at once by one viewer held everyone's searches up for seconds.
        const slot = exporting ? await exportTurn(gate, req, res, who, job) : null
        if (slot === 'gone') return
        try {
          // Threads a finished (or dead) sync left for later are recomputed before they are read.
          if (threads) await flushSettled(db)
          await run(req, res, url, ctx, db, job)
        } finally {
          slot?.leave()
        }
      } catch (err) {
        // The tray learns why in the one envelope (the download itself shows only "failed").
        endFailed(job, err)
        throw err
      }
    },
  }))
}

/** The progress record of an export the tray gave an id (`job`), under the report's access-log action and filters. */
function jobOf(url: URL, exports: ExportTracker, ctx: RequestContext, action: RouteSpec['reads']): Job {
  const id = url.searchParams.get('job')
  if (id === null || !action || !isDeskExport(action)) return null
  if (!JOB_ID.test(id)) throw invalid('job', 'job must be 8 to 64 letters, digits, "-" or "_".')
  const what = Object.fromEntries([...url.searchParams].filter(([k]) => k !== 'job'))
  try {
    const job = exports.begin(ctx.principal?.name ?? '', id)
    job.update({ action })
    job.about(what)
    return job
  } catch (err) {
    // Cancelled in the tray before this request arrived: refused having read nothing, and the
    // cancel logged now, under the report's action and filters, which the cancel did not know.
    if (err instanceof CancelledBeforeStart)
      void ctx.audit(`${action}.cancel`, { ...what, job: id, rows: 0, started: false }).catch(() => undefined)
    throw err
  }
}

const isDeskExport = (a: string): a is DeskExportAction => (DESK_EXPORT_ACTIONS as readonly string[]).includes(a)

/**
 * A slot under the export gate: at once when one is free, else after waiting in its line (the
 * request holds its socket only; the tray shows the place); 'gone' when the client left or the
 * person cancelled while it waited. Past the line's bound the answer is a 429 with Retry-After,
 * as for the index's exports.
 */
async function exportTurn(gate: ExportGate | null, req: IncomingMessage, res: ServerResponse, who: string, job: Job) {
  if (!gate) return null
  let slot: ExportTicket
  try {
    slot = gate.enter(who)
  } catch (err) {
    if (!(err instanceof ExportRefused)) throw err
    job?.end({ state: 'failed', error: err.body })
    sendError(res, err, { 'retry-after': String(err.retryAfterS) })
    return 'gone'
  }
  if (!slot.place()) return slot
  job?.queued(slot.place)
  const waited = await turnOf(req, res, slot.turn, job?.signal)
  if (waited === 'turn') {
    job?.update({ state: 'running' })
    return slot
  }
  slot.leave()
  job?.end({ state: 'cancelled', by: waited === 'cancelled' ? 'you' : 'browser' })
  // Nothing was sent yet: the browser's download ends without a file.
  if (waited === 'cancelled') sendError(res, new CancelledBeforeStart())
  return 'gone'
}
