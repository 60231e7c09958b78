/**
 * The fields of a message record, in one table. A *plain* field is one the console carries from
 * the upstream as text, unchanged in meaning: the sync reads it from a record (proxy/index/parse.ts)
 * and stores it in its column (INSERT and COPY, proxy/index/columns.ts), the index selects it
 * (queries.ts) and answers it (index-answers.ts), every export writes it (CSV, .xlsx and NDJSON on
 * the server, the page's CSV in the browser), the browser reads it from a history page
 * (src/api/history.ts) and, unless the page shows it its own way, the History table shows it as a
 * column of text. All of them read this table, so a new upstream field is its row here, its column
 * in a migration, and the simulator sending it.
 *
 * The layout below is the one CSV layout of exported messages (docs/message-index.md, "Exports");
 * its other columns are computed from the record by code of their own, keyed by name
 * (`Record<OwnColumn, …>`), so a new one of those fails to compile until every writer has it.
 */

/** How a plain field's value is read from the upstream's record. */
export type PlainRead =
  /** Any scalar as text (a number or boolean written out), null when missing. */
  | 'text'
  /** An id: a finite number written out, or a string trimmed; null when missing or blank. */
  | 'id'
  /** Text, where an empty string means none (null). */
  | 'optional'

export interface PlainFieldRow {
  /** The field's name in the app (camelCase): a message's property in every answer, NDJSON line and page. */
  key: string
  /** The upstream record's key (spec §2.1). */
  upstream: string
  /** Its column in index_messages (added by a migration), and its CSV column's name. */
  column: string
  read: PlainRead
  /** The History table's column header; the Message page's label. */
  label: string
  /** `own`: the pages show it their own way (a column of its own, inside another cell); `column`: a column of text. */
  shown: 'own' | 'column'
  /** The .xlsx column's width, in characters. */
  width: number
}

export const PLAIN_FIELDS = [
  { key: 'direction', upstream: 'direction', column: 'direction', read: 'text', label: 'Direction', shown: 'own', width: 9 },
  { key: 'mediaUrl', upstream: 'mms_url', column: 'media_url', read: 'optional', label: 'Media URL', shown: 'own', width: 30 },
  { key: 'messageId', upstream: 'message_id', column: 'message_id', read: 'id', label: 'Message id', shown: 'own', width: 14 },
  { key: 'systemId', upstream: 'system_id', column: 'system_id', read: 'id', label: 'System id', shown: 'own', width: 14 },
] as const satisfies readonly PlainFieldRow[]

export type PlainField = (typeof PLAIN_FIELDS)[number]
export type PlainKey = PlainField['key']
export type PlainColumn = PlainField['column']
export type PlainUpstream = PlainField['upstream']
/** A message's plain fields, by key. */
export type PlainValues = { [K in PlainKey]: string | null }

/**
 * The one message layout (contract/message-csv.ts): every column, in order. The plain fields sit
 * where they are named; a plain field missing here fails to compile (LAYOUT_HAS_EVERY_PLAIN_FIELD).
 */
export const MESSAGE_LAYOUT = [
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
  'status_raw',
  'status_code',
  'message_id',
  'system_id',
  'tid',
  'message_tid',
] as const

export type LayoutColumn = (typeof MESSAGE_LAYOUT)[number]
/** The layout's columns that are not plain fields: each writer computes them itself. */
export type OwnColumn = Exclude<LayoutColumn, PlainColumn>
type Missing = Exclude<PlainColumn, LayoutColumn>
/** Compiles only while every plain field has its place in MESSAGE_LAYOUT. */
export const LAYOUT_HAS_EVERY_PLAIN_FIELD: [Missing] extends [never] ? true : Missing = true

/** The plain field a layout column is, if it is one. */
export const PLAIN_BY_COLUMN: ReadonlyMap<string, PlainField> = new Map(PLAIN_FIELDS.map((f) => [f.column, f]))

/** NUL cannot be stored in PostgreSQL text and carries no meaning in a message. */
export function upstreamText(v: unknown): string | null {
  if (v === null || v === undefined) return null
  const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v)
  return s.includes('\u0000') ? s.replace(/\u0000/g, '') : s
}

/** An upstream id: a finite number written out, or a string trimmed; null when missing or blank. */
export const upstreamId = (v: unknown): string | null =>
  typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' && v.trim() ? v.trim() : null

const READERS: Record<PlainRead, (v: unknown) => string | null> = {
  text: upstreamText,
  id: upstreamId,
  optional: (v) => upstreamText(v) || null,
}

/** Each plain field's reader, in PLAIN_FIELDS' order (chosen once: the sync reads a million records). */
export const PLAIN_READERS: ReadonlyArray<(v: unknown) => string | null> = PLAIN_FIELDS.map((f) => READERS[f.read])

/** A plain field's value read from the upstream's record (`record[f.upstream]`). */
export const readPlain = (f: PlainField, v: unknown): string | null => READERS[f.read](v)

/** A message's plain fields, each as `get` gives it. */
export function plainValues(get: (f: PlainField) => string | null | undefined): PlainValues {
  const out: Record<string, string | null> = {}
  for (const f of PLAIN_FIELDS) out[f.key] = get(f) ?? null
  return out as PlainValues
}

/** A schema shape with one entry per plain field, keyed by `name` (the app's key, or the upstream's). */
export function plainShape<S, N extends 'key' | 'upstream'>(name: N, schema: S): { [K in PlainField[N]]: S } {
  return Object.fromEntries(PLAIN_FIELDS.map((f) => [f[name], schema])) as { [K in PlainField[N]]: S }
}
