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
export const MESSAGE_CSV_COLUMNS = [
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

/** The header row, the local date's column naming its IANA zone. */
export function messageCsvHeader(zone: string): string[] {
  return MESSAGE_CSV_COLUMNS.map((c) => (c === 'date_local' ? `date_local (${zone})` : c))
}

export interface MessageCsvFields {
  number: string
  ordinal: number | null
  position: number | null
  dateUtc: string
  dateLocal: string
  party: string | null
  direction: string | null
  body: string | null
  mms: boolean
  mediaUrl: string | null
  status: string | null
  statusCode: number | null
  messageId: string | null
  systemId: string | null
  tid: string | null
  messageTid: string | null
}

export type StatusWord = 'success' | 'error' | 'unknown'

/** The one status vocabulary of every export, from the status's three leading digits. */
export function statusWord(code: number | null): StatusWord {
  if (code === null) return 'unknown'
  return code >= 200 && code <= 299 ? 'success' : code >= 400 ? 'error' : 'unknown'
}

/** A message's cells in the layout's order (still to go through csvCell). */
export function messageCsvCells(m: MessageCsvFields): Array<string | number> {
  return [
    m.number,
    m.ordinal ?? '',
    m.position ?? '',
    m.dateUtc,
    m.dateLocal,
    m.party ?? '',
    m.direction ?? '',
    m.body ?? '',
    m.mms ? 'yes' : 'no',
    m.mediaUrl ?? '',
    statusWord(m.statusCode),
    m.status ?? '',
    m.statusCode ?? '',
    m.messageId ?? '',
    m.systemId ?? '',
    m.tid ?? '',
    m.messageTid ?? '',
  ]
}
