import { partyCollector } from '../log-parties.ts'
import { partyKey } from '../../contract/desk/messages.ts'
import { CancelledBeforeStart, endFailed, type ExportJobHooks } from '../exports/progress.ts'
import { fitFileName } from '../../contract/file-name.ts'
import type { Action } from '../../contract/vocabulary.ts'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Db } from '../db/types.ts'
import { SECURITY_HEADERS, sendError } from '../http.ts'
import { messageCsvHeader, statusWord } from '../../contract/message-csv.ts'
import { BOM, csvCell, csvRow } from '../exports/csv.ts'
import { streamedXlsx, utcDate, type XlsxCell } from '../exports/xlsx.ts'
import { MESSAGE_LAYOUT, PLAIN_BY_COLUMN, plainValues, type OwnColumn } from '../../contract/message-fields.ts'
import type { ExportFormat } from '../../contract/index-api.ts'
import { drained, EXPORT_STALL_MS, ExportRefused, type ExportGate, type ExportTicket } from '../exports/gate.ts'
import { turnOf } from '../exports/turn.ts'
import { dateCells, dateCellsCsv, zoneOffset } from '../exports/zone-cells.ts'
import type { Cursor, Filters } from '../kernel/params.ts'
import { bodiesById, EX, EXPORT_FIELDS, exportBatch, exportBatchText, type ExportRows, statusesById } from './export-queries.ts'
import { positionBases } from './queries.ts'
import { countMatches } from './count-queries.ts'
import { resolveParties } from './filter-sql.ts'
import { fileNameParts, setWithin } from '../../contract/search-filters.ts'

/**
 * Streamed exports (CSV, NDJSON or .xlsx) of a filtered result set or a whole history. Rows come in
 * keyset batches (the same query as search), so memory stays flat whatever the size and the
 * same code works on both engines; each batch waits for the socket to drain (back-pressure)
 * and the walk stops when the client goes away.
 */

/**
 * Rows per keyset batch of a CSV export. Each query costs PGlite ~1.5 ms before its first row,
 * so larger batches save queries, but each batch is one text value in PGlite's memory and V8's
 * (a string that large is born in V8's old generation, which then grows until a full collection).
 * Over 1,000,000 rows, V8's heap peaked this far above its start (fresh server, two runs each):
 * 500 rows +69–73 MiB, 1,000 +41–45, 2,000 +58–61; RSS in the bench: 5,000 75–115 MiB,
 * 2,000 47–80, 1,000 50 (budget 64). Handing the socket 250 rows at a time instead of 1,000 made
 * it worse (+58–86).
 */
const BATCH = 1000
/** NDJSON keeps the JSON batches of text arrays (null and '' differ there), 1,000 rows at a time. */
const NDJSON_BATCH = 1000
/** CSV lines are handed to the socket every so many rows (back-pressure is honoured each time). */
const WRITE_ROWS = 1000
/**
 * The encoding gives the event loop a turn every so many rows: a 1,000-row batch is several
 * milliseconds of string work (far more on a loaded machine), and other requests wait meanwhile.
 */
const YIELD_ROWS = 250
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))
/** Distinct cell texts and bodies remembered during one export (cleared when full). */
const CELL_CACHE = 20_000
const BODY_CACHE = 20_000
/**
 * A cell csvCell would leave as it is: starts with a letter or digit (no formula), and has no
 * quote, comma, line break or surrounding space. Ids and most URLs-free values take this path.
 */
const SAFE_CELL = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/

/** What an index export is, in the contract's vocabulary: one number's whole history, or search results. */
export type ExportAction = 'history.export' | 'search.export'

export function exportActionOf(f: Filters): ExportAction {
  const whole = f.numbers?.length === 1 && setWithin(f, ['numbers'])
  return whole ? 'history.export' : 'search.export'
}

