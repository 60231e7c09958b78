import type { Queryable } from '../db/types.ts'
import type { Cursor, Filters } from '../kernel/params.ts'
import { PLAIN_FIELDS, type PlainColumn } from '../../contract/message-fields.ts'
import { whereOf } from './filter-sql.ts'
import { keyset } from './queries.ts'

/**
 * The export's reads: its batches (as text, or as JSON when a text would not cut cleanly), and
 * the bodies and status texts they name by id.
 */

/**
 * The fields of an export row, in order, each with what the ordered subquery reads for it (over
 * index_messages m). Bodies and status texts come by id (the export looks each distinct one up
 * once; a scalar subquery per row cost PGlite 1.4 ms per 1,000-row batch), so `body` and `status`
 * are read only for a row without its id. Both export queries (exportBatch's JSON, exportBatchText's
 * text) are made from this list, and the writers read a field by its name (`t[EX.body_id]`), never
 * by its place: a new field is an entry here and the cells that show it.
 */
const OWN_EXPORT_SQL = {
  number: 'm.number',
  fetched_tid: 'm.fetched_tid',
  tid: 'm.tid',
  ordinal: 'm.ordinal',
  // Milliseconds since the epoch: see the outer expression in exportColumn.
  date_ms: 'm.date',
  date_raw: 'm.date_raw',
  phone: 'm.phone',
  body_id: 'm.body_id',
  body: 'CASE WHEN m.body_id IS NULL THEN m.body END',
  mms: 'm.mms',
  status: 'CASE WHEN m.status_id IS NULL THEN m.status END',
  status_code: 'm.status_code',
  status_id: 'm.status_id',
} as const
/** The fields of an export row: the index's own, then the plain fields' columns (contract/message-fields.ts). */
export type ExportField = keyof typeof OWN_EXPORT_SQL | PlainColumn
const EXPORT_SQL: Record<ExportField, string> = {
  ...OWN_EXPORT_SQL,
  ...(Object.fromEntries(PLAIN_FIELDS.map((f) => [f.column, `m.${f.column}`])) as Record<PlainColumn, string>),
}
const EXPORT_NAMES = Object.keys(EXPORT_SQL) as ExportField[]
/** Each export field's place in a row. */
export const EX = Object.freeze(Object.fromEntries(EXPORT_NAMES.map((n, i) => [n, i]))) as { readonly [K in ExportField]: number }
/** Fields of an export row (ExportTuple). */
export const EXPORT_FIELDS = EXPORT_NAMES.length
/** The ordered subquery's column list. */
const EXPORT_INNER = EXPORT_NAMES.map((n) => `${EXPORT_SQL[n]} AS ${n}`).join(', ')
/**
 * A field over the subquery's row. date_part, a float, costs a third of extract's numeric
 * arithmetic; the upstream's dates are whole seconds, exact either way.
 */
const exportColumn = (n: ExportField) => (n === 'date_ms' ? `date_part('epoch', m.date_ms) * 1000` : `m.${n}`)

/** One export row, every value as text or null, in EXPORT_SQL's order (EX gives each field's place). */
export type ExportTuple = Array<string | null>

/**
 * One export batch, newest first, as a single JSON value: per-field transfer costs more than the
 * query on PGlite, and a text array is the cheapest JSON PostgreSQL builds (array_agg keeps the
 * ordered subquery's order; the export checks it anyway).
 */
export async function exportBatch(db: Queryable, f: Filters, cursor: Cursor | null, limit: number): Promise<ExportTuple[]> {
  if ((f.party && f.parties?.length === 0) || (f.q && f.bodyIds?.length === 0)) return []
  const params: unknown[] = []
  const w = whereOf(f, params)
  if (cursor) w.push(keyset(f, cursor, params))
  params.push(limit)
  const r = await db.query<{ j: string | null }>(
    `SELECT array_to_json(array_agg(ARRAY[${EXPORT_NAMES.map((n) => `(${exportColumn(n)})::text`).join(', ')}]))::text AS j
     FROM (SELECT ${EXPORT_INNER} FROM index_messages m ${w.length ? `WHERE ${w.join(' AND ')}` : ''} ORDER BY m.date DESC, m.number DESC, m.ordinal DESC LIMIT $${params.length}) m`,
    params,
  )
  const j = r.rows[0]?.j
  return inOrder(j ? (JSON.parse(j) as ExportTuple[]) : [])
}

/** Separators of exportBatchText: a field's end (unit separator) and a row's end (record separator). */
export const FIELD_SEP = '\u001f'
export const ROW_SEP = '\u001e'

/** A batch of export rows, read one row at a time into a reused array of EXPORT_FIELDS fields. */
export interface ExportRows {
  length: number
  /** Row k's fields, as in ExportTuple but '' for null, written into `into`. */
  row(k: number, into: string[]): void
  /** Row k's field i alone. */
  field(k: number, i: number): string
}

/**
 * One CSV export batch, with '' for null (a CSV cell cannot tell them apart). The rows come as
 * one text value, fields joined by FIELD_SEP and rows by ROW_SEP: PostgreSQL builds it for about
 * two thirds of what the JSON of text arrays costs, and the fields are cut out of it only as the
 * export writes them (no array per row, little for the garbage collector). An upstream text
 * holding either separator would shift the fields, and the cutting proves it did not: the row
 * count PostgreSQL reports must equal the pieces between ROW_SEPs, and each piece must hold
 * exactly EXPORT_FIELDS fields (any extra separator adds a piece or a field). A batch that fails the proof
 * is asked for again as JSON.
 */
