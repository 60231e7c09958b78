/**
 * The message shape the desk rules read: the few columns of an indexed message they need
 * (proxy/index stores them as number, party_digits, direction, date, ordinal, body, status_code),
 * so the same rules run over rows from the database, over the simulator's records and in tests.
 */
import type { OptKind } from './opt-out.ts'

export interface DeskMessage {
  /** The business's own number. */
  number: string
  /** The other party, digits in any format (10 or 11 digits for NANP). */
  party: string
  /** 'inbound' or 'outbound' (any case); anything else (missing, unknown) is ignored by the rules. */
  direction: string | null
  date: Date | string | number
  /** Order within a number when two messages share a second (the index's ordinal). */
  ordinal?: number | null
  body?: string | null
  statusCode?: number | null
  /** The opt-out classification when already computed (stored by sync); otherwise derived from the body. */
  optKind?: OptKind | null
}

/** One key per party: digits only, a ten-digit NANP number with its leading 1 (as E.164 without +). */
export function partyKey(party: string): string {
  const digits = party.replace(/\D/g, '')
  return digits.length === 10 && /^[2-9]/.test(digits) ? `1${digits}` : digits
}

/**
 * Every way a party typed as digits may have been written or logged: the digits, a North
 * American number with and without its leading 1, and the number after a 00 or 011 call prefix. The index stores partyKey alone; the access log
 * keeps what each request named.
 */
export function partyForms(digits: string): string[] {
  // Dialled with an international call prefix (00 from most of the world, 011 from North America):
  // no key starts with 0, so the number after it is the party too. A link's ?party=001 415… found nobody.
  const dialled = /^011\d{7,15}$/.test(digits) ? digits.slice(3) : /^00\d{7,15}$/.test(digits) ? digits.slice(2) : null
  return dialled === null || dialled.startsWith('0') ? nanpForms(digits) : [digits, ...nanpForms(dialled)]
}

function nanpForms(digits: string): string[] {
  if (digits.length === 10 && /^[2-9]/.test(digits)) return [digits, `1${digits}`]
  if (digits.length === 11 && /^1[2-9]/.test(digits)) return [digits, digits.slice(1)]
  return [digits]
}

export function timeOf(date: Date | string | number, field = 'date'): number {
  const ms = date instanceof Date ? date.getTime() : typeof date === 'number' ? date : Date.parse(date)
  if (!Number.isFinite(ms)) throw new RangeError(`${field}: not a valid date: ${String(date)}`)
  return ms
}

// The API documents only `outbound`; received messages carry the other value, `inbound` in every
// record seen. Case and stray spaces are forgiven; any other value is neither (shown, not counted).
const directionOf = (m: DeskMessage) => m.direction?.trim().toLowerCase()
export const isInbound = (m: DeskMessage) => directionOf(m) === 'inbound'
export const isOutbound = (m: DeskMessage) => directionOf(m) === 'outbound'
/** A send the carrier refused (4xx/5xx) never reached the party. */
export const isFailed = (m: DeskMessage) => typeof m.statusCode === 'number' && m.statusCode >= 400

const directionRank = (m: DeskMessage) => (isInbound(m) ? 0 : 1)

/**
 * Oldest first: by date, then ordinal; in the same second without ordinals an inbound message
 * comes before an outbound one (a reply cannot precede what it answers); input order last.
 */
export function chronological<M extends DeskMessage>(messages: readonly M[]): M[] {
  const keyed = messages.map((m, i) => ({ m, i, t: timeOf(m.date, `messages[${i}].date`) }))
  keyed.sort((a, b) => a.t - b.t || (a.m.ordinal ?? 0) - (b.m.ordinal ?? 0) || directionRank(a.m) - directionRank(b.m) || a.i - b.i)
  return keyed.map((k) => k.m)
}

/** Messages grouped by (number, party key), each group oldest first. */
export function byThread<M extends DeskMessage>(messages: readonly M[]): Map<string, M[]> {
  const groups = new Map<string, M[]>()
  for (const m of chronological(messages)) {
    const key = `${partyKey(m.number)}|${partyKey(m.party)}`
    const g = groups.get(key)
    if (g) g.push(m)
    else groups.set(key, [m])
  }
  return groups
}