/** `switchboard-search-18323232323-text-refund-error-1204-rows-2026-11-21.csv`, at most 64 characters (contract/file-name.ts). */
export function exportFileName(f: Filters, params: Map<string, string>, rows: number, ext: string, now = new Date()): string {
  const parts = fileNameParts(f, (name) => params.get(name))
  // The numbers are the scope, which the name always keeps; the other filters follow while they fit.
  const scope = parts.find(([n]) => n === 'numbers')?.[1] ?? 'all'
  const filters = parts.flatMap(([n, part]) => (n === 'numbers' ? [] : [part]))
  return fitFileName({ subject: exportActionOf(f) === 'history.export' ? 'history' : 'search', scope, filters, rows, ext, date: now })
}

export interface ExportOptions {
  filters: Filters
  params: Map<string, string>
  format: ExportFormat
  tz: string
  /** Records the export's start durably (its filters and row count) before the first byte goes out. */
  logStart: (details: Record<string, unknown>, action: ExportAction) => Promise<void>
  audit: (action: Action, details: Record<string, unknown>) => void
  log: (line: string) => void
  /** Rows per keyset batch (tests use small ones to cross batch boundaries); default BATCH or NDJSON_BATCH. */
  batch?: number
  /** The concurrency limits and who asks (the principal's name); without a gate, no limit. */
  gate?: ExportGate
  who?: string
  /** The export's progress record (exports/progress.ts), when the browser gave it an id: updated per batch, ended once; its signal is Cancel. */
  job?: ExportJobHooks
}

export async function streamExport(db: Db, req: IncomingMessage, res: ServerResponse, o: ExportOptions): Promise<void> {
  zoneOffset(o.tz) // refuses an unknown zone before anything is sent
  // Known from the filters alone, so that an export cancelled while it waits in line is logged
  // under its own action (a whole history's export, or a search's).
  o.job?.update({ action: exportActionOf(o.filters) })
  o.job?.about({ what: Object.fromEntries(o.params) })
  const who = o.who ?? ''
  let slot: ExportTicket | undefined
  try {
    slot = o.gate?.enter(who)
  } catch (err) {
    if (!(err instanceof ExportRefused)) throw err
    o.log(`index: export refused for ${who || 'someone'}: ${o.gate?.running()} running, ${o.gate?.waiting()} waiting`)
    o.job?.end({ state: 'failed', error: err.body })
    return sendError(res, err, { 'retry-after': String(err.retryAfterS) })
  }
  try {
    const place = slot?.place()
    if (slot && place) {
      o.log(`index: export for ${who || 'someone'} waits in line, place ${place.position}`)
      o.job?.queued(slot.place)
      const waited = await turnOf(req, res, slot.turn, o.job?.signal)
      if (waited !== 'turn') {
        o.log(`index: export for ${who || 'someone'} ${waited === 'cancelled' ? 'cancelled' : 'left by the client'} while waiting`)
        o.job?.end({ state: 'cancelled', by: waited === 'cancelled' ? 'you' : 'browser' })
        // Nothing was sent yet: the browser's download ends without a file.
        if (waited === 'cancelled') sendError(res, new CancelledBeforeStart())
        return
      }
      o.job?.update({ state: 'running' })
    }
    await exportRows(db, req, res, o, slot)
  } catch (err) {
    // The tray learns why in the one envelope; the answer itself is the app's (an envelope before
    // the first byte, a cut connection after it).
    endFailed(o.job, err)
    throw err
  } finally {
    // Frees the slot, or the place in line of one that never ran.
    slot?.leave()
  }
}

/**
 * The response as a sink: writes that wait for the client (back-pressure), count the bytes, and
 * know when it has left or the export was cancelled (which cuts the connection: a download the
 * browser owns then ends unfinished instead of looking complete).
 */
interface Sink {
  write: (chunk: string | Uint8Array) => Promise<void>
  gone: () => boolean
  bytes: () => number
  /** Stops listening for the client leaving. */
  detach: () => void
}

