import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Db } from '../db/types.ts'
import { invalid } from '../errors.ts'
import { SECURITY_HEADERS } from '../http.ts'
import { BOM, csvCell, csvRow } from './csv.ts'
import {
  bodiesById,
  countMatches,
  exportBatch,
  positionBases,
  resolveParties,
  type Cursor,
  type ExportTuple,
  type Filters,
} from './queries.ts'

/**
 * Streamed exports (CSV or NDJSON) of a filtered result set or a whole history. Rows come in
 * keyset batches (the same query as search), so memory stays flat whatever the size and the
 * same code works on both engines; each batch waits for the socket to drain (back-pressure)
 * and the walk stops when the client goes away.
 */

/**
 * Rows per keyset batch. Measured over 1,000,000 rows on PGlite: 5,000 grew the process RSS by
 * ~150 MiB (PGlite's WebAssembly memory and V8's heap), 250–500 by ~45–90 MiB, at the same speed
 * when rows were JSON objects; as text arrays with bodies by id, 2,000 is faster than 500.
 */
const BATCH = 1000
/** Distinct cell texts and bodies remembered during one export (cleared when full). */
const CELL_CACHE = 20_000
const BODY_CACHE = 20_000
/**
 * A cell csvCell would leave as it is: starts with a letter or digit (no formula), and has no
 * quote, comma, line break or surrounding space. Ids and most URLs-free values take this path.
 */
const SAFE_CELL = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/

/** One IANA zone's offset from UTC (ms) at an instant, cached per quarter hour; null for UTC. */
export function zoneOffset(tz: string): ((ms: number) => number) | null {
  let dtf: Intl.DateTimeFormat
  try {
    dtf = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
  } catch {
    throw invalid('tz', 'tz must be an IANA time zone such as Europe/Paris or UTC.')
  }
  if (dtf.resolvedOptions().timeZone === 'UTC') return null
  const offsets = new Map<number, number>()
  return (ms: number) => {
    // Zone offsets change on quarter hours at the finest: one Intl call per quarter hour of data.
    const key = Math.floor(ms / 900_000)
    let off = offsets.get(key)
    if (off === undefined) {
      const parts = Object.fromEntries(dtf.formatToParts(new Date(key * 900_000)).map((p) => [p.type, p.value]))
      const local = Date.UTC(
        Number(parts.year),
        Number(parts.month) - 1,
        Number(parts.day),
        Number(parts.hour),
        Number(parts.minute),
        Number(parts.second),
      )
      off = local - key * 900_000
      if (offsets.size > 100_000) offsets.clear()
      offsets.set(key, off)
    }
    return off
  }
}

/** A formatter for one IANA zone: `YYYY-MM-DD HH:MM:SS` local time, offsets cached per 15 min. */
export function zoneFormatter(tz: string): (ms: number) => string {
  const offsetAt = zoneOffset(tz)
  return (ms) => new Date(offsetAt ? ms + offsetAt(ms) : ms).toISOString().slice(0, 19).replace('T', ' ')
}

const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'))
const DAY_MS = 86_400_000

/**
 * `2026-11-21T12:04:00Z` and the local `2026-11-21 13:04:00` of each instant, as isoOf and
 * zoneFormatter make them, without a Date per row: the day's text is remembered (an export's
 * rows come in date order) and the time of day is integer arithmetic. Whole seconds in years
 * 1–9999 only (the upstream's dates are); anything else goes the slow way.
 */
