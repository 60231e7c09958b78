import type { DeskAnswer } from '../../contract/desk/desk-api.ts'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { DEFAULT_THRESHOLD_MS } from '../../contract/desk/needs-reply.ts'
import { partyKey } from '../../contract/desk/messages.ts'
import type { Db } from '../db/types.ts'
import { ProxyError } from '../errors.ts'
import type { RequestContext } from '../http-types.ts'
import type { z } from 'zod'
import type { HANDLED_BODY, SETTINGS_BODY, UNDO_BODY } from './params.ts'
import { type NEEDS_REPLY_COUNT_QUERY, type NEEDS_REPLY_EXPORT_QUERY, type NEEDS_REPLY_QUERY } from './params.ts'
import { refreshDesk } from './refresh.ts'
import { partiesShown } from '../log-parties.ts'

import { BODY, DESK_EXPORT, Job, deskFileName, exportDone, iso, localColumns, streamCsv, teamThreshold } from './route-kit.ts'

/** The Needs reply queue: its page, count and export; handled and undo; the team's threshold. */

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

export async function needsReplyRoute(ctx: RequestContext, db: Db, q: z.output<typeof NEEDS_REPLY_QUERY>) {
  const { number, limit } = q
  const threshold = q.thresholdMinutes ?? (await teamThreshold(db)).thresholdMinutes
  const at = q.at ?? new Date()
  const rows = await queueRows(db, number, threshold, at, limit)
  // `at` when the request named one (a queue as it stood then): the entry says which queue was read.
  await ctx.logRead({
    ...(number ? { number } : {}),
    ...(q.at ? { at: at.toISOString() } : {}),
    thresholdMinutes: threshold,
    rows: rows.length,
    ...partiesShown(rows.map((x) => x.party)),
  })
  return {
    status: 200,
    body: {
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
    } satisfies DeskAnswer<'needsReply'>,
  }
}

/**
 * How many customers wait now, for the navigation's badge: a count only, no party, number or text,
 * so it reads no customer data and leaves no access-log entry (the badge asks every minute on
 * every open page; the queue itself, `needs-reply`, is logged as a read).
 */
export async function needsReplyCountRoute(_ctx: RequestContext, db: Db, { number }: z.output<typeof NEEDS_REPLY_COUNT_QUERY>) {
  const threshold = (await teamThreshold(db)).thresholdMinutes
  const at = new Date()
  return {
    status: 200,
    body: {
      at: at.toISOString(),
      thresholdMinutes: threshold,
      total: await queueCount(db, number, threshold, at),
    } satisfies DeskAnswer<'count'>,
  }
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

/** The whole queue as CSV (the page shows the longest waits only), in keyset batches, every cell through contract/csv's guard. */
export async function needsReplyExportRoute(
  _req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  db: Db,
  query: z.output<typeof NEEDS_REPLY_EXPORT_QUERY>,
  job: Job,
  stallMs: number,
) {
  const q = query.read()
  const { format, number } = q
  const local = localColumns(q.tz, ['waiting_since', 'last_inbound_at'])
  const threshold = q.thresholdMinutes ?? (await teamThreshold(db)).thresholdMinutes
  const at = q.at ?? new Date()
  const rows = await queueCount(db, number, threshold, at)
  // `at` when the request named one, as the page's read logs it: the queue as it stood then.
  const what = { ...(number ? { number } : {}), ...(q.at ? { at: at.toISOString() } : {}), thresholdMinutes: threshold }
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
    stallMs,
  )
}

export async function handledRoute(ctx: RequestContext, db: Db, { number, typed, through }: z.output<typeof HANDLED_BODY>) {
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
  return { status: 200, body: { number, party, handledAt: iso(r.rows[0]!.handled_at), handledBy: by } satisfies DeskAnswer<'handled'> }
}

/**
 * Undoes a "mark handled": the mark made at `handledAt` is replaced by the one it replaced, or
 * removed when there was none, and the thread's wait worked out again. A mark made since (by
 * anyone) is not undone by an older undo: 409.
 */
export async function unhandledRoute(ctx: RequestContext, db: Db, { number, typed, at }: z.output<typeof UNDO_BODY>) {
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
  return { status: 200, body: { number, party, restored: done === 'restored' } satisfies DeskAnswer<'undone'> }
}

export async function settingsRoute(_ctx: RequestContext, db: Db) {
  return { status: 200, body: (await teamThreshold(db)) satisfies DeskAnswer<'settings'> }
}

/** An admin sets the team's needs-reply threshold; every field is checked and named when wrong. */
export async function saveSettingsRoute(ctx: RequestContext, db: Db, { thresholdMinutes: v }: z.output<typeof SETTINGS_BODY>) {
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
  return { status: 200, body: (await teamThreshold(db)) satisfies DeskAnswer<'settings'> }
}
