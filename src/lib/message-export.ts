import type { Message } from '../api/history'
import { messageCsvCells, messageCsvHeader } from '../../contract/message-csv'
import { plainValues } from '../../contract/message-fields'
import { isoInZone, isoUtc, zoneName, type Zone } from './dates'

/**
 * The rows on screen as a file: the one message layout (contract/message-csv.ts), for the history
 * page, its whole-history export and the search page's rows shown. Exports are data, not display.
 */
/** The export's header: the one message layout (contract/message-csv.ts), local dates in the shown zone. */
export function exportHeader(zone: Zone): string[] {
  return messageCsvHeader(zoneName(zone))
}

/** Which number the rows are of, and its history's size (for each row's ordinal, counted from the oldest). */
export interface ExportScope {
  number: string
  tid: string
  total: number | null
}

export function messageRow(m: Message, zone: Zone, scope: ExportScope): unknown[] {
  return messageCsvCells({
    number: scope.number,
    ordinal: scope.total === null ? null : scope.total - m.position + 1,
    position: m.position,
    // A date the upstream sent in another form is kept as sent, as the index's export does.
    dateUtc: m.dateMs === null ? (m.date ?? '') : isoUtc(m.dateMs),
    // The local clock without its offset (the header names the zone), as the index's export writes it.
    dateLocal: isoInZone(m.dateMs, zone).slice(0, 19).replace('T', ' '),
    party: m.phone,
    ...plainValues((f) => m[f.key]),
    body: m.body,
    mms: m.mms,
    status: m.status.full,
    statusCode: m.status.code,
    tid: scope.tid,
    messageTid: m.tid,
  })
}