export function dateCells(tz: string): (ms: number) => [utc: string, local: string] {
  const offsetAt = zoneOffset(tz)
  const slow = (ms: number): [string, string] => {
    const local = new Date(offsetAt ? ms + offsetAt(ms) : ms).toISOString().slice(0, 19).replace('T', ' ')
    return [`${new Date(ms).toISOString().slice(0, 19)}Z`, local]
  }
  const dayText = () => {
    let last = Number.NaN
    let text = ''
    return (day: number) => {
      if (day !== last) {
        last = day
        text = new Date(day * DAY_MS).toISOString().slice(0, 10)
      }
      return text
    }
  }
  const utcDay = dayText()
  const localDay = dayText()
  const hms = (t: number) => `${TWO[Math.floor(t / 3_600_000)]}:${TWO[Math.floor(t / 60_000) % 60]}:${TWO[Math.floor(t / 1000) % 60]}`
  return (ms) => {
    if (ms % 1000 !== 0 || !(ms > -62_135_596_800_000 && ms < 253_402_300_799_000)) return slow(ms)
    const lms = offsetAt ? ms + offsetAt(ms) : ms
    const d = Math.floor(ms / DAY_MS)
    const ld = Math.floor(lms / DAY_MS)
    const u = utcDay(d)
    const l = localDay(ld)
    if (u[4] !== '-' || l[4] !== '-' || u[0] === '-' || l[0] === '-') return slow(ms)
    return [`${u}T${hms(ms - d * DAY_MS)}Z`, `${l} ${hms(lms - ld * DAY_MS)}`]
  }
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40)

/** `switchboard-messages-18323232323-q-refund-error-2026-01-01-to-2026-03-31-1204-rows-2026-11-21.csv` */
export function exportFileName(f: Filters, params: Map<string, string>, rows: number, ext: string, now = new Date()): string {
  const parts: string[] = []
  parts.push(f.numbers ? (f.numbers.length === 1 ? f.numbers[0]! : `${f.numbers.length}-numbers`) : 'all-numbers')
  if (f.q) parts.push(`text-${slug(f.q) || 'match'}`)
  if (f.party) parts.push(`party-${f.party}`)
  if (f.direction) parts.push(f.direction)
  if (f.status) parts.push(f.status.kind === 'code' ? `status-${f.status.code}` : f.status.kind)
  if (f.media !== null) parts.push(f.media ? 'with-media' : 'no-media')
  const from = params.get('from')
  const to = params.get('to')
  if (from || to) parts.push(`${from ? slug(from) : 'start'}-to-${to ? slug(to) : 'now'}`)
  parts.push(`${rows}-rows`)
  return `switchboard-messages-${parts.filter(Boolean).join('-')}-${now.toISOString().slice(0, 10)}.${ext}`
}

const HEADER = [
  'number',
  'ordinal',
  'position',
  'date_utc',
  'date_local',
  'party',
  'direction',
  'body',
  'mms',
  'media_url',
  'status',
  'status_code',
  'message_id',
  'system_id',
  'tid',
  'message_tid',
]

export interface ExportOptions {
  filters: Filters
  params: Map<string, string>
  format: 'csv' | 'ndjson'
  tz: string
  audit: (action: string, details: Record<string, unknown>) => void
  log: (line: string) => void
}

