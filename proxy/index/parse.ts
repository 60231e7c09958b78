import { partyKey } from '../../contract/desk/messages.ts'
import { upstreamDateIso, upstreamList, upstreamStatusCode, withoutBom } from '../../contract/upstream-values.ts'
import { PLAIN_FIELDS, PLAIN_READERS, upstreamId, upstreamText, type PlainValues } from '../../contract/message-fields.ts'

/**
 * One history page, as the upstream sends it, turned into the columns the index stores. Parsed
 * by hand rather than with zod: a full sync parses a million records, and a per-record schema
 * costs more than the insert. Tolerant as the field notes ask (string or number ids, missing
 * fields, the trailing-space count key); strict only where a wrong value would build a wrong
 * index (the total, the records array).
 */

export class PageError extends Error {
  override name = 'PageError'
}

/** One record: the plain fields (contract/message-fields.ts: ids, direction, media URL) and those the index reads itself. */
export interface PageRecord extends PlainValues {
  tid: string | null
  /** ISO 8601 UTC with Z, or null when GMTdate is missing or unreadable. */
  date: string | null
  dateRaw: string | null
  phone: string | null
  /**
   * The party's key (contract/desk partyKey): its digits, a 10-digit North American number with
   * its leading 1, so a customer written both ways (the field notes allow 10 or 11 digits) is one
   * party in every thread, count and desk table. `phone` keeps what the upstream wrote.
   */
  partyDigits: string
  body: string | null
  mms: boolean
  status: string | null
  statusCode: number | null
}

/** A page's envelope: what the number's row keeps of it. */
export interface PageMeta {
  total: number
  newestId: string | null
  newestAt: string | null
  createdRaw: string | null
  optin: string | null
}

/**
 * A history page was served: its number, tid and the envelope it carried (the history's total
 * and newest message now; null when the page could not be read), so the index can refresh the
 * number, or see that it need not.
 */
export type OnHistoryServed = (number: string, tid: string, envelope: PageMeta | null) => void

export interface Page extends PageMeta {
  records: PageRecord[]
}

/**
 * `YYYY-MM-DD HH:MM:SS` (GMT, spec §2.1) → ISO UTC with Z; null when it is not a real date. The
 * one reading the browser uses too (contract/upstream-values.ts), so the index and the history
 * page never disagree about a record's date.
 */
export const apiDateToIso = upstreamDateIso

const text = upstreamText
const id = upstreamId

/** Exactly three leading digits, as the browser reads them (contract/upstream-values.ts). */
export const statusCode = (status: string | null): number | null => upstreamStatusCode(status)

/**
 * The party's digits are a key of the thread index, whose entries PostgreSQL caps at 2,704 bytes:
 * a group message's phone field naming 400 recipients (4,799 characters) failed its whole batch,
 * and the number could never be indexed. Its phone field is stored whole; the key is cut here.
 */
export const PARTY_DIGITS_MAX = 512

export function parsePage(body: Buffer | string, parsed?: unknown): Page {
  let json: unknown = parsed
  if (json === undefined)
    try {
      json = JSON.parse(withoutBom(typeof body === 'string' ? body : body.toString('utf8')))
    } catch {
      throw new PageError('The messaging service answered a history page with malformed JSON.')
    }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new PageError('The messaging service answered a history page with JSON that is not an object.')
  const o = json as Record<string, unknown>
  // "" is no total (Number("") is 0: a page of records read as an empty history, and the number wiped).
  const raw = o.total_message_count
  const total = typeof raw === 'string' ? (raw.trim() === '' ? Number.NaN : Number(raw.trim())) : raw
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0)
    throw new PageError('The history page has no usable total_message_count; the index cannot place its records.')
  const list = upstreamList(o.messages ?? [])
  if (!Array.isArray(list)) throw new PageError('The history page has no messages list.')
  if (total === 0 && list.length > 0)
    throw new PageError(`The history page reports a total of 0 messages but holds ${list.length}; the index cannot place them.`)
  const records: PageRecord[] = new Array(list.length)
  for (let i = 0; i < list.length; i++) {
    const r = (list[i] && typeof list[i] === 'object' ? list[i] : {}) as Record<string, unknown>
    const phone = text(r.phone)
    const status = text(r.status)
    const date = apiDateToIso(r.GMTdate)
    const mmsRaw = r.mms
    const record = {
      tid: text(r.tid),
      date,
      dateRaw: date === null ? text(r.GMTdate) : null,
      phone,
      partyDigits: phone ? partyKey(phone).slice(0, PARTY_DIGITS_MAX) : '',
      body: text(r.body),
      mms: mmsRaw === true || (typeof mmsRaw === 'string' && mmsRaw.trim().toLowerCase() === 'yes'),
      status,
      statusCode: statusCode(status),
    } as PageRecord
    for (let p = 0; p < PLAIN_FIELDS.length; p++) record[PLAIN_FIELDS[p]!.key] = PLAIN_READERS[p]!(r[PLAIN_FIELDS[p]!.upstream])
    records[i] = record
  }
  return {
    total,
    newestId: id(o.most_recent_msg_id),
    newestAt: apiDateToIso(o.most_recent_date),
    createdRaw: text(o.created_date),
    optin: text(o.optin),
    records,
  }
}

/** The identity the overlap check compares: both ids, since message ids repeat upstream. */
export const identity = (r: { systemId: string | null; messageId: string | null }) => `${r.systemId ?? ''}|${r.messageId ?? ''}`

/**
 * Where the envelope's newest message is in the page, -1 when it is not: its system id, and its
 * date when the envelope gives one (an older record that reuses the id is not it).
 */
export function newestIndexOf(page: Page): number {
  if (page.newestId === null) return -1
  return page.records.findIndex((r) => r.systemId === page.newestId && (page.newestAt === null || r.date === page.newestAt))
}
