import { currentAction, namesOf } from '../../contract/vocabulary.ts'
import { csvCell } from '../../contract/csv.ts'
import { partyForms } from '../../contract/desk/messages.ts'
import type { Queryable } from '../db/types.ts'
import { ENTRY_COLUMNS, type AccessLogEntry, type DbEntry } from './access-log.ts'

/** Pages of the access log for the Access log page and its CSV, newest first. */

export interface LogFilters {
  user?: string
  number?: string
  party?: string
  action?: string
  from?: Date
  /** Exclusive upper bound. */
  to?: Date
}

export interface LogCursor {
  at: string
  id: string
}

export const encodeCursor = (c: LogCursor) => Buffer.from(`${c.at}|${c.id}`, 'utf8').toString('base64url')

const BIGINT_MAX = 2n ** 63n - 1n

/**
 * A cursor this server could have issued, or null. The date must be a real instant PostgreSQL
 * takes (a regular expression alone lets 2026-02-31 or month 13 through, which the database
 * then refuses with a 500), and the id must fit a bigint.
 */
export function decodeCursor(text: string): LogCursor | null {
  if (text.length > 100 || !/^[A-Za-z0-9_-]+$/.test(text)) return null
  const raw = Buffer.from(text, 'base64url').toString('utf8')
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|(\d{1,19})$/.exec(raw)
  if (!m) return null
  const at = m[1]!
  const ms = Date.parse(at)
  if (!Number.isFinite(ms) || new Date(ms).toISOString() !== at || at < '0001') return null
  if (BigInt(m[2]!) > BIGINT_MAX) return null
  return { at, id: m[2]! }
}

const toEntry = (r: DbEntry): AccessLogEntry => ({
  id: String(r.id),
  seq: r.seq === null ? null : String(r.seq),
  at: new Date(r.at).toISOString(),
  actor: r.actor,
  via: r.via,
  address: r.address,
  action: r.action,
  number: r.number,
  party: r.party,
  details: typeof r.details === 'string' ? (JSON.parse(r.details) as Record<string, unknown>) : r.details,
})

/** The party filter's forms: the text as typed, and for a phone number its digits in every form (contract/desk partyForms). */
function partyFilterForms(typed: string): string[] {
  const digits = /^[\d\s()+.-]+$/.test(typed) ? typed.replace(/\D/g, '') : ''
  return [...new Set([typed, ...(digits ? partyForms(digits) : [])])]
}

/** One keyset page, newest first over (at, id): stable while new entries arrive (no OFFSET). */
export async function listEntries(
  db: Queryable,
  f: LogFilters,
  limit: number,
  after?: LogCursor | null,
): Promise<{ entries: AccessLogEntry[]; next: LogCursor | null }> {
  const where: string[] = []
  const params: unknown[] = []
  const add = (sql: string, value: unknown) => {
    params.push(value)
    where.push(sql.replaceAll('?', `$${params.length}`))
  }
  if (f.user) add('actor = ?', f.user)
  // A read of several numbers stores them joined with commas: the filter finds each of them, one
  // alone too (a list of one), through the GIN index on the list (migration 450).
  // A number is found as it is typed too: (512) 947-4129, 5129474129 or 15129474129.
  if (f.number) add("string_to_array(number, ',') && ?::text[]", partyFilterForms(f.number))
  // A customer is found however a request named them: as typed, as digits, with or without the 1.
  // Entries keep the party as typed ("+1 (415) 555-0123"): a phone-like one is compared by its digits too.
  if (f.party)
    add(
      "(party = ANY (?::text[]) OR (party ~ '^[0-9 ().+-]+$' AND regexp_replace(party, '[^0-9]', '', 'g') = ANY (?::text[])) OR string_to_array(party, ',') && ?::text[])",
      partyFilterForms(f.party),
    )
  if (f.action) {
    // An action of the vocabulary finds the entries written under its former names too.
    const now = currentAction(f.action)
    add('action = ANY (?::text[])', now ? namesOf(now) : [f.action])
  }
  if (f.from) add('at >= ?', f.from)
  if (f.to) add('at < ?', f.to)
  if (after) {
    params.push(after.at, after.id)
    where.push(`(at, id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`)
  }
  params.push(limit + 1)
  const r = await db.query<DbEntry>(
    `SELECT ${ENTRY_COLUMNS} FROM access_log
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY at DESC, id DESC LIMIT $${params.length}`,
    params,
  )
  const rows = r.rows.slice(0, limit).map(toEntry)
  const last = rows[rows.length - 1]
  return { entries: rows, next: r.rows.length > limit && last ? { at: last.at, id: last.id } : null }
}

export const CSV_HEADER = ['at', 'user', 'via', 'address', 'action', 'number', 'party', 'details']

export function csvLine(e: AccessLogEntry): string {
  return (
    [e.at, e.actor, e.via, e.address, e.action, e.number ?? '', e.party ?? '', JSON.stringify(e.details)].map(csvCell).join(',') + '\r\n'
  )
}