export async function streamExport(db: Db, req: IncomingMessage, res: ServerResponse, o: ExportOptions): Promise<void> {
  zoneOffset(o.tz) // refuses an unknown zone before anything is sent
  await resolveParties(db, o.filters)
  const total = await countMatches(db, o.filters)
  const name = exportFileName(o.filters, o.params, total, o.format === 'csv' ? 'csv' : 'ndjson')
  let gone = false
  const onClose = () => {
    gone = true
  }
  res.on('close', onClose)
  req.on('aborted', onClose)
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': o.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    'content-disposition': `attachment; filename="${name}"`,
    'cache-control': 'no-store',
    'x-row-count': String(total),
  })
  const write = async (chunk: string) => {
    if (gone) return
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done)
          res.off('close', done)
          resolve()
        }
        res.on('drain', done)
        res.on('close', done)
      })
    }
  }
  if (o.format === 'csv') await write(BOM + csvRow([...HEADER.slice(0, 4), `date_local (${o.tz})`, ...HEADER.slice(5)]))
  let cursor: Cursor | null = null
  let written = 0
  const bases = new Map<string, number>()
  const bodies = new Map<number, string>()
  const bodyCells = new Map<number, string>()
  const cells = new Map<string, string>()
  const dates = dateCells(o.tz)
  /** A text cell through csvCell, remembered: most values repeat (statuses, tids, parties, URLs). */
  const cell = (v: string | null): string => {
    if (v === null) return ''
    if (SAFE_CELL.test(v)) return v
    let c = cells.get(v)
    if (c === undefined) {
      c = csvCell(v)
      if (cells.size >= CELL_CACHE) cells.clear()
      if (v.length <= 500) cells.set(v, c)
    }
    return c
  }
  try {
    while (!gone) {
      const batch: ExportTuple[] = await exportBatch(db, o.filters, cursor, BATCH)
      const missing = [...new Set(batch.map((r) => r[0]!))].filter((n) => !bases.has(n))
      if (missing.length) for (const [n, b] of await positionBases(db, missing)) bases.set(n, b)
      const unknownBodies = [...new Set(batch.map((r) => (r[10] === null ? -1 : Number(r[10]))))].filter((id) => id >= 0 && !bodies.has(id))
      if (unknownBodies.length) {
        if (bodies.size + unknownBodies.length > BODY_CACHE) {
          bodies.clear()
          bodyCells.clear()
        }
        for (const [id, b] of await bodiesById(db, unknownBodies)) bodies.set(id, b)
      }
      const lines: string[] = []
      for (const t of batch) {
        const number = t[0]!
        const ordinal = Number(t[3])
        const dateMs = Number(t[6])
        const dateRaw = t[7] ?? null
        const bodyId = t[10] === null ? null : Number(t[10])
        const position = Math.max(1, (bases.get(number) ?? ordinal) - ordinal + 1)
        const both = dateRaw ? null : dates(dateMs)
        const date = both ? both[0] : null
        const dateLocal = both ? both[1] : null
        const mms = t[12] === 'true'
        const statusCode = t[15] === null ? null : Number(t[15])
        if (o.format === 'csv') {
          let bodyCell: string
          if (bodyId === null) bodyCell = csvCell(t[11] ?? null)
          else {
            let c = bodyCells.get(bodyId)
            if (c === undefined) bodyCells.set(bodyId, (c = csvCell(bodies.get(bodyId) ?? null)))
            bodyCell = c
          }
          // Our own values (digits, integers, the dates we format) need no quoting or
          // neutralising; every text from the upstream goes through csvCell (cell remembers it).
          lines.push(
            `${number},${ordinal},${position},${date ?? cell(dateRaw)},${dateLocal ?? ''},${cell(t[8] ?? null)},${cell(t[9] ?? null)},${bodyCell},${mms ? 'yes' : 'no'},${cell(t[13] ?? null)},${cell(t[14] ?? null)},${statusCode ?? ''},${cell(t[5] ?? null)},${cell(t[4] ?? null)},${cell(t[1] ?? null)},${cell(t[2] ?? null)}\r\n`,
          )
        } else {
          const body = bodyId === null ? (t[11] ?? null) : (bodies.get(bodyId) ?? null)
          const m = {
            number,
            tid: t[1],
            ordinal,
            position,
            systemId: t[4],
            messageId: t[5],
            date,
            phone: t[8],
            direction: t[9],
            body,
            mms,
            mediaUrl: t[13],
            status: t[14],
            statusCode,
            messageTid: t[2],
            ...(dateRaw ? { dateRaw } : {}),
          }
          lines.push(`${JSON.stringify({ ...m, dateLocal, timeZone: o.tz })}\n`)
        }
      }
      written += batch.length
      await write(lines.join(''))
      if (batch.length < BATCH) break
      const last = batch[batch.length - 1]!
      cursor = { date: new Date(Number(last[6])).toISOString(), number: last[0]!, ordinal: Number(last[3]) }
    }
  } finally {
    res.off('close', onClose)
    o.audit('export', { what: Object.fromEntries(o.params), format: o.format, rows: written, complete: !gone })
  }
  if (gone) {
    o.log(`index: export stopped by the client after ${written} rows`)
    return
  }
  res.end()
}