function sinkOf(req: IncomingMessage, res: ServerResponse, cancel: AbortSignal | undefined, stallMs: number): Sink {
  // A client that left before this (while the export waited or counted) has already had its 'close'.
  let gone = res.destroyed
  let bytes = 0
  const onClose = () => {
    gone = true
  }
  const onCancel = () => {
    gone = true
    res.destroy()
  }
  res.on('close', onClose)
  req.on('aborted', onClose)
  if (cancel?.aborted) onCancel()
  else cancel?.addEventListener('abort', onCancel, { once: true })
  return {
    gone: () => gone,
    bytes: () => bytes,
    detach: () => {
      res.off('close', onClose)
      cancel?.removeEventListener('abort', onCancel)
    },
    write: async (chunk) => {
      if (gone) return
      bytes += Buffer.byteLength(chunk)
      if (!res.write(chunk) && !(await drained(res, stallMs))) gone = true
    },
  }
}

/**
 * Texts by id (bodies, statuses), each looked up once: `load` asks for a batch's ids not seen yet.
 * When the cache is full it is cleared (`cleared` drops what was derived from it) and every id of
 * the batch is looked up again, known ones too.
 */
function textsById(lookUp: (ids: number[]) => Promise<Map<number, string>>, cleared: () => void = () => {}) {
  const texts = new Map<number, string>()
  const load = async (ids: number[]) => {
    const distinct = [...new Set(ids)]
    let unknown = distinct.filter((id) => !texts.has(id))
    if (unknown.length === 0) return
    if (texts.size + unknown.length > BODY_CACHE) {
      texts.clear()
      cleared()
      unknown = distinct
    }
    for (const [id, text] of await lookUp(unknown)) texts.set(id, text)
  }
  return { texts, load }
}

/**
 * What the rows of an export look up beside themselves, each once: bodies and status texts by id
 * (the index stores each text once), each number's position base, and CSV cells (most values repeat).
 */
function lookupsOf(db: Db) {
  const bases = new Map<string, number>()
  const bodyCells = new Map<number, string>()
  const cells = new Map<string, string>()
  /** A text cell through csvCell, remembered: most values repeat (statuses, tids, parties, URLs). */
  const cell = (v: string | null): string => {
    if (v === null || v === '') return ''
    if (SAFE_CELL.test(v)) return v
    let c = cells.get(v)
    if (c === undefined) {
      c = csvCell(v)
      if (cells.size >= CELL_CACHE) cells.clear()
      // A copy as the key: v is cut out of a whole batch's text, which a kept slice would keep alive.
      if (v.length <= 500) cells.set(` ${v}`.slice(1), c)
    }
    return c
  }
  const bodyTexts = textsById(
    (ids) => bodiesById(db, ids),
    () => bodyCells.clear(),
  )
  const bodies = bodyTexts.texts
  const loadBodies = bodyTexts.load
  const statusTexts = textsById((ids) => statusesById(db, ids))
  const statuses = statusTexts.texts
  const loadStatuses = statusTexts.load
  /** A row's status: by its id when it has one, else the row's own text (rows written before migration 410). */
  const statusOf = (id: string | null | undefined, own: string | null | undefined): string | null =>
    id ? (statuses.get(Number(id)) ?? null) : (own ?? null)
  const loadBases = async (numbers: Array<string | null>) => {
    const missing = [...new Set(numbers)].filter((n): n is string => n !== null && !bases.has(n))
    if (missing.length) for (const [n, b] of await positionBases(db, missing)) bases.set(n, b)
  }
  return { bases, bodies, bodyCells, cell, loadBodies, loadStatuses, statusOf, loadBases }
}

/**
 * The batch after `rows` (its cursor is their last row), asked for as soon as they are in, so the
 * database reads it while this thread encodes and writes them: one statement after another, the
 * two waited on each other, and each sat idle half of the export. Null after the last batch.
 */
function batchAfter(db: Db, filters: Filters, rows: ExportRows, size: number): Promise<ExportRows> | null {
  if (rows.length < size) return null
  const last = rows.length - 1
  const cursor: Cursor = {
    date: new Date(Number(rows.field(last, EX.date_ms))).toISOString(),
    number: rows.field(last, EX.number),
    ordinal: Number(rows.field(last, EX.ordinal)),
  }
  const next = exportBatchText(db, filters, cursor, size)
  // Not awaited when the client leaves meanwhile: its failure is not this export's.
  next.catch(() => {})
  return next
}

