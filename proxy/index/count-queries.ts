import type { StatsBucket } from '../../contract/index-api.ts'
import type { Db, Queryable } from '../db/types.ts'
import type { Filters } from '../kernel/params.ts'
import { setWithin, type FilterName } from '../../contract/search-filters.ts'
import { OTHER_STATUS, resolveParties, walkingDates, whereOf } from './filter-sql.ts'

/**
 * A search's counts: exact from the roll-ups where they answer, else a capped COUNT; the data
 * version that keys the count cache; a saved view's new matches; the charts' counts per day or
 * week, from the same roll-ups.
 */

/**
 * Exact count. Roll-ups answer when they can (see rollUpCount); otherwise a COUNT over the
 * messages, whose cost grows with the matches. Call resolveParties first.
 */
export async function countMatches(db: Queryable, f: Filters): Promise<number> {
  const fast = await rollUpCount(db, f)
  if (fast !== null) return fast
  const params: unknown[] = []
  const w = whereOf(f, params)
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM index_messages m WHERE ${w.join(' AND ')}`, params)
  return r.rows[0]?.n ?? 0
}

/**
 * Where counting stops for a filter no roll-up answers: at about 0.5 ms per thousand rows
 * counted, 100,000 fits a search's 100 ms budget with the page beside it.
 */
export const COUNT_CAP = 100_000

/** A search's count: exact, or (`capped`) a lower bound: more than `total` messages match. */
export interface SearchCount {
  total: number
  capped: boolean
}

/**
 * The search's count: exact whenever a roll-up answers; otherwise the COUNT stops after `cap`
 * matches and says so, so a broad filter no roll-up can serve (media over every number, a
 * direction with a status) still answers within the search's budget.
 */
export async function countCapped(db: Queryable | Db, f: Filters, cap = COUNT_CAP): Promise<SearchCount> {
  const fast = await rollUpCount(db, f)
  if (fast !== null) return { total: fast, capped: false }
  const params: unknown[] = []
  const w = whereOf(f, params)
  params.push(cap + 1)
  const sql = `SELECT count(*)::int AS n FROM (SELECT 1 FROM index_messages m WHERE ${w.join(' AND ')} LIMIT $${params.length}) x`
  // A date range with no text or digits to look up: PostgreSQL's planner scans the whole table
  // once the range holds a few percent of it, where walking the range in the date index (or a
  // number's) reads only the range: three to four times faster over 2,000,000 messages.
  const walk = !f.q && !f.party && f.dates !== null
  const r = walk ? await walkingDates<{ n: number }>(db, sql, params) : await db.query<{ n: number }>(sql, params)
  const n = r.rows[0]?.n ?? 0
  return n > cap ? { total: cap, capped: true } : { total: n, capped: false }
}

/** The quarter-hour roll-up's slot and the daily roll-up's day (UTC), in milliseconds. */
const QUARTER_MS = 15 * 60_000
const DAY_MS = 86_400_000
const isoMs = (ms: number) => new Date(ms).toISOString()
const dayOf = (ms: number) => isoMs(ms).slice(0, 10)

/**
 * The filters the slot roll-ups (index_daily, index_quarter_hours) are kept by: the scope, the
 * days, and the columns rollUpMeasure sums. A search setting any other filter (text, digits, or
 * one added later) is not theirs to count.
 */
const ROLLED_UP: readonly FilterName[] = ['numbers', 'dates', 'direction', 'status', 'media']

/**
 * What a roll-up row sums to for a filter, or null when the roll-ups cannot tell: they keep
 * inbound, outbound, failed (status ≥ 400), outbound failed and with-media counts per number and
 * slot, by the search's own definitions (direction 'outbound', else inbound; failure = the
 * 'error' status; media = mms). Media is kept alone, so media with a direction or a status is
 * not theirs. A success is a row that is neither a failure nor an "other" status, and the others
 * (rare: the upstream documents only 200 and 400) are counted from their partial index and
 * taken off.
 */
function rollUpMeasure(f: Filters): { sum: string; lessOther: boolean } | null {
  if (!setWithin(f, ROLLED_UP)) return null
  const kind = f.status?.kind ?? null
  const all = f.direction === 'outbound' ? 'outbound' : f.direction === 'inbound' ? 'inbound' : '(inbound + outbound)'
  if (f.media !== null) {
    if (kind !== null || f.direction !== null) return null
    return { sum: f.media ? 'mms' : `${all} - mms`, lessOther: false }
  }
  if (kind === null) return { sum: all, lessOther: false }
  const failed = f.direction === 'outbound' ? 'failed_out' : f.direction === 'inbound' ? '(failed - failed_out)' : 'failed'
  if (kind === 'error') return { sum: failed, lessOther: false }
  if (kind === 'success') return { sum: `${all} - ${failed}`, lessOther: true }
  return null
}

/**
 * An exact count from the roll-ups kept in the same transaction as the rows, or null when none
 * applies. The numbers table answers for a scope alone, the parties table for digits, the
 * per-body counts for text. Numbers, dates, a direction, a success/error status and media
 * (rollUpMeasure says which together) are summed from index_daily for the whole UTC days of the range and index_quarter_hours for the whole
 * quarter hours beside them; the parts of the range that are not whole quarter hours (a `from`
 * or `to` with minutes or seconds) are counted among the messages, a quarter hour at most at
 * each end. A range shorter than two quarter hours is left to the COUNT.
 */
export async function rollUpCount(db: Queryable, f: Filters): Promise<number | null> {
  // The numbers table, the parties table and the per-body counts each answer their one filter within the scope.
  if (setWithin(f, ['numbers'])) {
    const r = await db.query<{ n: number }>(
      'SELECT COALESCE(sum(indexed), 0)::int AS n FROM index_numbers WHERE $1::text[] IS NULL OR number = ANY($1::text[])',
      [f.numbers],
    )
    return r.rows[0]?.n ?? 0
  }
  if (f.party && f.parties && setWithin(f, ['numbers', 'party'])) {
    const r = await db.query<{ n: number }>(
      'SELECT COALESCE(sum(count), 0)::int AS n FROM index_parties WHERE party = ANY($1::text[]) AND ($2::text[] IS NULL OR number = ANY($2::text[]))',
      [f.parties, f.numbers],
    )
    return r.rows[0]?.n ?? 0
  }
  if (f.q && f.bodyIds?.length === 0) return 0
  if (f.party && f.parties?.length === 0) return 0
  if (f.q && f.bodyIds && setWithin(f, ['numbers', 'q'])) {
    const r = await db.query<{ n: number }>(
      'SELECT COALESCE(sum(count), 0)::int AS n FROM index_body_counts WHERE body_id = ANY($1::int[]) AND ($2::text[] IS NULL OR number = ANY($2::text[]))',
      [f.bodyIds, f.numbers],
    )
    return r.rows[0]?.n ?? 0
  }
  const measure = rollUpMeasure(f)
  if (!measure) return null
  const hiText = f.dates?.toExclusive ?? f.dates?.toInclusive ?? null
  const lo = f.dates?.from ? Date.parse(f.dates.from) : null
  const hi = hiText ? Date.parse(hiText) : null
  // The whole quarter hours of the range: [loQ, hiQ), either end open.
  const loQ = lo === null ? null : Math.ceil(lo / QUARTER_MS) * QUARTER_MS
  const hiQ = hi === null ? null : Math.floor(hi / QUARTER_MS) * QUARTER_MS
  if (loQ !== null && hiQ !== null && loQ >= hiQ) return null
  // The whole UTC days among them: [loD, hiD), when there is one.
  const loD = loQ === null ? null : Math.ceil(loQ / DAY_MS) * DAY_MS
  const hiD = hiQ === null ? null : Math.floor(hiQ / DAY_MS) * DAY_MS
  const days = loD === null || hiD === null || loD < hiD

  const params: unknown[] = []
  const add = (v: unknown) => {
    params.push(v)
    return `$${params.length}`
  }
  const scope = (col: string) =>
    f.numbers === null ? [] : f.numbers.length === 1 ? [`${col} = ${add(f.numbers[0])}::text`] : [`${col} = ANY(${add(f.numbers)}::text[])`]
  const all = (w: string[]) => (w.length ? w.join(' AND ') : 'true')
  const parts: string[] = []
  const sumOf = (table: string, w: string[]) => parts.push(`(SELECT COALESCE(sum(${measure.sum}), 0) FROM ${table} WHERE ${all(w)})`)
  const slots = (from: number | null, to: number | null) => {
    const w = scope('number')
    if (from !== null) w.push(`slot >= ${add(isoMs(from))}::timestamptz`)
    if (to !== null) w.push(`slot < ${add(isoMs(to))}::timestamptz`)
    sumOf('index_quarter_hours', w)
  }
  if (days) {
    const w = scope('number')
    if (loD !== null) w.push(`day >= ${add(dayOf(loD))}::date`)
    if (hiD !== null) w.push(`day < ${add(dayOf(hiD))}::date`)
    sumOf('index_daily', w)
    if (loQ !== null && loD !== null && loQ < loD) slots(loQ, loD)
    if (hiQ !== null && hiD !== null && hiD < hiQ) slots(hiD, hiQ)
  } else slots(loQ, hiQ)
  // The ends of the range that are not whole quarter hours, counted as the search filters them.
  const edge = (cond: string) => parts.push(`(SELECT count(*) FROM index_messages m WHERE ${all([...whereOf(f, params), cond])})`)
  if (lo !== null && loQ !== null && lo < loQ) edge(`m.date < ${add(isoMs(loQ))}::timestamptz`)
  if (hi !== null && hiQ !== null && (hi > hiQ || f.dates?.toInclusive)) edge(`m.date >= ${add(isoMs(hiQ))}::timestamptz`)
  let sql = parts.join(' + ')
  if (measure.lessOther) {
    const w = [...scope('m.number'), OTHER_STATUS]
    if (f.direction === 'outbound') w.push(`m.direction = 'outbound'`)
    if (f.direction === 'inbound') w.push(`m.direction IS DISTINCT FROM 'outbound'`)
    if (loQ !== null) w.push(`m.date >= ${add(isoMs(loQ))}::timestamptz`)
    if (hiQ !== null) w.push(`m.date < ${add(isoMs(hiQ))}::timestamptz`)
    sql = `${sql} - (SELECT count(*) FROM index_messages m WHERE ${all(w)})`
  }
  const r = await db.query<{ n: number }>(`SELECT (${sql})::int AS n`, params)
  return r.rows[0]?.n ?? 0
}

/**
 * Matches stored after `since` (every match when null: a saved view never opened), for a saved
 * view's count. The new ones are found through indexed_at: its BRIN index reads only the recent
 * part of the table.
 */
export async function newMatches(db: Queryable, f: Filters, since: Date | null): Promise<number> {
  const filters = { ...f }
  if (!(await resolveParties(db, filters))) return 0
  if (!since) return countMatches(db, filters)
  const params: unknown[] = []
  const where = whereOf(filters, params)
  params.push(since)
  where.push(`m.indexed_at > $${params.length}::timestamptz`)
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM index_messages m WHERE ${where.join(' AND ')}`, params)
  return r.rows[0]?.n ?? 0
}

