import type { NumberIndexStatus } from '../../api/index-status'
import type { OwnedNumber } from '../../api/numbers'
import { phoneQueryDigits } from '../../lib/phone'
import { matchesAnyAudit, numberDigits, type AuditFilter, type AuditKey } from './audit'
import type { WatchNote } from './watch-notes'

/** What the message index holds for a number: the Messages and Last activity columns. */
export type IndexFacts = Pick<NumberIndexStatus, 'indexed' | 'newestDate' | 'upstreamTotal' | 'lastSyncedAt'>

/**
 * A row of the numbers table: the number as the API listed it, with what the page has learnt
 * about it since (its audit findings, what the index holds). The page builds the rows in a memo
 * from maps keyed by row id and by number, so the columns are pure functions of their row and
 * a change of findings or index facts is a change of data the table can see.
 */
export interface NumberRow {
  readonly owned: OwnedNumber
  /** Undefined while the audit of the listing has not run yet. */
  readonly findings: readonly AuditKey[] | undefined
  /** Undefined when the index holds nothing for the number (or there is no index). */
  readonly index: IndexFacts | undefined
  /** Every tid the listing gives this number, when it gives more than one (undefined otherwise, or before the audit). */
  readonly listedWith?: readonly string[]
  /** What the callback watch found wrong with its webhook or dlr address when it last called it (undefined: nothing). */
  readonly watch?: readonly WatchNote[]
}

/** A number is listed once per tid. */
export const numberRowId = (n: OwnedNumber) => `${n.number}:${n.tid}`

/** The index keys numbers by their digits; the listing may write them with a leading +. */
const digitsOf = numberDigits

/**
 * The rows, in the listing's order: one small object per number and two look-ups. Before the
 * audit and without an index (the first rows of a long listing) not even those: no id is built.
 */
export function toNumberRows(
  data: readonly OwnedNumber[],
  findingsById: ReadonlyMap<string, readonly AuditKey[]> | null,
  facts: ReadonlyMap<string, IndexFacts>,
  tidsByNumber: ReadonlyMap<string, readonly string[]> | null = null,
  watch: ReadonlyMap<string, readonly WatchNote[]> | null = null,
): NumberRow[] {
  const indexed = facts.size > 0
  const twice = tidsByNumber !== null && tidsByNumber.size > 0
  const watched = watch !== null && watch.size > 0
  return data.map((owned) => {
    let row: NumberRow = {
      owned,
      findings: findingsById?.get(numberRowId(owned)),
      index: indexed ? facts.get(digitsOf(owned.number)) : undefined,
    }
    if (twice && tidsByNumber.has(digitsOf(owned.number))) row = { ...row, listedWith: tidsByNumber.get(digitsOf(owned.number)) }
    const notes = watched ? watch.get(digitsOf(owned.number)) : undefined
    return notes ? { ...row, watch: notes } : row
  })
}

/** Lower-cased text of every column the search looks in. Digit queries match the raw digits in it. */
export function searchText(r: OwnedNumber): string {
  return `${r.number}\u0001${r.tid}\u0001${r.type ?? ''}\u0001${r.country ?? ''}\u0001${r.webhook ?? ''}\u0001${r.dlr ?? ''}`.toLowerCase()
}

/**
 * The rows that match the search and any of the audit filters pressed. `texts` holds each row's
 * searchText, in the same order as `rows` (built once per listing, when a search starts, not on
 * every keystroke). Rows not audited yet match no audit filter.
 */
export function filterRows(
  rows: readonly NumberRow[],
  query: string,
  audit: readonly AuditFilter[],
  texts: readonly string[] | null,
): readonly NumberRow[] {
  const q = query.trim().toLowerCase()
  // Digits match regardless of formatting: "(832) 323" and "832323" find the same numbers.
  const needle = phoneQueryDigits(q) || q
  const filtering = audit.length > 0
  if (!q && !filtering) return rows
  // Two letters that are a country of the listing ("CA", "us") find that country's numbers: as
  // text, "ca" found "Local" on every row and "US" a Canadian tid.
  const country = /^[a-z]{2}$/.test(q) && rows.some((r) => r.owned.country?.toLowerCase() === q) ? q : null
  return rows.filter((r, i) => {
    if (filtering && (!r.findings || !matchesAnyAudit(r.findings, audit))) return false
    if (country !== null) return r.owned.country?.toLowerCase() === country
    if (!q) return true
    // Digits, or the text as typed: "192.168" and "10.0.0.5" are parts of a callback URL, not a phone number's digits.
    const text = texts?.[i] ?? searchText(r.owned)
    return text.includes(needle) || (needle !== q && text.includes(q))
  })
}
