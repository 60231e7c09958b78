import { MESSAGE_LAYOUT, PLAIN_BY_COLUMN, type OwnColumn, type PlainValues } from './message-fields.ts'

/**
 * The one CSV layout of exported messages, whichever export writes it: a page of history, the
 * whole history, a search over the index. Documented in docs/message-index.md ("Exports").
 *
 * - `number`, `tid`: the account's number and its tid; `message_tid`: the message's own tid
 *   (the field notes: the two differ).
 * - `ordinal`: counted from the number's oldest message (1), stable as new messages arrive;
 *   `position`: the upstream's record number, 1 = newest, as the History page shows it.
 * - `date_utc`: ISO 8601 with the Z (or the upstream's text as sent, when it is not a date);
 *   `date_local (<zone>)`: the same instant on the named zone's clock, without an offset, so a
 *   spreadsheet reads it as a date.
 * - `party`: the other party's number; `mms`: yes or no; `status`: one word, `success` (2xx),
 *   `error` (4xx, 5xx) or `unknown`, as Search's status filter reads them (the upstream writes
 *   success three ways: "200", "200 Delivered", "200 [Possible status and meaning…]");
 *   `status_raw`: the upstream's whole text as sent; `status_code` its three leading digits.
 */
export const MESSAGE_CSV_COLUMNS = MESSAGE_LAYOUT

/** The header row, the local date's column naming its IANA zone. */
export function messageCsvHeader(zone: string): string[] {
  return MESSAGE_CSV_COLUMNS.map((c) => (c === 'date_local' ? `date_local (${zone})` : c))
}

/** A message's cells' values: the layout's own columns, and the plain fields (contract/message-fields.ts). */
export interface MessageCsvFields extends PlainValues {
  number: string
  ordinal: number | null
  position: number | null
  dateUtc: string
  dateLocal: string
  party: string | null
  body: string | null
  mms: boolean
  status: string | null
  statusCode: number | null
  tid: string | null
  messageTid: string | null
}

export type StatusWord = 'success' | 'error' | 'unknown'

/** The one status vocabulary of every export, from the status's three leading digits. */
export function statusWord(code: number | null): StatusWord {
  if (code === null) return 'unknown'
  return code >= 200 && code <= 299 ? 'success' : code >= 400 ? 'error' : 'unknown'
}

/** Each own column's cell (the plain fields' are their text, '' for none). */
const OWN_CELLS: Record<OwnColumn, (m: MessageCsvFields) => string | number> = {
  number: (m) => m.number,
  ordinal: (m) => m.ordinal ?? '',
  position: (m) => m.position ?? '',
  date_utc: (m) => m.dateUtc,
  date_local: (m) => m.dateLocal,
  party: (m) => m.party ?? '',
  body: (m) => m.body ?? '',
  mms: (m) => (m.mms ? 'yes' : 'no'),
  status: (m) => statusWord(m.statusCode),
  status_raw: (m) => m.status ?? '',
  status_code: (m) => m.statusCode ?? '',
  tid: (m) => m.tid ?? '',
  message_tid: (m) => m.messageTid ?? '',
}

const CELLS: ReadonlyArray<(m: MessageCsvFields) => string | number> = MESSAGE_LAYOUT.map((c) => {
  const plain = PLAIN_BY_COLUMN.get(c)
  return plain ? (m: MessageCsvFields) => m[plain.key] ?? '' : OWN_CELLS[c as OwnColumn]
})

/** A message's cells in the layout's order (still to go through csvCell). */
export function messageCsvCells(m: MessageCsvFields): Array<string | number> {
  return CELLS.map((cell) => cell(m))
}