/** What a CSV line's own cells need beyond the row's fields, worked out once per row. */
interface CsvRow {
  position: number
  /** The body's cell (its text looked up by id, through csvCell). */
  body: string
}
type CsvCellOf = (t: string[], row: CsvRow) => string

/**
 * The CSV cells of a row, in the layout's order (contract/message-fields.ts). Our own values
 * (digits, integers, the dates we format) need no quoting or neutralising; every text from the
 * upstream goes through csvCell (`cell` remembers it). The two dates are one cell function
 * (`utc,local`), so date_local has none of its own.
 */
function csvCells(
  dates: (ms: number) => string,
  cell: (v: string | null) => string,
  statusOf: (id: string | null | undefined, own: string | null | undefined) => string | null,
): CsvCellOf[] {
  const own: Record<OwnColumn, CsvCellOf | null> = {
    number: (t) => t[EX.number]!,
    ordinal: (t) => t[EX.ordinal]!,
    position: (_, row) => String(row.position),
    date_utc: (t) => (t[EX.date_raw] ? `${cell(t[EX.date_raw]!)},` : dates(Number(t[EX.date_ms]))),
    date_local: null,
    party: (t) => cell(t[EX.phone]!),
    body: (_, row) => row.body,
    mms: (t) => (t[EX.mms] === 'true' ? 'yes' : 'no'),
    status: (t) => statusWord(t[EX.status_code] ? Number(t[EX.status_code]) : null),
    status_raw: (t) => cell(statusOf(t[EX.status_id], t[EX.status])),
    status_code: (t) => t[EX.status_code]!,
    tid: (t) => cell(t[EX.fetched_tid]!),
    message_tid: (t) => cell(t[EX.tid]!),
  }
  return MESSAGE_LAYOUT.flatMap((c) => {
    const plain = PLAIN_BY_COLUMN.get(c)
    if (plain) {
      const at = EX[plain.column]
      return [(t: string[]) => cell(t[at]!)]
    }
    const f = own[c as OwnColumn]
    return f ? [f] : []
  })
}

/** CSV in the one message layout (contract/message-csv.ts), count.rows batch by batch; returns the rows count.rows. */
async function writeCsv(
  db: Db,
  o: ExportOptions,
  sink: Sink,
  slot: ExportTicket | undefined,
  total: number,
  count: { rows: number; parties: ReturnType<typeof partyCollector> },
): Promise<void> {
  const { bases, bodies, bodyCells, cell, loadBodies, loadStatuses, statusOf, loadBases } = lookupsOf(db)
  const cells = csvCells(dateCellsCsv(o.tz), cell, statusOf)
  const csvBatch = o.batch ?? BATCH
  const write = sink.write
  await write(BOM + csvRow(messageCsvHeader(o.tz)))
  const after = (rows: ExportRows) => batchAfter(db, o.filters, rows, csvBatch)
  let coming: Promise<ExportRows> | null = exportBatchText(db, o.filters, null, csvBatch)
  while (coming && !sink.gone()) {
    const batch: ExportRows = await coming
    const numbers = new Set<string>()
    const ids: number[] = []
    const statusIds: number[] = []
    for (let k = 0; k < batch.length; k++) {
      numbers.add(batch.field(k, EX.number))
      const id = batch.field(k, EX.body_id)
      if (id !== '') ids.push(Number(id))
      const sid = batch.field(k, EX.status_id)
      if (sid !== '') statusIds.push(Number(sid))
    }
    // This batch's look-ups are asked for before the next batch, so they are not queued behind it.
    const looked = Promise.all([loadBases([...numbers]), loadBodies(ids), loadStatuses(statusIds)])
    coming = after(batch)
    await looked
    // Nulls come as '' here (exportBatchText): the same empty cell either way.
    const t: string[] = new Array<string>(EXPORT_FIELDS).fill('')
    const row: CsvRow = { position: 1, body: '' }
    let out = ''
    for (let k = 0; k < batch.length; k++) {
      batch.row(k, t)
      const base = bases.get(t[EX.number]!)
      row.position = base === undefined ? 1 : Math.max(1, base - Number(t[EX.ordinal]) + 1)
      const bodyId = t[EX.body_id]!
      if (bodyId === '') row.body = cell(t[EX.body]!)
      else {
        const id = Number(bodyId)
        let c = bodyCells.get(id)
        if (c === undefined) bodyCells.set(id, (c = csvCell(bodies.get(id) ?? null)))
        row.body = c
      }
      let line = cells[0]!(t, row)
      for (let i = 1; i < cells.length; i++) line += `,${cells[i]!(t, row)}`
      out += `${line}\r\n`
      // Written every WRITE_ROWS rows: the lines die young instead of piling up for the whole batch.
      if ((k + 1) % WRITE_ROWS === 0) {
        await write(out)
        out = ''
      } else if ((k + 1) % YIELD_ROWS === 0) await yieldToLoop()
    }
    if (out) await write(out)
    count.rows += batch.length
    for (let k = 0; k < batch.length; k++) count.parties.add(batch.field(k, EX.phone))
    slot?.progress(count.rows, total)
    o.job?.update({ rows: count.rows, bytes: sink.bytes() })
  }
}

