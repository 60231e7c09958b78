import { csvCell } from '../../contract/csv.ts'
import type { Queryable } from '../db/types.ts'

/**
 * The access log: who read what, when, from where. The application
 * only ever INSERTs here (a trigger refuses UPDATE), and the only DELETE is `purgeAccessLog`, the
 * retention purge of rows older than ACCESS_LOG_RETAIN_DAYS.
 */

export interface AccessLogEntry {
  id: string
  at: string
  actor: string
  via: string
  address: string
  action: string
  number: string | null
  party: string | null
  details: Record<string, unknown>
}

export interface NewEntry {
  at: Date
  actor: string
  via: string
  address: string
  action: string
  details: Record<string, unknown>
}

/** Keys that could carry a secret or a message's text: never written to the log, whoever passes them. */
const FORBIDDEN_KEYS = /^(password|passwd|secret|token|authorization|auth_token|cookie|body|bodies|message|messages)$/i
const DETAILS_MAX_CHARS = 4000

/** Drop forbidden keys (at any depth) and cut long strings, so an entry stays small and clean. */
export function cleanDetails(details: Record<string, unknown>): Record<string, unknown> {
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return v.length > 300 ? `${v.slice(0, 300)}…` : v
    if (typeof v === 'number' || typeof v === 'boolean' || v === null) return v
    if (depth > 3) return undefined
    if (Array.isArray(v)) return v.slice(0, 50).map((x) => walk(x, depth + 1))
    if (typeof v === 'object') {
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (FORBIDDEN_KEYS.test(k)) continue
        const w = walk(x, depth + 1)
        if (w !== undefined) out[k.slice(0, 60)] = w
      }
      return out
    }
    return undefined
  }
  const out = (walk(details, 0) ?? {}) as Record<string, unknown>
  if (JSON.stringify(out).length > DETAILS_MAX_CHARS) return { truncated: true, keys: Object.keys(out).slice(0, 30) }
  return out
}

const textOrNull = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' ? v.slice(0, 64) : typeof v === 'number' ? String(v) : null

export async function insertEntry(db: Queryable, e: NewEntry): Promise<void> {
  await insertEntries(db, [e])
}

/** Several entries in one parameterised statement (the access log batches what requests record). */
export async function insertEntries(db: Queryable, entries: readonly NewEntry[]): Promise<void> {
  if (entries.length === 0) return
  const values: unknown[] = []
  const rows: string[] = []
  for (const e of entries) {
    const details = cleanDetails(e.details)
    // number and party get their own columns (filtered and indexed); the rest stays in details.
    const b = values.length
    rows.push(`($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8}::jsonb)`)
    values.push(
      e.at,
      e.actor.slice(0, 320),
      e.via,
      e.address.slice(0, 100),
      e.action.slice(0, 60),
      textOrNull(details.number),
      textOrNull(details.party),
      JSON.stringify(details),
    )
  }
  await db.query(`INSERT INTO access_log (at, actor, via, address, action, number, party, details) VALUES ${rows.join(', ')}`, values)
}

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

export function decodeCursor(text: string): LogCursor | null {
  const raw = Buffer.from(text, 'base64url').toString('utf8')
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|(\d{1,19})$/.exec(raw)
  return m ? { at: m[1]!, id: m[2]! } : null
}

interface DbEntry extends Record<string, unknown> {
  id: string | number
  at: Date | string
  actor: string
  via: string
  address: string
  action: string
  number: string | null
  party: string | null
  details: Record<string, unknown> | string
}

const toEntry = (r: DbEntry): AccessLogEntry => ({
  id: String(r.id),
  at: new Date(r.at).toISOString(),
  actor: r.actor,
  via: r.via,
  address: r.address,
  action: r.action,
  number: r.number,
  party: r.party,
  details: typeof r.details === 'string' ? (JSON.parse(r.details) as Record<string, unknown>) : r.details,
})

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
    where.push(sql.replace('?', `$${params.length}`))
  }
  if (f.user) add('actor = ?', f.user)
  if (f.number) add('number = ?', f.number)
  if (f.party) add('party = ?', f.party)
  if (f.action) add('action = ?', f.action)
  if (f.from) add('at >= ?', f.from)
  if (f.to) add('at < ?', f.to)
  if (after) {
    params.push(after.at, after.id)
    where.push(`(at, id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`)
  }
  params.push(limit + 1)
  const r = await db.query<DbEntry>(
    `SELECT id, at, actor, via, address, action, number, party, details FROM access_log
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY at DESC, id DESC LIMIT $${params.length}`,
    params,
  )
  const rows = r.rows.slice(0, limit).map(toEntry)
  const last = rows[rows.length - 1]
  return { entries: rows, next: r.rows.length > limit && last ? { at: last.at, id: last.id } : null }
}

/** The retention purge: the one DELETE on the access log. */
export async function purgeAccessLog(db: Queryable, retainDays: number, now: number): Promise<number> {
  const r = await db.query('DELETE FROM access_log WHERE at < $1 RETURNING 1', [new Date(now - retainDays * 86_400_000)])
  return r.rows.length
}

export const CSV_HEADER = ['at', 'user', 'via', 'address', 'action', 'number', 'party', 'details']

export function csvLine(e: AccessLogEntry): string {
  return (
    [e.at, e.actor, e.via, e.address, e.action, e.number ?? '', e.party ?? '', JSON.stringify(e.details)].map(csvCell).join(',') + '\r\n'
  )
}
