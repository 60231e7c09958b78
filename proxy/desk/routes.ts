import { DESK_ANSWERS, type DeskAnswer } from '../../contract/desk/desk-api.ts'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { PERMISSIONS } from '../../contract/roles.ts'
import { partyForms, partyKey } from '../../contract/desk/messages.ts'
import type { Db } from '../db/types.ts'
import { ProxyError, invalid } from '../errors.ts'
import { DESK_EXPORT_ACTIONS, type DeskExportAction } from '../../contract/index-answers.ts'
import { sendError } from '../http.ts'
import { EXPORT_STALL_MS, ExportRefused, type ExportGate, type ExportTicket } from '../exports/gate.ts'
import { CancelledBeforeStart, endFailed, JOB_ID, type ExportTracker } from '../exports/progress.ts'
import { turnOf } from '../exports/turn.ts'
import { answering, type JsonAnswer, type RequestContext, type RouteSpec } from '../http-types.ts'
import type { z } from 'zod'
import { NO_QUERY } from '../schema.ts'
import {
  CUSTOMER_QUERY,
  HANDLED_BODY,
  SETTINGS_BODY,
  UNDO_BODY,
  NEEDS_REPLY_COUNT_QUERY,
  NEEDS_REPLY_EXPORT_QUERY,
  NEEDS_REPLY_QUERY,
  OPT_OUTS_EXPORT_QUERY,
  OPT_OUTS_QUERY,
  QUIET_HOURS_EXPORT_QUERY,
  QUIET_HOURS_QUERY,
  SEGMENTS_QUERY,
  SENT_AFTER_EXPORT_QUERY,
  SENT_AFTER_QUERY,
} from './params.ts'
import { flushDesk } from './refresh.ts'

import { HELD, Job, iso } from './route-kit.ts'
import {
  needsReplyRoute,
  needsReplyCountRoute,
  needsReplyExportRoute,
  handledRoute,
  unhandledRoute,
  settingsRoute,
  saveSettingsRoute,
} from './needs-reply-routes.ts'
import { optOutsRoute, sentAfterRoute, sentAfterExportRoute, optOutsExportRoute } from './opt-out-routes.ts'
import { quietHoursRoute, quietHoursExportRoute, segmentsRoute } from './quiet-routes.ts'
/**
 * The support desk's routes: reads of the desk tables that refreshDesk keeps during sync. Every
 * answer shows customer data, so each route declares its access-log action and records the read
 * before answering. Messages' text comes from index_messages by (number, ordinal), so a message
 * forgotten since the last refresh is not shown.
 *
 * The table is here; each report's handlers are in their own file (needs-reply-routes.ts,
 * opt-out-routes.ts, quiet-routes.ts), and what they share in route-kit.ts.
 */

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
  opt_history: DeskAnswer<'customer'>['threads'][number]['optHistory']
  sent_after: number
}

async function customerRoute(ctx: RequestContext, db: Db, { party: asked }: z.output<typeof CUSTOMER_QUERY>) {
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
  return {
    status: 200,
    body: {
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
    } satisfies DeskAnswer<'customer'>,
  }
}

/** A desk report's handler: what its row's schema parsed (`query`), never the request or the URL; it gives back its answer. */
type DeskHandler<Q = unknown> = (ctx: RequestContext, db: Db, query: Q) => Promise<JsonAnswer>

/**
 * A report's export: a CSV streamed to the raw response, with its progress record and `stallMs`,
 * how long its reader may take nothing before it is cut (the export gate's).
 */
type DeskStream<Q = unknown> = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  db: Db,
  query: Q,
  job: Job,
  stallMs: number,
) => Promise<void>

type DeskRow = Omit<RouteSpec, 'handle'> & { threads?: true } & ({ run: DeskHandler } | { stream: DeskStream })

/** What a row's handler is handed: its body as parsed, for a row with a body schema; else its query. */
type Parsed<Q extends z.ZodType, B> = B extends z.ZodType ? z.output<B> : z.output<Q>

