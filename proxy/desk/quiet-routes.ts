import type { IncomingMessage, ServerResponse } from 'node:http'
import type { DeskAnswer } from '../../contract/desk/desk-api.ts'
import { localTime } from '../../contract/desk/quiet-hours.ts'
import type { Db } from '../db/types.ts'
import type { RequestContext } from '../http-types.ts'
import type { z } from 'zod'
import type { QUIET_HOURS_EXPORT_QUERY, QUIET_HOURS_QUERY, SEGMENTS_QUERY } from './params.ts'
import { partiesShown } from '../log-parties.ts'

import { BODY, DESK_EXPORT, HELD, Job, deskFileName, exportDone, isWholeDay, iso, localColumns, streamCsv } from './route-kit.ts'

/** Quiet hours and segments: pages and the quiet-hours export. */

type SegmentDay = { day: string; messages: number; segments: number; ucs2: number; extra: number }

export async function quietHoursRoute(ctx: RequestContext, db: Db, q: z.output<typeof QUIET_HOURS_QUERY>) {
  const { number, limit } = q
  const from = q.from?.start ?? null
  const to = q.to?.endExclusive ?? null
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
    ...(q.from ? { from: q.from.text } : {}),
    ...(q.to ? { to: q.to.text } : {}),
    rows: rows.length,
    ...partiesShown(rows.map((x) => x.party)),
  })
  return {
    status: 200,
    body: {
      number,
      window: { start: 8, end: 21 },
      approximate: 'Zones come from the area code; number portability and travel make them approximate.',
      outbound: totals.rows[0]?.outbound ?? 0,
      unknownZone: totals.rows[0]?.unknown ?? 0,
      quiet: days.rows.reduce((a, d) => a + d.quiet, 0),
      days: days.rows,
      rows: rows.map((x) => ({ ordinal: x.ordinal, party: x.party, date: iso(x.date), localDay: x.local_day, body: x.body })),
    } satisfies DeskAnswer<'quietHours'>,
  }
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
export async function quietHoursExportRoute(
  _req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  db: Db,
  query: z.output<typeof QUIET_HOURS_EXPORT_QUERY>,
  job: Job,
  stallMs: number,
) {
  const q = query.read()
  const { number, format } = q
  const local = localColumns(q.tz, ['sent_at'])
  const from = q.from?.start ?? null
  const to = q.to?.endExclusive ?? null
  const total = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM desk_messages
      WHERE number = $1 AND number IN (${HELD}) AND ($2::timestamptz IS NULL OR date >= $2) AND ($3::timestamptz IS NULL OR date < $3) AND quiet`,
    [number, from, to],
  )
  const rows = total.rows[0]?.n ?? 0
  const what = { number, ...(q.from ? { from: q.from.text } : {}), ...(q.to ? { to: q.to.text } : {}) }
  await ctx.logRead({ ...what, rows, export: format })
  const name = deskFileName(
    'quiet-hours',
    [number, ...(q.from ? [`from-${q.from.text}`] : []), ...(q.to ? [`to-${q.to.text}`] : [])],
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
    stallMs,
  )
}

export async function segmentsRoute(ctx: RequestContext, db: Db, q: z.output<typeof SEGMENTS_QUERY>) {
  const { number } = q
  const from = q.from?.start ?? null
  const to = q.to?.endExclusive ?? null
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
  await ctx.logRead({ number, ...(q.from ? { from: q.from.text } : {}), ...(q.to ? { to: q.to.text } : {}) })
  return {
    status: 200,
    body: {
      number,
      days: days.rows,
      costliest: ranked,
      // Beyond the 20 listed: how many characters forced UCS-2 in all, and how many of them never cost a segment.
      forcingCharacters: all.length,
      freeCharacters: all.filter((c) => c.extraSegments === 0).length,
    } satisfies DeskAnswer<'segments'>,
  }
}