/** Column widths (characters) of the .xlsx's own columns; a plain field's is in its row. */
const XLSX_WIDTHS: Record<OwnColumn, number> = {
  number: 14,
  ordinal: 8,
  position: 8,
  date_utc: 19,
  date_local: 19,
  party: 14,
  body: 50,
  mms: 5,
  status: 8,
  status_raw: 24,
  status_code: 6,
  tid: 12,
  message_tid: 12,
}
const widthOf = (c: (typeof MESSAGE_LAYOUT)[number]) => PLAIN_BY_COLUMN.get(c)?.width ?? XLSX_WIDTHS[c as OwnColumn]

/** What an .xlsx row's own cells need beyond the row's fields, worked out once per row. */
interface XlsxRow {
  ms: number
  position: number
  body: string | null
  code: number | null
}
type XlsxCellOf = (t: string[], row: XlsxRow) => XlsxCell

/** The .xlsx cells of a row, in the layout's order: ids and phones as text, counts as numbers, dates as dates. */
function xlsxCells(
  offsetAt: ((ms: number) => number) | null,
  statusOf: (id: string | null | undefined, own: string | null | undefined) => string | null,
): XlsxCellOf[] {
  const text = (v: string) => (v === '' ? null : v)
  const own: Record<OwnColumn, XlsxCellOf> = {
    number: (t) => t[EX.number]!,
    ordinal: (t) => Number(t[EX.ordinal]),
    position: (_, row) => row.position,
    date_utc: (t, row) => (t[EX.date_raw] ? t[EX.date_raw] : utcDate(row.ms)),
    date_local: (t, row) => (t[EX.date_raw] ? null : utcDate(offsetAt ? row.ms + offsetAt(row.ms) : row.ms)),
    party: (t) => text(t[EX.phone]!),
    body: (_, row) => row.body,
    mms: (t) => (t[EX.mms] === 'true' ? 'yes' : 'no'),
    status: (_, row) => statusWord(row.code),
    status_raw: (t) => statusOf(t[EX.status_id], t[EX.status]),
    status_code: (_, row) => row.code,
    tid: (t) => text(t[EX.fetched_tid]!),
    message_tid: (t) => text(t[EX.tid]!),
  }
  return MESSAGE_LAYOUT.map((c) => {
    const plain = PLAIN_BY_COLUMN.get(c)
    if (!plain) return own[c as OwnColumn]
    const at = EX[plain.column]
    return (t: string[]) => text(t[at]!)
  })
}

/**
 * .xlsx in the one message layout (contract/message-csv.ts): the same columns and status words
 * as the CSV, ids and phones as text, ordinal/position/status_code as numbers, the two dates as
 * date cells (UTC, and the zone's clock), or the upstream's text when it sent no date.
 */
