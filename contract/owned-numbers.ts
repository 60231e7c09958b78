/**
 * One reading of the numbers listing (`allownednumbers`, `ownednumbers`: spec §2.2, §4.2, §4.3)
 * for the server: the number as bare digits and its tid as an opaque string, whether either came
 * as a string or a number, with `+`, spaces or punctuation around the digits. An entry without
 * both is skipped, never guessed. A number may be listed more than once (with two tids): every
 * listing is kept, in order.
 */

export interface ListedNumber {
  /** Bare digits, 6 to 15 of them. */
  number: string
  tid: string
}

const DIGITS = /^\d{6,15}$/

const text = (v: unknown): string | null =>
  typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : null

/** The listed (number, tid) pairs of a parsed listing answer; an answer with no `data` array lists none. */
export function listedNumbers(json: unknown): ListedNumber[] {
  const data = json && typeof json === 'object' ? (json as { data?: unknown }).data : undefined
  if (!Array.isArray(data)) return []
  const out: ListedNumber[] = []
  for (const item of data) {
    if (!item || typeof item !== 'object') continue
    const record = item as Record<string, unknown>
    const number = text(record.number)?.replace(/\D/g, '') ?? ''
    const tid = text(record.tid) ?? ''
    if (DIGITS.test(number) && tid !== '') out.push({ number, tid })
  }
  return out
}

/** Whether a listing holds this number under this tid (the number as typed: `+` and punctuation ignored). */
export function listingHolds(listing: readonly ListedNumber[], number: string, tid: string): boolean {
  const digits = number.replace(/\D/g, '')
  return listing.some((l) => l.number === digits && l.tid === tid)
}
