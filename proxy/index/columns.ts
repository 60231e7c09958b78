import { storedLocalDay, type DeskFacts } from '../../contract/desk/facts.ts'
import { PLAIN_FIELDS } from '../../contract/message-fields.ts'
import type { PageRecord } from './parse.ts'

/**
 * The columns of index_messages that come from an upstream record, in one table: the sync's
 * INSERT (unnest of one array per column), its COPY column list and CSV line are all made from
 * it. An upstream field the index keeps as text is a row of contract/message-fields.ts (PLAIN_FIELDS),
 * whose columns join this list; one the index reads its own way is an entry here. `number` and `fetched_tid`
 * are the same for every row of a batch and lead every list.
 */

/** One record on its way into index_messages: its place, the record, and what the store adds. */
export interface StoredMessage {
  ordinal: number
  r: PageRecord
  /** The record's date, or a neighbour's when its GMTdate did not parse (kept raw in date_raw). */
  date: string
  /** `date` in milliseconds since the epoch, parsed once for the roll-ups and the desk. */
  ms: number
  bodyId: number | null
  /** The id of the record's status text in index_statuses (migration 410), set in the transaction as bodyId is. */
  statusId: number | null
  /** The support desk's facts about the message (null while the desk is off: filled later by refreshDesk). */
  desk: DeskFacts | null
}

interface Column {
  name: string
  /** PostgreSQL element type of the unnest() array. */
  type: 'int' | 'text' | 'bool' | 'timestamptz' | 'date'
  value: (m: StoredMessage) => string | number | boolean | null
  /** The INSERT's expression over the unnest() column `v.<name>`, when it is not the value itself. */
  select?: string
  /** COPY's CSV field, when it is not the value written as CSV (already quoted; null for NULL). */
  csv?: (m: StoredMessage) => string | null
}

export const MESSAGE_COLUMNS: readonly Column[] = [
  { name: 'ordinal', type: 'int', value: (m) => m.ordinal },
  { name: 'tid', type: 'text', value: (m) => m.r.tid },
  // The plain fields (ids, direction, media URL): the upstream's text, kept as it came.
  ...PLAIN_FIELDS.map((f): Column => ({ name: f.column, type: 'text', value: (m) => m.r[f.key] })),
  { name: 'date', type: 'timestamptz', value: (m) => m.date },
  { name: 'date_raw', type: 'text', value: (m) => m.r.dateRaw },
  { name: 'phone', type: 'text', value: (m) => m.r.phone },
  { name: 'party_digits', type: 'text', value: (m) => m.r.partyDigits },
  { name: 'mms', type: 'bool', value: (m) => m.r.mms },
  // The status text is kept once per distinct text, in index_statuses (migration 410), as bodies are.
  { name: 'status_id', type: 'int', value: (m) => m.statusId },
  { name: 'status_code', type: 'int', value: (m) => m.r.statusCode },
  // The text itself is kept once per distinct body, in index_bodies (migration 002): the row has
  // its id, and its own body column stays NULL (readers take COALESCE(body, the id's text)). Half
  // a million-message history's bytes were copies of a dozen texts, written, parsed and scanned
  // with every row.
  { name: 'body_id', type: 'int', value: (m) => m.bodyId },
  // The desk's per-message facts (migration 320), written with the row so nothing is read back.
  { name: 'desk_inbound', type: 'bool', value: (m) => m.desk?.inbound ?? null },
  { name: 'desk_opt', type: 'text', value: (m) => m.desk?.opt ?? null },
  { name: 'desk_segments', type: 'int', value: (m) => m.desk?.segments ?? null },
  // The forcing characters and extra segments depend on the body alone: index_bodies keeps them (migration 360).
  { name: 'desk_local_day', type: 'date', value: (m) => (m.desk ? storedLocalDay(m.desk) : null) },
  { name: 'desk_quiet', type: 'bool', value: (m) => m.desk?.quiet ?? null },
]

const names = MESSAGE_COLUMNS.map((c) => c.name)
const BATCH_COLUMNS = ['number', 'fetched_tid']