async function writeXlsx(
  db: Db,
  o: ExportOptions,
  sink: Sink,
  slot: ExportTicket | undefined,
  total: number,
  count: { rows: number; parties: ReturnType<typeof partyCollector> },
): Promise<void> {
  const { bases, bodies, loadBodies, loadStatuses, statusOf, loadBases } = lookupsOf(db)
  const offsetAt = zoneOffset(o.tz)
  const size = o.batch ?? BATCH
  const columns = messageCsvHeader(o.tz).map((name, i) => ({ name, width: widthOf(MESSAGE_LAYOUT[i]!) }))
  const cells = xlsxCells(offsetAt, statusOf)
  const sheet = streamedXlsx({ sheet: exportActionOf(o.filters) === 'history.export' ? 'History' : 'Search', columns }, sink.write)
  const text = (v: string) => (v === '' ? null : v)
  let coming: Promise<ExportRows> | null = exportBatchText(db, o.filters, null, size)
  while (coming && !sink.gone()) {
    const batch: ExportRows = await coming
    const numbers = new Set<string>()
    const ids: number[] = []
    const statusIds: number[] = []
    for (let k = 0; k < batch.length; k++) {
      numbers.add(batch.field(k, EX.number))
      const id = batch.field(k, EX.body_id)
      if (id !== '') ids.push(Number(id))
      const sid = batch.field(k, EX.status_id)
      if (sid !== '') statusIds.push(Number(sid))
    }
    const looked = Promise.all([loadBases([...numbers]), loadBodies(ids), loadStatuses(statusIds)])
    coming = batchAfter(db, o.filters, batch, size)
    await looked
    const t: string[] = new Array<string>(EXPORT_FIELDS).fill('')
    const row: XlsxRow = { ms: 0, position: 1, body: null, code: null }
    for (let k = 0; k < batch.length; k++) {
      batch.row(k, t)
      const base = bases.get(t[EX.number]!)
      row.ms = Number(t[EX.date_ms])
      row.position = base === undefined ? 1 : Math.max(1, base - Number(t[EX.ordinal]) + 1)
      row.body = t[EX.body_id] === '' ? text(t[EX.body]!) : (bodies.get(Number(t[EX.body_id])) ?? null)
      row.code = t[EX.status_code] ? Number(t[EX.status_code]) : null
      sheet.row(cells.map((c) => c(t, row)))
      if ((k + 1) % YIELD_ROWS === 0) await yieldToLoop()
    }
    // The batch's bytes go out (waiting for the client) before the next batch is encoded.
    await sheet.batchDone()
    count.rows += batch.length
    for (let k = 0; k < batch.length; k++) count.parties.add(batch.field(k, EX.phone))
    slot?.progress(count.rows, total)
    o.job?.update({ rows: count.rows, bytes: sink.bytes() })
  }
  // A file cut short stays cut short: no closing parts, so it does not open as if complete.
  if (!sink.gone()) await sheet.end()
}

