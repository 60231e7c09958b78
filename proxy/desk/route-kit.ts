import type { ServerResponse } from 'node:http'
import { DEFAULT_THRESHOLD_MS } from '../../contract/desk/needs-reply.ts'
import type { Db } from '../db/types.ts'
import { BOM, csvRow } from '../../contract/csv.ts'
import { fitFileName } from '../../contract/file-name.ts'
import { SECURITY_HEADERS, sendError } from '../http.ts'
import { drained, EXPORT_STALL_MS } from '../exports/gate.ts'
import { CancelledBeforeStart, type ExportJobHooks } from '../exports/progress.ts'
import { zoneFormatter } from '../exports/zone-cells.ts'
import { cellOf, streamedXlsx } from '../exports/xlsx.ts'
import type { RequestContext } from '../http-types.ts'
import type { DeskFormat } from './params.ts'
import { BODY_OF } from '../kernel/stored-messages.ts'
import { partyCollector, type PartiesShown } from '../log-parties.ts'

/** What the desk's routes share (their parameters are in params.ts): the held numbers, the export stream and its file names. */

/** The team's threshold (desk_settings), or the default when no admin has set one. */
export async function teamThreshold(db: Db): Promise<{ thresholdMinutes: number; updatedAt: string | null; updatedBy: string | null }> {
  const r = await db.query<{ threshold_minutes: number; updated_at: Date; updated_by: string }>(
    'SELECT threshold_minutes, updated_at, updated_by FROM desk_settings WHERE id = 1',
  )
  const row = r.rows[0]
  return row
    ? { thresholdMinutes: row.threshold_minutes, updatedAt: iso(row.updated_at), updatedBy: row.updated_by }
    : { thresholdMinutes: DEFAULT_THRESHOLD_MS / 60_000, updatedAt: null, updatedBy: null }
}

export const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

/**
 * Numbers the index holds messages of. Forget should delete the desk's rows too (forgetDesk);
 * until it does, a forgotten number's desk rows are never shown.
 */
export const HELD = `SELECT number FROM index_numbers WHERE indexed > 0`

export const BODY = BODY_OF('m')

/**
 * `tz`, the zone the page shows its dates in (an IANA name; the app sends it): each date column's
 * time on that zone's clock (`YYYY-MM-DD HH:MM:SS`, as the message exports' date_local), in
 * columns of their own at the end of the row, so the UTC columns keep their places. The page
 * said "since Nov 13, 6:41 PM" and the file only 2026-11-14T02:41Z. Without `tz`, none.
 */
export function localColumns(tz: string | null, dates: readonly string[]) {
  // Checked as every other export's tz is (zoneValue), by the route's schema before the export waits its turn.
  if (tz === null) return { header: [] as string[], cells: (..._: Array<Date | string | null>) => [] as string[] }
  const local = zoneFormatter(tz)
  return {
    header: dates.map((d) => `${d}_local (${tz})`),
    cells: (...values: Array<Date | string | null>) => values.map((v) => (v === null ? '' : local(new Date(v).getTime()))),
  }
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
export type ExportResult = { rows: number; complete: boolean } & PartiesShown

export async function streamCsv<T extends { party: string }>(
  res: ServerResponse,
  fileName: string,
  rows: number,
  header: readonly string[],
  next: (after: T | null) => Promise<T[]>,
  cells: (row: T) => readonly unknown[],
  done: (result: ExportResult) => void,
  job: Job,
  format: DeskFormat = 'csv',
  /** How long the reader may take nothing before the export is cut (the export gate's). */
  stallMs = EXPORT_STALL_MS,
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
    // A reader that stops taking the file holds an export turn: past the limit it is cut and the
    // turn freed, and the closing entry says how many rows went.
    if (!(await drained(res, stallMs))) gone = true
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
export type DeskReport = 'needs-reply' | 'opt-outs' | 'sent-after-opt-out' | 'quiet-hours'

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
export function exportDone(
  ctx: RequestContext,
  report: DeskReport,
  filters: Record<string, unknown>,
  result: ExportResult,
  format: DeskFormat,
) {
  // The rows have gone out: the start's entry holds the read; a lost end is in the server log.
  void ctx.audit(`${report}.export.done`, { ...filters, format, ...result }).catch(() => undefined)
}

/** A range bound that falls on a UTC midnight (or none): the per-day roll-ups answer for it. */
export const isWholeDay = (x: string | null) => x === null || Date.parse(x) % 86_400_000 === 0

/** An export's progress record, when the tray gave it an id (`job`); null otherwise, and for every other route. */
export type Job = ExportJobHooks | null