/** What the index holds, in one string over index_numbers: any sync page or forget changes it. */
export const VERSION_SQL = `COALESCE(sum(indexed), 0) || ':' || count(*) || ':' || COALESCE(max(finished_at)::text, '')`

/** What the index holds, in one string: any sync page or forget changes it (count cache key). */
export async function dataVersion(db: Queryable): Promise<string> {
  const r = await db.query<{ v: string }>(`SELECT ${VERSION_SQL} AS v FROM index_numbers`)
  return r.rows[0]?.v ?? ''
}

/**
 * The search counts (countCapped) of recent queries while the data is unchanged: paging through
 * a result (every page carries the total) and re-running a search cost one count, not one per page.
 */
export function createCountCache(max = 500) {
  const cache = new Map<string, SearchCount>()
  /** `version`: dataVersion read by the caller just before (freshnessAndVersion), saving a statement. */
  return async (db: Queryable | Db, f: Filters, version?: string): Promise<SearchCount> => {
    const key = `${version ?? (await dataVersion(db))}|${JSON.stringify(f)}`
    const hit = cache.get(key)
    if (hit !== undefined) {
      cache.delete(key)
      cache.set(key, hit)
      return hit
    }
    const n = await countCapped(db, f)
    cache.set(key, n)
    if (cache.size > max) cache.delete(cache.keys().next().value!)
    return n
  }
}

