import type { Db, Queryable } from '../db/types.ts'
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

/** Builds the WHERE conditions of a filter set; values go to `params` ($n placeholders). */
export function whereOf(f: Filters, params: unknown[]): string[] {
  const w: string[] = []
  const add = (v: unknown) => {
    params.push(v)
    return `$${params.length}`
  }
  if (f.numbers?.length === 1) w.push(`m.number = ${add(f.numbers[0])}::text`)
  else if (f.numbers) w.push(`m.number = ANY(${add(f.numbers)}::text[])`)
  // Text is matched among the distinct bodies (index_bodies), then the messages by body_id.
  if (f.q && f.bodyIds) w.push(`m.body_id = ANY(${add(f.bodyIds)}::int[])`)
  else if (f.q) w.push(`m.body_id IN (SELECT b.id FROM index_bodies b WHERE b.body ILIKE ${add(likeContains(f.q))} ESCAPE '\\')`)
  // Partial digits are matched among the distinct parties first (resolveParties: a small table
  // with a trigram index), so the planner sees a plain list and the (number, party) index serves.
  if (f.party && f.parties) w.push(`m.party_digits = ANY(${add(f.parties)}::text[])`)
  else if (f.party) w.push(`m.party_digits LIKE ${add(likeContains(f.party))} ESCAPE '\\'`)
  if (f.direction === 'outbound') w.push(`m.direction = 'outbound'`)
  if (f.direction === 'inbound') w.push(`m.direction IS DISTINCT FROM 'outbound'`)
  if (f.status?.kind === 'success') w.push('m.status_code BETWEEN 200 AND 299')
  if (f.status?.kind === 'error') w.push('m.status_code >= 400')
  if (f.status?.kind === 'other') w.push(OTHER_STATUS)
  if (f.status?.kind === 'code') w.push(`m.status_code = ${add(f.status.code)}`)
  if (f.media !== null) w.push(`m.mms = ${add(f.media)}`)
  if (f.from) w.push(`m.date >= ${add(f.from)}::timestamptz`)
  if (f.toExclusive) w.push(`m.date < ${add(f.toExclusive)}::timestamptz`)
  if (f.toInclusive) w.push(`m.date <= ${add(f.toInclusive)}::timestamptz`)
  return w
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

export const onlyScope = (f: Filters) =>
  !f.q && !f.direction && !f.status && f.media === null && !f.from && !f.toExclusive && !f.toInclusive

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