/** One row, its handler typed by its schema (the adapter below hands it what Fastify parsed). */
function deskRow<Q extends z.ZodType, B extends z.ZodType | undefined = undefined>(
  r: Omit<RouteSpec, 'handle' | 'schema'> & { schema: { querystring: Q; body?: B }; threads?: true } & (
      { run: DeskHandler<Parsed<Q, B>> } | { stream: DeskStream<Parsed<Q, B>> }
    ),
): DeskRow {
  if ('run' in r) {
    const { run, ...rest } = r
    return { ...rest, run: (ctx, db, parsed) => run(ctx, db, parsed as Parsed<Q, B>) }
  }
  const { stream, ...rest } = r
  return { ...rest, stream: (req, res, ctx, db, parsed, job, stallMs) => stream(req, res, ctx, db, parsed as Parsed<Q, B>, job, stallMs) }
}

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
const DESK_ROUTES: readonly DeskRow[] = [
  deskRow({
    method: 'GET',
    path: '/api/desk/needs-reply',
    access: 'signed-in',
    reads: 'needs-reply.view',
    schema: { querystring: NEEDS_REPLY_QUERY },
    response: DESK_ANSWERS.needsReply,
    run: needsReplyRoute,
    threads: true,
  }),
  deskRow({
    method: 'GET',
    path: '/api/desk/needs-reply/count',
    access: 'signed-in',
    reads: null,
    schema: { querystring: NEEDS_REPLY_COUNT_QUERY },
    response: DESK_ANSWERS.count,
    run: needsReplyCountRoute,
    threads: true,
  }),
  deskRow({
    method: 'GET',
    path: '/api/desk/needs-reply/export',
    access: 'signed-in',
    reads: 'needs-reply.export',
    schema: { querystring: NEEDS_REPLY_EXPORT_QUERY },
    stream: needsReplyExportRoute,
    threads: true,
  }),
  deskRow({
    method: 'POST',
    path: '/api/desk/handled',
    access: PERMISSIONS.markHandled,
    reads: null,
    schema: { querystring: NO_QUERY, body: HANDLED_BODY },
    response: DESK_ANSWERS.handled,
    run: handledRoute,
  }),
  deskRow({
    method: 'POST',
    path: '/api/desk/handled/undo',
    access: PERMISSIONS.markHandled,
    reads: null,
    schema: { querystring: NO_QUERY, body: UNDO_BODY },
    response: DESK_ANSWERS.undone,
    run: unhandledRoute,
  }),
  deskRow({
    method: 'GET',
    path: '/api/desk/opt-outs',
    access: 'signed-in',
    reads: 'opt-outs.view',
    schema: { querystring: OPT_OUTS_QUERY },
    response: DESK_ANSWERS.optOuts,
    run: optOutsRoute,
    threads: true,
  }),
  deskRow({
    method: 'GET',
    path: '/api/desk/opt-outs/export',
    access: 'signed-in',
    reads: 'opt-outs.export',
    schema: { querystring: OPT_OUTS_EXPORT_QUERY },
    stream: optOutsExportRoute,
    threads: true,
  }),
  deskRow({
    method: 'GET',
    path: '/api/desk/sent-after-opt-out',
    access: 'signed-in',
    reads: 'sent-after-opt-out.view',
    schema: { querystring: SENT_AFTER_QUERY },
    response: DESK_ANSWERS.sentAfter,
    run: sentAfterRoute,
    threads: true,
  }),
  deskRow({
    method: 'GET',
    path: '/api/desk/sent-after-opt-out/export',
    access: 'signed-in',
    reads: 'sent-after-opt-out.export',
    schema: { querystring: SENT_AFTER_EXPORT_QUERY },
    stream: sentAfterExportRoute,
    threads: true,
  }),
  deskRow({
    method: 'GET',
    path: '/api/desk/customer',
    access: 'signed-in',
    reads: 'customer.view',
    schema: { querystring: CUSTOMER_QUERY },
    response: DESK_ANSWERS.customer,
    run: customerRoute,
    threads: true,
  }),
  deskRow({
    method: 'GET',
    path: '/api/desk/quiet-hours',
    access: 'signed-in',
    reads: 'quiet-hours.view',
    schema: { querystring: QUIET_HOURS_QUERY },
    response: DESK_ANSWERS.quietHours,
    run: quietHoursRoute,
  }),
  deskRow({
    method: 'GET',
    path: '/api/desk/quiet-hours/export',
    access: 'signed-in',
    reads: 'quiet-hours.export',
    schema: { querystring: QUIET_HOURS_EXPORT_QUERY },
    stream: quietHoursExportRoute,
  }),
  deskRow({
    method: 'GET',
    path: '/api/desk/segments',
    access: 'signed-in',
    reads: 'segments.view',
    schema: { querystring: SEGMENTS_QUERY },
    response: DESK_ANSWERS.segments,
    run: segmentsRoute,
  }),
  deskRow({
    method: 'GET',
    path: '/api/desk/settings',
    access: 'signed-in',
    reads: null,
    schema: { querystring: NO_QUERY },
    response: DESK_ANSWERS.settings,
    run: settingsRoute,
  }),
  deskRow({
    method: 'POST',
    path: '/api/desk/settings',
    access: 'admin',
    reads: null,
    schema: { querystring: NO_QUERY, body: SETTINGS_BODY },
    response: DESK_ANSWERS.settings,
    run: saveSettingsRoute,
  }),
]

/**
 * The desk's rows of the route table, over the index's database (null with INDEX=off: every route
 * answers 503). Report exports wait under `gate`, the index's export limits, and report to
 * `exports`, the index's progress records, so the tray follows them as it follows the index's.
 */
export function deskRoutes(db: Db | null, gate: ExportGate | null = null, exports: ExportTracker | null = null): RouteSpec[] {
  const open = (): Db => {
    if (!db) throw new ProxyError(503, { kind: 'index_off', message: 'The message index is off on this server (INDEX=off).' })
    return db
  }
  return DESK_ROUTES.map(({ threads, ...row }) => {
    if ('run' in row) {
      const { run, ...r } = row
      return {
        ...r,
        handle: answering(async (ctx, input) => {
          const d = open()
          // Threads a finished (or dead) sync left for later are recomputed before they are read.
          if (threads) await flushSettled(d)
          return run(ctx, d, input.body ?? input.query)
        }),
      }
    }
    const { stream, ...r } = row
    return {
      ...r,
      handle: async (req, res, url, ctx, input) => {
        const d = open()
        const who = ctx.principal?.name ?? ''
        const job = exports ? jobOf(url, exports, ctx, r.reads) : null
        try {
          // An export waits its turn under the limits the index's exports keep (per person and in
          // total): 40 report exports at once by one viewer held everyone's searches up for seconds.
          const slot = await exportTurn(gate, req, res, who, job)
          if (slot === 'gone') return
          try {
            if (threads) await flushSettled(d)
            await stream(req, res, ctx, d, input.body ?? input.query, job, gate?.stallMs ?? EXPORT_STALL_MS)
          } finally {
            slot?.leave()
          }
        } catch (err) {
          // The tray learns why in the one envelope (the download itself shows only "failed").
          endFailed(job, err)
          throw err
        }
      },
    }
  })
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