/**
 * The rows of one batch ($1 number, $2 fetched tid, $3 the row count, then one array per
 * column). A duplicate ordinal is skipped, never doubled; the answer says how many went in and,
 * only when some were skipped, which, so the roll-ups count exactly the rows stored.
 */
export const INSERT_SQL = `
WITH ins AS (
  INSERT INTO index_messages (${[...BATCH_COLUMNS, ...names].join(', ')})
  SELECT $1, $2, ${MESSAGE_COLUMNS.map((c) => c.select ?? `v.${c.name}`).join(', ')}
  FROM unnest(${MESSAGE_COLUMNS.map((c, i) => `$${i + 4}::${c.type}[]`).join(', ')}) AS v(${names.join(', ')})
  ON CONFLICT (number, ordinal) DO NOTHING
  RETURNING ordinal
)
SELECT count(*)::int AS n, CASE WHEN count(*) < $3 THEN array_agg(ordinal) END AS got FROM ins`

/** INSERT_SQL's parameters for a batch. */
export function insertParams(number: string, fetchedTid: string, rows: readonly StoredMessage[]): unknown[] {
  return [number, fetchedTid, rows.length, ...MESSAGE_COLUMNS.map((c) => rows.map(c.value))]
}

/**
 * COPY's columns: status_id and body_id last, so a row's CSV line can be made before the
 * transaction and the two ids, known only once the batch's texts are looked up inside it,
 * appended then.
 */
const COPY_COLUMNS = MESSAGE_COLUMNS.filter((c) => c.name !== 'body_id' && c.name !== 'status_id')
export const COPY_SQL = `COPY index_messages (${[...BATCH_COLUMNS, ...COPY_COLUMNS.map((c) => c.name), 'status_id', 'body_id'].join(', ')}) FROM '/dev/blob' WITH (FORMAT csv)`

/**
 * COPY's CSV field for a string: quoted only when it must be (empty, or holding a quote, comma or
 * line break; an unquoted empty field is NULL). An unquoted field is read literally, spaces and
 * backslashes included. The quotes around every id, phone and word were 7 % of a line's bytes,
 * and PGlite parses every byte in WebAssembly (docs/performance.md).
 */