export async function exportBatchText(db: Queryable, f: Filters, cursor: Cursor | null, limit: number): Promise<ExportRows> {
  if ((f.party && f.parties?.length === 0) || (f.q && f.bodyIds?.length === 0)) return tupleRows([])
  const params: unknown[] = []
  const w = whereOf(f, params)
  if (cursor) w.push(keyset(f, cursor, params))
  params.push(limit)
  const r = await db.query<{ n: number; t: string | null }>(
    `SELECT count(*)::int AS n, string_agg(concat(${EXPORT_NAMES.map(exportColumn).join(`, E'\\x1f', `)}), E'\\x1e') AS t
     FROM (SELECT ${EXPORT_INNER} FROM index_messages m ${w.length ? `WHERE ${w.join(' AND ')}` : ''} ORDER BY m.date DESC, m.number DESC, m.ordinal DESC LIMIT $${params.length}) m`,
    params,
  )
  const n = r.rows[0]?.n ?? 0
  const t = r.rows[0]?.t ?? ''
  if (n === 0) return tupleRows([])
  // cuts[W k] is where row k starts (minus one); cuts[W k + i + 1] is the separator after its field i.
  const W = EXPORT_FIELDS + 1
  const cuts = new Int32Array(W * n)
  let at = -1
  let proved = true
  for (let k = 0; proved && k < n; k++) {
    const end = k === n - 1 ? t.length : t.indexOf(ROW_SEP, at + 1)
    if (end < 0) proved = false
    cuts[W * k] = at
    let sep = at
    for (let i = 1; proved && i < EXPORT_FIELDS; i++) {
      sep = t.indexOf(FIELD_SEP, sep + 1)
      if (sep < 0 || sep > end) proved = false
      cuts[W * k + i] = sep
    }
    const extra = t.indexOf(FIELD_SEP, sep + 1)
    if (extra >= 0 && extra < end) proved = false
    cuts[W * k + EXPORT_FIELDS] = end
    at = end
  }
  // The last row ends the text: a ROW_SEP inside it (one piece too many) fails here.
  if (proved && t.indexOf(ROW_SEP, cuts[W * (n - 1)]! + 1) >= 0) proved = false
  if (!proved) return tupleRows((await exportBatch(db, f, cursor, limit)).map((row) => row.map((v) => v ?? '')))
  const rows: ExportRows = {
    length: n,
    row(k, into) {
      for (let i = 0; i < EXPORT_FIELDS; i++) into[i] = t.slice(cuts[W * k + i]! + 1, cuts[W * k + i + 1])
      // concat() writes booleans as t/f; the JSON path's 'true'/'false' is what the export reads.
      into[EX.mms] = into[EX.mms] === 't' ? 'true' : 'false'
    },
    field: (k, i) => t.slice(cuts[W * k + i]! + 1, cuts[W * k + i + 1]),
  }
  return inOrderRows(rows)
}

function tupleRows(tuples: ExportTuple[]): ExportRows {
  return {
    length: tuples.length,
    row(k, into) {
      const t = tuples[k]!
      for (let i = 0; i < EXPORT_FIELDS; i++) into[i] = t[i] ?? ''
    },
    field: (k, i) => tuples[k]![i] ?? '',
  }
}

/** Checks the order of a text batch (newest first); sorts a copy in the (never seen) case it was not kept. */
function inOrderRows(rows: ExportRows): ExportRows {
  // The dates alone decide, but for ties (a number's messages in one second, or two numbers').
  const key = (k: number): ExportTuple => {
    const t: ExportTuple = new Array<string | null>(EXPORT_FIELDS).fill(null)
    for (const i of [EX.number, EX.ordinal, EX.date_ms]) t[i] = rows.field(k, i)
    return t
  }
  let prevDate = rows.length > 0 ? Number(rows.field(0, EX.date_ms)) : 0
  for (let k = 1; k < rows.length; k++) {
    const date = Number(rows.field(k, EX.date_ms))
    if (date < prevDate || (date === prevDate && before(key(k - 1), key(k)) < 0)) {
      prevDate = date
      continue
    }
    const all: ExportTuple[] = []
    for (let j = 0; j < rows.length; j++) {
      const t: string[] = []
      rows.row(j, t)
      all.push(t)
    }
    return tupleRows(all.sort(before))
  }
  return rows
}

const before = (a: ExportTuple, b: ExportTuple) => {
  const da = Number(a[EX.date_ms])
  const db_ = Number(b[EX.date_ms])
  if (da !== db_) return db_ - da
  const na = a[EX.number] ?? ''
  const nb = b[EX.number] ?? ''
  return na !== nb ? (na < nb ? 1 : -1) : Number(b[EX.ordinal]) - Number(a[EX.ordinal])
}

/** Newest first, as the keyset needs: sorts in the (never seen) case an aggregate did not keep the order. */
function inOrder(rows: ExportTuple[]): ExportTuple[] {
  for (let k = 1; k < rows.length; k++)
    if (before(rows[k - 1]!, rows[k]!) >= 0) {
      rows.sort(before)
      break
    }
  return rows
}

/** Status texts by id (index_statuses). */
export async function statusesById(db: Queryable, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map()
  const r = await db.query<{ id: number; status: string }>('SELECT id, status FROM index_statuses WHERE id = ANY($1::int[])', [ids])
  return new Map(r.rows.map((x) => [x.id, x.status]))
}

/** Body texts by id (index_bodies). */
export async function bodiesById(db: Queryable, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map()
  const r = await db.query<{ id: number; body: string }>('SELECT id, body FROM index_bodies WHERE id = ANY($1::int[])', [ids])
  return new Map(r.rows.map((x) => [x.id, x.body]))
}
