import type { IncomingMessage, ServerResponse } from 'node:http'
import type { DeskAnswer } from '../../contract/desk/desk-api.ts'
import { partyForms } from '../../contract/desk/messages.ts'
import { statusWord } from '../../contract/message-csv.ts'
import type { Db } from '../db/types.ts'
import type { RequestContext } from '../http-types.ts'
import type { z } from 'zod'
import type { OPT_OUTS_EXPORT_QUERY, OPT_OUTS_QUERY, SENT_AFTER_EXPORT_QUERY, SENT_AFTER_QUERY } from './params.ts'
import { partiesShown } from '../log-parties.ts'
import { sentAfterBatch, sentAfterCount, sentAfterPage, type SentRow } from './sent-after.ts'

import { DESK_EXPORT, HELD, Job, deskFileName, exportDone, iso, localColumns, streamCsv } from './route-kit.ts'

/** The opt-out ledger and the sends after an opt-out: pages and exports. */

type OptRow = {
  number: string
  party: string
  opted_out: boolean
  opted_out_at: Date | null
  opt_history: Array<{ state: string; ordinal: number; date: string }>
  sent_after: number
  total: number
}

const LEDGER_WHERE = `opt_history <> '[]' AND ($1::text IS NULL OR number = $1) AND number IN (${HELD})
        AND ($2 = 'all' OR ($2 = 'opted-out') = opted_out)`

export async function optOutsRoute(ctx: RequestContext, db: Db, { number, state, limit, offset }: z.output<typeof OPT_OUTS_QUERY>) {
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
  return {
    status: 200,
    body: {
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
    } satisfies DeskAnswer<'optOuts'>,
  }
}

export async function sentAfterRoute(ctx: RequestContext, db: Db, { number, party, limit, offset }: z.output<typeof SENT_AFTER_QUERY>) {
  const scope = { number, keys: party ? partyForms(party) : null }
  const rows = await sentAfterPage(db, scope, limit, offset)
  const total = await sentAfterCount(db, scope)
  await ctx.logRead({
    ...(number ? { number } : {}),
    ...(party ? { party } : {}),
    rows: rows.length,
    ...partiesShown(rows.map((x) => x.party)),
  })
  return {
    status: 200,
    body: {
      total,
      rows: rows.map((x) => ({
        number: x.number,
        party: x.party,
        message: { ordinal: x.ordinal, date: iso(x.date), body: x.body, status: x.status, failed: x.failed },
        optOut: { ordinal: x.opt_ordinal, date: iso(x.opt_date), body: x.opt_body },
        afterMs: Number(x.after_ms),
      })),
    } satisfies DeskAnswer<'sentAfter'>,
  }
}

const SENT_CSV_HEADER = [
  'number',
  'customer',
  'opt_out_at',
  'opt_out_text',
  'sent_at',
  'sent_text',
  // One status vocabulary in every export (success, error, unknown), the upstream's text beside it.
  'status',
  'status_raw',
  'failed',
  'minutes_after_opt_out',
  'opt_out_ordinal',
  'sent_ordinal',
]

/** Every send after opt-out, with both messages, newest first as on the page: keyset batches (sent-after.ts). */
export async function sentAfterExportRoute(
  _req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  db: Db,
  query: z.output<typeof SENT_AFTER_EXPORT_QUERY>,
  job: Job,
  stallMs: number,
) {
  const { number, party, format, tz } = query.read()
  const local = localColumns(tz, ['opt_out_at', 'sent_at'])
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
      statusWord(x.status_code === null ? null : Number(x.status_code)),
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
    stallMs,
  )
}

const LEDGER_CSV_HEADER = ['number', 'customer', 'state', 'opted_out_since', 'sent_after_opt_out', 'history']

/** The whole opt-out ledger (the page shows 500 rows), by number and customer: keyset batches over the primary key. */
export async function optOutsExportRoute(
  _req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  db: Db,
  query: z.output<typeof OPT_OUTS_EXPORT_QUERY>,
  job: Job,
  stallMs: number,
) {
  const { number, state, format, tz } = query.read()
  const local = localColumns(tz, ['opted_out_since'])
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
    stallMs,
  )
}