/** NDJSON, the same fields in camelCase, count.rows batch by batch; returns the rows count.rows. */
async function writeNdjson(
  db: Db,
  o: ExportOptions,
  sink: Sink,
  slot: ExportTicket | undefined,
  total: number,
  count: { rows: number; parties: ReturnType<typeof partyCollector> },
): Promise<void> {
  const { bases, bodies, loadBodies, loadStatuses, statusOf, loadBases } = lookupsOf(db)
  const dateTuple = dateCells(o.tz)
  const ndjsonBatch = o.batch ?? NDJSON_BATCH
  const write = sink.write
  let cursor: Cursor | null = null
  while (!sink.gone()) {
    const batch = await exportBatch(db, o.filters, cursor, ndjsonBatch)
    await loadBases(batch.map((r) => r[EX.number]!))
    const ids: number[] = []
    const statusIds: number[] = []
    for (const t of batch) {
      if (t[EX.body_id]) ids.push(Number(t[EX.body_id]))
      if (t[EX.status_id]) statusIds.push(Number(t[EX.status_id]))
    }
    await loadBodies(ids)
    await loadStatuses(statusIds)
    let out = ''
    let k = 0
    for (const t of batch) {
      if (++k % YIELD_ROWS === 0) await yieldToLoop()
      {
        const number = t[EX.number]!
        const ordinal = Number(t[EX.ordinal])
        const dateMs = Number(t[EX.date_ms])
        const dateRaw = t[EX.date_raw] ?? null
        const bodyId = t[EX.body_id] === null ? null : Number(t[EX.body_id])
        const position = Math.max(1, (bases.get(number) ?? ordinal) - ordinal + 1)
        const both = dateRaw ? null : dateTuple(dateMs)
        const body = bodyId === null ? (t[EX.body] ?? null) : (bodies.get(bodyId) ?? null)
        const m = {
          number,
          tid: t[EX.fetched_tid],
          ordinal,
          position,
          ...plainValues((f) => t[EX[f.column]]),
          date: both ? both[0] : null,
          phone: t[EX.phone],
          body,
          mms: t[EX.mms] === 'true',
          status: statusOf(t[EX.status_id], t[EX.status]),
          statusCode: t[EX.status_code] === null ? null : Number(t[EX.status_code]),
          messageTid: t[EX.tid],
          ...(dateRaw ? { dateRaw } : {}),
        }
        out += `${JSON.stringify({ ...m, dateLocal: both ? both[1] : null, timeZone: o.tz })}\n`
      }
    }
    count.rows += batch.length
    for (const t of batch) count.parties.add(t[EX.phone])
    slot?.progress(count.rows, total)
    await write(out)
    o.job?.update({ rows: count.rows, bytes: sink.bytes() })
    if (batch.length < ndjsonBatch) break
    const last = batch[batch.length - 1]!
    cursor = { date: new Date(Number(last[EX.date_ms])).toISOString(), number: last[EX.number]!, ordinal: Number(last[EX.ordinal]) }
  }
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
}

async function exportRows(
  db: Db,
  req: IncomingMessage,
  res: ServerResponse,
  o: ExportOptions,
  slot: ExportTicket | undefined,
): Promise<void> {
  await resolveParties(db, o.filters)
  const total = await countMatches(db, o.filters)
  const name = exportFileName(o.filters, o.params, total, o.format)
  const action = exportActionOf(o.filters)
  await o.logStart({ what: Object.fromEntries(o.params), format: o.format, total }, action)
  o.job?.update({ total, fileName: name, action })
  const out = sinkOf(req, res, o.job?.signal, o.gate?.stallMs ?? EXPORT_STALL_MS)
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': CONTENT_TYPES[o.format],
    'content-disposition': `attachment; filename="${name}"`,
    'cache-control': 'no-store',
    'x-row-count': String(total),
  })
  // The customers sent (their phones as stored), for the closing entry: filtering the log by one finds the export.
  const count = { rows: 0, parties: partyCollector() }
  try {
    await { csv: writeCsv, ndjson: writeNdjson, xlsx: writeXlsx }[o.format](db, o, out, slot, total, count)
  } finally {
    out.detach()
    const sent = count.parties.shown()
    o.audit(`${action}.done`, {
      what: Object.fromEntries(o.params),
      format: o.format,
      rows: count.rows,
      complete: !out.gone(),
      parties: sent.parties.map(partyKey).filter((k) => k !== ''),
      ...(sent.partiesMore ? { partiesMore: sent.partiesMore } : {}),
    })
  }
  if (out.gone()) {
    const cancelled = o.job?.signal.aborted === true
    o.log(`index: export ${cancelled ? 'cancelled' : 'stopped by the client'} after ${count.rows} rows`)
    o.job?.end({ state: 'cancelled', by: cancelled ? 'you' : 'browser' })
    return
  }
  res.end()
  o.job?.update({ rows: count.rows, bytes: out.bytes() })
  o.job?.end({ state: 'done' })
}