/**
 * Inbound, outbound and failed counts per day or week. Without a zone the days are UTC days (the
 * daily roll-up); with an IANA zone they are that zone's days, from the quarter-hour roll-up (a
 * day of any zone is a whole set of UTC quarter hours), and from/to are days of that zone.
 */
export async function stats(
  db: Queryable,
  number: string | null,
  bucket: 'day' | 'week',
  from: string | null,
  toExclusive: string | null,
  tz: string | null = null,
): Promise<StatsBucket[]> {
  const fromDay = from ? from.slice(0, 10) : null
  const toDay = toExclusive ? toExclusive.slice(0, 10) : null
  if (tz !== null) {
    const r = await db.query<{ day: string; inbound: number; outbound: number; failed: number }>(
      `SELECT to_char(b, 'YYYY-MM-DD') AS day, sum(inbound)::int AS inbound, sum(outbound)::int AS outbound, sum(failed)::int AS failed
       FROM (
         SELECT CASE WHEN $2 = 'week' THEN date_trunc('week', slot AT TIME ZONE $5::text)::date ELSE (slot AT TIME ZONE $5::text)::date END AS b,
                inbound, outbound, failed
         FROM index_quarter_hours
         WHERE ($1::text IS NULL OR number = $1)
           AND ($3::date IS NULL OR slot >= ($3::date::timestamp AT TIME ZONE $5::text))
           AND ($4::date IS NULL OR slot < ($4::date::timestamp AT TIME ZONE $5::text))
       ) x
       GROUP BY b ORDER BY b`,
      [number, bucket, fromDay, toDay, tz],
    )
    return r.rows
  }
  const r = await db.query<{ day: string; inbound: number; outbound: number; failed: number }>(
    `SELECT to_char(b, 'YYYY-MM-DD') AS day, sum(inbound)::int AS inbound, sum(outbound)::int AS outbound, sum(failed)::int AS failed
     FROM (
       SELECT CASE WHEN $2 = 'week' THEN date_trunc('week', day)::date ELSE day END AS b, inbound, outbound, failed
       FROM index_daily
       WHERE ($1::text IS NULL OR number = $1) AND ($3::date IS NULL OR day >= $3::date) AND ($4::date IS NULL OR day < $4::date)
     ) x
     GROUP BY b ORDER BY b`,
    [number, bucket, fromDay, toDay],
  )
  return r.rows
}
