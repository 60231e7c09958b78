import type { Db, Queryable } from '../db/types.ts'
import type { FilterName, FilterValues } from '../../contract/search-filters.ts'
import type { Filters } from '../kernel/params.ts'

/**
 * A search's filters as SQL: the WHERE conditions (parameterised, LIKE wildcards escaped), the
 * look-ups that turn text and partial digits into lists first, and the index walk for dates.
 * Shared by the pages, the counts and the export.
 */

/** LIKE pattern for a literal substring: backslash, % and _ are escaped (ESCAPE '\'). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/**
 * A status the search calls "other": neither a success (2xx) nor a failure (400 and up). The
 * partial index index_messages_status_other (migration 330) has this predicate, written the same
 * way so the planner proves it; the roll-ups count successes as all rows less failures less these.
 */
export const OTHER_STATUS = '(m.status_code IS NULL OR m.status_code < 200 OR m.status_code BETWEEN 300 AND 399)'

/** The status words' conditions: a success is 2xx, an error 400 and up, and "other" neither. */
const STATUS_SQL = { success: 'm.status_code BETWEEN 200 AND 299', error: 'm.status_code >= 400', other: OTHER_STATUS }

/** Adds a value to the statement's parameters and answers its placeholder (`$n`). */
type Add = (v: unknown) => string

/**
 * A filter's WHERE conditions, given its value (set: not null). Methods, so that whereOf may read
 * every row as FilterSql<unknown>; each row's value is still typed by its filter where it is written.
 */
interface FilterSql<V> {
  where(v: V, add: Add, f: Filters): string[]
}

/**
 * Each filter's SQL, keyed by the contract's filter names (contract/search-filters.ts): a filter
 * added there does not compile until it has its conditions here. In the order the conditions are
 * written (the scope first).
 */
export const FILTER_SQL: { [N in FilterName]: FilterSql<NonNullable<FilterValues[N]>> } = {
  numbers: {
    where: (numbers, add) => [numbers.length === 1 ? `m.number = ${add(numbers[0])}::text` : `m.number = ANY(${add(numbers)}::text[])`],
  },
  // Text is matched among the distinct bodies (index_bodies), then the messages by body_id.
  q: {
    where: (q, add, f) => [
      f.bodyIds
        ? `m.body_id = ANY(${add(f.bodyIds)}::int[])`
        : `m.body_id IN (SELECT b.id FROM index_bodies b WHERE b.body ILIKE ${add(likeContains(q))} ESCAPE '\\')`,
    ],
  },
  // Partial digits are matched among the distinct parties first (resolveParties: a small table
  // with a trigram index), so the planner sees a plain list and the (number, party) index serves.
  party: {
    where: (party, add, f) => [
      f.parties ? `m.party_digits = ANY(${add(f.parties)}::text[])` : `m.party_digits LIKE ${add(likeContains(party))} ESCAPE '\\'`,
    ],
  },
  direction: { where: (direction) => [direction === 'outbound' ? `m.direction = 'outbound'` : `m.direction IS DISTINCT FROM 'outbound'`] },
  status: { where: (status, add) => [status.kind === 'code' ? `m.status_code = ${add(status.code)}` : STATUS_SQL[status.kind]] },
  media: { where: (media, add) => [`m.mms = ${add(media)}`] },
  dates: {
    where: (d, add) => [
      ...(d.from ? [`m.date >= ${add(d.from)}::timestamptz`] : []),
      ...(d.toExclusive ? [`m.date < ${add(d.toExclusive)}::timestamptz`] : []),
      ...(d.toInclusive ? [`m.date <= ${add(d.toInclusive)}::timestamptz`] : []),
    ],
  },
}

const SQL_LIST = Object.entries(FILTER_SQL) as Array<[FilterName, FilterSql<unknown>]>

/** Builds the WHERE conditions of a filter set; values go to `params` ($n placeholders). */
export function whereOf(f: Filters, params: unknown[]): string[] {
  const add: Add = (v) => {
    params.push(v)
    return `$${params.length}`
  }
  return SQL_LIST.flatMap(([n, sql]) => {
    const v = f[n]
    return v === null ? [] : sql.where(v, add, f)
  })
}

export const MAX_PARTIES = 1000
export const MAX_BODIES = 1000

/**
 * Resolves `q` to the ids of the distinct bodies containing it and `party` to the distinct
 * matching parties (in place); returns false when either matches nothing.
 */
export async function resolveParties(db: Queryable, f: Filters): Promise<boolean> {
  if (f.q) {
    const b = await db.query<{ id: number }>(`SELECT id FROM index_bodies WHERE body ILIKE $1 ESCAPE '\\' LIMIT ${MAX_BODIES + 1}`, [
      likeContains(f.q),
    ])
    f.bodyIds = b.rows.length > MAX_BODIES ? null : b.rows.map((x) => x.id)
    if (b.rows.length === 0) {
      if (f.party) f.parties = []
      return false
    }
  }
  if (!f.party) return true
  const r = await db.query<{ party: string }>(
    `SELECT DISTINCT party FROM index_parties WHERE party LIKE $1 ESCAPE '\\' AND ($2::text[] IS NULL OR number = ANY($2::text[])) LIMIT ${MAX_PARTIES + 1}`,
    [likeContains(f.party), f.numbers],
  )
  f.parties = r.rows.length > MAX_PARTIES ? null : r.rows.map((x) => x.party)
  return r.rows.length > 0
}

/**
 * Runs a read with the planner told to walk an index (the date index, or a number's) rather than
 * scan the table or build a bitmap: in one transaction, or one batch on PGlite.
 */
export async function walkingDates<R extends Record<string, unknown>>(
  db: Queryable | Db,
  sql: string,
  params: unknown[],
): Promise<{ rows: R[] }> {
  const walk = ['SET LOCAL enable_bitmapscan = off', 'SET LOCAL enable_seqscan = off']
  if ('batch' in db && db.batch) return { rows: (await db.batch([...walk.map((sql) => ({ sql })), { sql, params }]))[2]!.rows as R[] }
  if ('transaction' in db)
    return db.transaction(async (tx) => {
      for (const st of walk) await tx.query(st)
      return tx.query<R>(sql, params)
    })
  return db.query<R>(sql, params)
}