const MUST_QUOTE = /[",\r\n]/
const cq = (v: string) => (v === '' ? '""' : !MUST_QUOTE.test(v) ? v : `"${v.replace(/"/g, '""')}"`)
const csvValue = (v: string | number | boolean | null) =>
  v === null ? '' : typeof v === 'string' ? cq(v) : v === true ? 't' : v === false ? 'f' : String(v)
/**
 * A date or timestamp goes unquoted: its text (ISO 8601, made by the parser or the desk) holds no
 * comma, quote or line break, and an empty field is not a date either, so nothing needs telling
 * apart. Every byte of a line is copied into PGlite and parsed there, a million times a full sync.
 */
const dateCsv = (v: string | number | boolean | null) => (v === null ? '' : String(v))
/** Each COPY column's CSV field, one function per column, chosen once (status_id and body_id, appended later, are not among them). */
const FIELDS: ReadonlyArray<(m: StoredMessage) => string> = COPY_COLUMNS.map((c) => {
  const { csv, value } = c
  if (csv) return (m: StoredMessage) => csv(m) ?? ''
  const write = c.type === 'date' || c.type === 'timestamptz' ? dateCsv : csvValue
  return (m: StoredMessage) => write(value(m))
})

/**
 * A row's CSV line for COPY_SQL up to its status id (no comma or newline after it): made before
 * the ids are known. Joined from an array, so the line is one flat string: a line built by `+=` is
 * a tree of small strings, kept alive until the batch is stored.
 */
export function copyLine(head: string, m: StoredMessage): string {
  const fields = new Array<string>(FIELDS.length + 1)
  fields[0] = head
  for (let i = 0; i < FIELDS.length; i++) fields[i + 1] = FIELDS[i]!(m)
  return fields.join(',')
}

/** The head every line of a batch starts with (number, fetched tid). */
export const copyHead = (number: string, fetchedTid: string) => `${cq(number)},${cq(fetchedTid)}`

/** A batch's lines (copyLine, as UTF-8 bytes) and the ids each gets: see copyCsv. */
export interface CopyLines {
  lineBytes: Uint8Array
  lineEnds: Int32Array
  lineStatus: Int32Array
  statusIds: ReadonlyArray<number>
  lineBody: Int32Array
  bodyIds: ReadonlyArray<number>
}

/**
 * COPY_SQL's data: each line (copyLine) with its row's status id and body id. Row i's ids are
 * `statusIds[lineStatus[i]]` and `bodyIds[lineBody[i]]` (-1: none, an empty field). Nothing is
 * allocated per line: a view per line (`subarray`) and the two id arrays made per row with
 * Array.from were 230 MB of the server thread's 533 MB over a million-message sync on
 * PostgreSQL, and its collections were most of that thread's longest stalls. Lines from…to-1 only
 * when asked (copyPieces).
 */
export function copyCsv(c: CopyLines, from = 0, to = c.lineEnds.length): Uint8Array<ArrayBuffer> {
  const { lineBytes, lineEnds, lineStatus, statusIds, lineBody, bodyIds } = c
  const statusOf = (i: number) => (lineStatus[i]! < 0 ? null : statusIds[lineStatus[i]!]!)
  const bodyOf = (i: number) => (lineBody[i]! < 0 ? null : bodyIds[lineBody[i]!]!)
  const first = from === 0 ? 0 : lineEnds[from - 1]!
  const last = to > from ? lineEnds[to - 1]! : first
  let size = last - first + 3 * (to - from)
  for (let i = from; i < to; i++) size += digitsOf(statusOf(i)) + digitsOf(bodyOf(i))
  const out = new Uint8Array(size)
  // The lines go at the end, and each moves down into its place within the same array
  // (copyWithin: no view to allocate; Buffer#copy makes one per call). A line never lands on
  // bytes not yet moved: the space before the lines is every id, comma and newline still to come.
  const shift = size - (last - first) - first
  out.set(lineBytes.subarray(first, last), shift + first)
  let at = 0
  let start = first
  for (let i = from; i < to; i++) {
    const end = lineEnds[i]!
    out.copyWithin(at, shift + start, shift + end)
    at += end - start
    start = end
    out[at++] = COMMA
    at = writeDigits(out, at, statusOf(i))
    out[at++] = COMMA
    at = writeDigits(out, at, bodyOf(i))
    out[at++] = NEWLINE
  }
  return out
}

/**
 * copyCsv's data in pieces of whole lines, about `bytes` each (one line at least), each made only
 * when the one before has been taken: for a PostgreSQL server, which reads COPY's data as it is
 * sent (pg-copy.ts), so the server's thread makes and sends a batch a piece at a time.
 */
export function* copyPieces(c: CopyLines, bytes: number): Generator<Uint8Array<ArrayBuffer>> {
  const { lineEnds } = c
  const n = lineEnds.length
  for (let from = 0; from < n;) {
    const first = from === 0 ? 0 : lineEnds[from - 1]!
    let to = from + 1
    while (to < n && lineEnds[to]! - first <= bytes) to++
    yield copyCsv(c, from, to)
    from = to
  }
}

const COMMA = 0x2c
const NEWLINE = 0x0a

/** The digits of an id (a non-negative integer), 0 for none (an empty CSV field: NULL). */
function digitsOf(id: number | null): number {
  if (id === null) return 0
  let d = 1
  for (let v = id; v >= 10; v = Math.floor(v / 10)) d++
  return d
}

/** Writes an id's digits at `at` (nothing for none); returns where they end. */
function writeDigits(out: Uint8Array, at: number, id: number | null): number {
  if (id === null) return at
  const end = at + digitsOf(id)
  let v = id
  for (let p = end - 1; p >= at; p--) {
    out[p] = 0x30 + (v % 10)
    v = Math.floor(v / 10)
  }
  return end
}
