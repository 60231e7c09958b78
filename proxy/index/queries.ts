import type { Freshness, IndexedMessage, NumberIndexStatus, StatsBucket, SyncState } from '../../contract/index-api.ts'
import { partyForms } from '../../contract/desk/messages.ts'
import type { Db, Queryable } from '../db/types.ts'
import type { IndexHooks } from './hooks.ts'
import { encodeCursor, type Cursor, type Filters } from '../kernel/params.ts'
import { BODY_OF, STATUS_OF } from '../kernel/stored-messages.ts'

/**
 * The index's read side: the SQL (parameterised, LIKE wildcards escaped, bounded page sizes) and
 * the row shapes of contract/index-api.ts, over filters already checked by kernel/params.ts. Shared by
 * the JSON routes and the export stream.
 */

/** Lists inside `freshness` are cut here; the counts say how many there are. */
const FRESHNESS_LIST_MAX = 100

/** LIKE pattern for a literal substring: backslash, % and _ are escaped (ESCAPE '\'). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

// ---------------------------------------------------------------------------------------------
// SQL

/**
 * A status the search calls "other": neither a success (2xx) nor a failure (400 and up). The
 * partial index index_messages_status_other (migration 330) has this predicate, written the same
 * way so the planner proves it; the roll-ups count successes as all rows less failures less these.
 */
const OTHER_STATUS = '(m.status_code IS NULL OR m.status_code < 200 OR m.status_code BETWEEN 300 AND 399)'

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

const COLS = `m.number, m.fetched_tid, m.tid, m.ordinal, m.system_id, m.message_id, m.date, m.date_raw, m.phone, m.direction, ${BODY_OF('m')} AS body, m.mms, m.media_url, ${STATUS_OF('m')} AS status, m.status_code`

export interface MessageRow extends Record<string, unknown> {
  number: string
  fetched_tid: string
  tid: string | null
  ordinal: number
  system_id: string | null
  message_id: string | null
  date: Date | string
  date_raw: string | null
  phone: string | null
  direction: string | null
  body: string | null
  mms: boolean
  media_url: string | null
  status: string | null
  status_code: number | null
  /** The number's position base (see positionBases), where the query read it alongside the row. */
  position_base?: number | null
}

/** `2026-11-21T12:04:00Z`: seconds precision, as the upstream's dates have. */
export function isoOf(d: Date | string | null | undefined): string | null {
  if (d === null || d === undefined) return null
  const ms = d instanceof Date ? d.getTime() : Date.parse(d)
  if (Number.isNaN(ms)) return null
  return `${new Date(ms).toISOString().slice(0, 19)}Z`
}

/** Cursor dates keep milliseconds so a keyset comparison is exact. */
const cursorDate = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString()

export function toMessage(r: MessageRow, positionBase: number): IndexedMessage & { messageTid: string | null; dateRaw?: string } {
  return {
    number: r.number,
    tid: r.fetched_tid,
    ordinal: r.ordinal,
    position: Math.max(1, positionBase - r.ordinal + 1),
    systemId: r.system_id,
    messageId: r.message_id,
    date: r.date_raw ? null : isoOf(r.date),
    phone: r.phone,
    direction: r.direction,
    body: r.body,
    mms: r.mms,
    mediaUrl: r.media_url,
    status: r.status,
    statusCode: r.status_code,
    messageTid: r.tid,
    ...(r.date_raw ? { dateRaw: r.date_raw } : {}),
  }
}

/** A row's number's position base (as positionBases), as a scalar subquery over alias `a`. */
const BASE_OF = (a: string) =>
  `(SELECT GREATEST(COALESCE(n.upstream_total, 0), n.top_ordinal) FROM index_numbers n WHERE n.number = ${a}.number)`

/** Per number: the total the upstream pages against, so ordinals become positions. */
export async function positionBases(db: Queryable, numbers: string[]): Promise<Map<string, number>> {
  if (numbers.length === 0) return new Map()
  const r = await db.query<{ number: string; base: number }>(
    'SELECT number, GREATEST(COALESCE(upstream_total, 0), top_ordinal) AS base FROM index_numbers WHERE number = ANY($1::text[])',
    [[...new Set(numbers)]],
  )
  return new Map(r.rows.map((x) => [x.number, x.base]))
}

export async function freshness(db: Queryable, scope: string[] | null): Promise<Freshness> {
  return (await freshnessAndVersion(db, scope)).freshness
}

/**
 * The freshness of `scope`, read in the same statement as what a search needs besides: the
 * data version (the count cache's key, as dataVersion), the messages indexed for the scope
 * (the unfiltered count) and, given `resolve`, its text and digit look-ups (as resolveParties,
 * in place). One statement instead of four or five: on PGlite every statement is a turn on the
 * one connection.
 */
export async function freshnessAndVersion(
  db: Queryable,
  scope: string[] | null,
  /** Filters whose text and partial digits are resolved (as resolveParties) in the same statement. */
  resolve?: Filters,
): Promise<{ freshness: Required<Freshness>; version: string; scopeIndexed: number }> {
  const q = resolve?.q ? likeContains(resolve.q) : null
  const party = resolve?.party ? likeContains(resolve.party) : null
  const r = await db.query<{
    body_ids: number[] | null
    parties: string[] | null
    known: number
    complete: number
    up_to: Date | string | null
    syncing: string[] | null
    syncing_count: number
    incomplete: string[] | null
    incomplete_count: number
    incomplete_syncing_count: number
    unknown: string[] | null
    version: string
    scope_indexed: number
  }>(
    `WITH s AS (
       SELECT number, state, last_synced_at, indexed, finished_at,
              -- A number that left the account is never reported fresh, nor one whose last sync stopped
              -- short (an error or a refusal: its newest messages are not known to be here).
              (full_done AND top_ordinal >= COALESCE(upstream_total, 0) AND removed_at IS NULL AND state NOT IN ('error', 'paused')) AS complete,
              ($1::text[] IS NULL OR number = ANY($1::text[])) AS in_scope
       FROM index_numbers
     )
     SELECT count(*)::int AS known,
            count(*) FILTER (WHERE complete)::int AS complete,
            min(last_synced_at) FILTER (WHERE in_scope) AS up_to,
            (array_agg(number ORDER BY number) FILTER (WHERE state IN ('queued', 'syncing')))[1:${FRESHNESS_LIST_MAX}] AS syncing,
            count(*) FILTER (WHERE state IN ('queued', 'syncing'))::int AS syncing_count,
            (array_agg(number ORDER BY number) FILTER (WHERE in_scope AND NOT complete))[1:${FRESHNESS_LIST_MAX}] AS incomplete,
            count(*) FILTER (WHERE in_scope AND NOT complete)::int AS incomplete_count,
            count(*) FILTER (WHERE in_scope AND NOT complete AND state IN ('queued', 'syncing'))::int AS incomplete_syncing_count,
            -- Numbers asked about that the index has never seen, in the order asked.
            (SELECT array_agg(u.x ORDER BY u.k) FROM unnest($1::text[]) WITH ORDINALITY u(x, k)
              WHERE NOT EXISTS (SELECT 1 FROM index_numbers n WHERE n.number = u.x)) AS unknown,
            ${VERSION_SQL} AS version,
            COALESCE(sum(indexed) FILTER (WHERE in_scope), 0)::int AS scope_indexed,
            -- As resolveParties: the ids of the distinct bodies holding the text, the distinct
            -- parties holding the digits (one more than the most listed: too many to list).
            (SELECT array_agg(b.id) FROM (SELECT id FROM index_bodies WHERE $2::text IS NOT NULL AND body ILIKE $2 ESCAPE '\\'
              LIMIT ${MAX_BODIES + 1}) b) AS body_ids,
            (SELECT array_agg(p.party) FROM (SELECT DISTINCT party FROM index_parties WHERE $3::text IS NOT NULL AND party LIKE $3 ESCAPE '\\'
              AND ($1::text[] IS NULL OR number = ANY($1::text[])) LIMIT ${MAX_PARTIES + 1}) p) AS parties
     FROM s`,
    [scope, q, party],
  )
  const x = r.rows[0]
  if (resolve?.q) {
    const ids = x?.body_ids ?? []
    resolve.bodyIds = ids.length > MAX_BODIES ? null : ids
  }
  if (resolve?.party) {
    const found = x?.parties ?? []
    resolve.parties = found.length > MAX_PARTIES ? null : found
  }
  // Numbers asked about that the index has never seen are not indexed at all: say so.
  const unknown = x?.unknown ?? []
  const incomplete = [...(x?.incomplete ?? []), ...unknown].slice(0, FRESHNESS_LIST_MAX)
  return {
    freshness: {
      numbersKnown: x?.known ?? 0,
      numbersComplete: x?.complete ?? 0,
      syncing: x?.syncing ?? [],
      incomplete,
      indexedUpTo: isoOf(x?.up_to ?? null),
      syncingCount: x?.syncing_count ?? 0,
      incompleteCount: (x?.incomplete_count ?? 0) + unknown.length,
      incompleteSyncingCount: x?.incomplete_syncing_count ?? 0,
    },
    version: x?.version ?? '',
    scopeIndexed: x?.scope_indexed ?? 0,
  }
}

/** Every number the index knows, or just `only`. */
export async function numberStatuses(
  db: Queryable,
  only: string | null = null,
): Promise<Array<NumberIndexStatus & { fullyIndexed: boolean }>> {
  const r = await db.query<{
    number: string
    tid: string
    state: SyncState
    indexed: number
    upstream_total: number | null
    error: string | null
    last_synced_at: Date | null
    progress_done: number | null
    progress_total: number | null
    newest: Date | null
    oldest: Date | null
    full_done: boolean
    removed: boolean
    other_tids: string[]
    forgotten_at: Date | null
    finding: string | null
  }>(
    `SELECT n.number, n.tid, n.state, n.indexed, n.upstream_total, n.error, n.last_synced_at, n.progress_done, n.progress_total,
            -- As freshness() judges it: a whole walk holding the upstream's newest, in the account.
            (n.full_done AND n.top_ordinal >= COALESCE(n.upstream_total, 0) AND n.removed_at IS NULL AND n.state NOT IN ('error', 'paused')) AS full_done,
            n.removed_at IS NOT NULL AS removed, n.other_tids, n.forgotten_at, n.finding,
            (SELECT m.date FROM index_messages m WHERE m.number = n.number ORDER BY m.date DESC, m.ordinal DESC LIMIT 1) AS newest,
            (SELECT m.date FROM index_messages m WHERE m.number = n.number ORDER BY m.date ASC, m.ordinal ASC LIMIT 1) AS oldest
     FROM index_numbers n WHERE $1::text IS NULL OR n.number = $1 ORDER BY n.number`,
    [only],
  )
  return r.rows.map((x) => ({
    number: x.number,
    tid: x.tid,
    state: x.state,
    indexed: x.indexed,
    upstreamTotal: x.upstream_total,
    newestDate: isoOf(x.newest),
    oldestDate: isoOf(x.oldest),
    lastSyncedAt: isoOf(x.last_synced_at),
    error: x.error,
    progress: x.state === 'syncing' && x.progress_total !== null ? { done: x.progress_done ?? 0, total: x.progress_total } : null,
    // Not the walk's flag alone: it read true for numbers in error, and for 1,907 of 2,653.
    fullyIndexed: x.full_done,
    removed: x.removed,
    otherTids: x.other_tids,
    forgottenAt: isoOf(x.forgotten_at),
    finding: x.finding,
  }))
}

export interface SearchPage {
  total: number
  rows: MessageRow[]
  nextCursor: string | null
}

const MAX_PARTIES = 1000
const MAX_BODIES = 1000

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

const onlyScope = (f: Filters) => !f.q && !f.direction && !f.status && f.media === null && !f.from && !f.toExclusive && !f.toInclusive

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
  const walk = !f.q && !f.party && (f.from !== null || f.toExclusive !== null || f.toInclusive !== null)
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
 * What a roll-up row sums to for a filter, or null when the roll-ups cannot tell: they keep
 * inbound, outbound, failed (status ≥ 400), outbound failed and with-media counts per number and
 * slot, by the search's own definitions (direction 'outbound', else inbound; failure = the
 * 'error' status; media = mms). Media is kept alone, so media with a direction or a status is
 * not theirs. A success is a row that is neither a failure nor an "other" status, and the others
 * (rare: the upstream documents only 200 and 400) are counted from their partial index and
 * taken off.
 */
function rollUpMeasure(f: Filters): { sum: string; lessOther: boolean } | null {
  if (f.q || f.party) return null
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
  if (onlyScope(f) && !f.party) {
    const r = await db.query<{ n: number }>(
      'SELECT COALESCE(sum(indexed), 0)::int AS n FROM index_numbers WHERE $1::text[] IS NULL OR number = ANY($1::text[])',
      [f.numbers],
    )
    return r.rows[0]?.n ?? 0
  }
  if (onlyScope(f) && f.party && f.parties) {
    const r = await db.query<{ n: number }>(
      'SELECT COALESCE(sum(count), 0)::int AS n FROM index_parties WHERE party = ANY($1::text[]) AND ($2::text[] IS NULL OR number = ANY($2::text[]))',
      [f.parties, f.numbers],
    )
    return r.rows[0]?.n ?? 0
  }
  if (f.q && f.bodyIds?.length === 0) return 0
  if (f.party && f.parties?.length === 0) return 0
  if (f.q && f.bodyIds && !f.party && onlyScope({ ...f, q: null })) {
    const r = await db.query<{ n: number }>(
      'SELECT COALESCE(sum(count), 0)::int AS n FROM index_body_counts WHERE body_id = ANY($1::int[]) AND ($2::text[] IS NULL OR number = ANY($2::text[]))',
      [f.bodyIds, f.numbers],
    )
    return r.rows[0]?.n ?? 0
  }
  const measure = rollUpMeasure(f)
  if (!measure) return null
  const hiText = f.toExclusive ?? f.toInclusive
  const lo = f.from ? Date.parse(f.from) : null
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
  if (hi !== null && hiQ !== null && (hi > hiQ || f.toInclusive)) edge(`m.date >= ${add(isoMs(hiQ))}::timestamptz`)
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
const VERSION_SQL = `COALESCE(sum(indexed), 0) || ':' || count(*) || ':' || COALESCE(max(finished_at)::text, '')`

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

/** Keyset condition after `cursor`: (date, ordinal) within one number, else (date, number, ordinal). */
function keyset(f: Filters, cursor: Cursor, params: unknown[]): string {
  if (f.numbers?.length === 1 && f.numbers[0] === cursor.number) {
    params.push(cursor.date, cursor.ordinal)
    return `(m.date, m.ordinal) < ($${params.length - 1}::timestamptz, $${params.length}::int)`
  }
  params.push(cursor.date, cursor.number, cursor.ordinal)
  const n = params.length
  return `(m.date, m.number, m.ordinal) < ($${n - 2}::timestamptz, $${n - 1}::text, $${n}::int)`
}

/**
 * Runs a read with the planner told to walk an index (the date index, or a number's) rather than
 * scan the table or build a bitmap: in one transaction, or one batch on PGlite.
 */
async function walkingDates<R extends Record<string, unknown>>(db: Queryable | Db, sql: string, params: unknown[]): Promise<{ rows: R[] }> {
  const walk = ['SET LOCAL enable_bitmapscan = off', 'SET LOCAL enable_seqscan = off']
  if ('batch' in db && db.batch) return { rows: (await db.batch([...walk.map((sql) => ({ sql })), { sql, params }]))[2]!.rows as R[] }
  if ('transaction' in db)
    return db.transaction(async (tx) => {
      for (const st of walk) await tx.query(st)
      return tx.query<R>(sql, params)
    })
  return db.query<R>(sql, params)
}

/** One page newest first, keyset over (date, number, ordinal). Call resolveParties first. */
export async function searchPage(
  db: Queryable | Db,
  f: Filters,
  cursor: Cursor | null,
  limit: number,
  /**
   * The matches are common (the exact count is known): walk the date index and filter rather
   * than let the planner fetch every match and sort it (it guesses low for long bodies).
   */
  walkDates = false,
): Promise<{ rows: MessageRow[]; nextCursor: string | null }> {
  if ((f.party && f.parties?.length === 0) || (f.q && f.bodyIds?.length === 0)) return { rows: [], nextCursor: null }
  const params: unknown[] = []
  const w = whereOf(f, params)
  if (cursor) w.push(keyset(f, cursor, params))
  params.push(limit + 1)
  // The page's position bases come with it (one statement, and the same snapshot as the rows);
  // they are looked up for the page's rows only, after the limit.
  const sql = `SELECT p.*, ${BASE_OF('p')} AS position_base FROM (
       SELECT ${COLS} FROM index_messages m ${w.length ? `WHERE ${w.join(' AND ')}` : ''}
       ORDER BY m.date DESC, m.number DESC, m.ordinal DESC LIMIT $${params.length}) p
     ORDER BY p.date DESC, p.number DESC, p.ordinal DESC`
  const r = walkDates ? await walkingDates<MessageRow>(db, sql, params) : await db.query<MessageRow>(sql, params)
  const rows = r.rows.slice(0, limit)
  const last = rows[rows.length - 1]
  const nextCursor =
    r.rows.length > limit && last ? encodeCursor({ date: cursorDate(last.date), number: last.number, ordinal: last.ordinal }) : null
  return { rows, nextCursor }
}

/**
 * One export row, every value as text or null: [number, fetched_tid, tid, ordinal, system_id,
 * message_id, date (epoch ms), date_raw, phone, direction, body_id, body (only for a row without
 * body_id), mms ('true'/'false'), media_url, status (only for a row without status_id),
 * status_code, status_id]. Bodies and status texts come by id (the export looks each distinct one
 * up once; a scalar subquery per row cost PGlite 1.4 ms per 1,000-row batch).
 */
export type ExportTuple = Array<string | null>

/**
 * One export batch, newest first, as a single JSON value: per-field transfer costs more than the
 * query on PGlite, and a text array is the cheapest JSON PostgreSQL builds (array_agg keeps the
 * ordered subquery's order; the export checks it anyway). date_part, a float, costs a third of
 * extract's numeric arithmetic; the upstream's dates are whole seconds, exact either way.
 */
export async function exportBatch(db: Queryable, f: Filters, cursor: Cursor | null, limit: number): Promise<ExportTuple[]> {
  if ((f.party && f.parties?.length === 0) || (f.q && f.bodyIds?.length === 0)) return []
  const params: unknown[] = []
  const w = whereOf(f, params)
  if (cursor) w.push(keyset(f, cursor, params))
  params.push(limit)
  const r = await db.query<{ j: string | null }>(
    `SELECT array_to_json(array_agg(ARRAY[m.number, m.fetched_tid, m.tid, m.ordinal::text, m.system_id, m.message_id, (date_part('epoch', m.date) * 1000)::text,
                                         m.date_raw, m.phone, m.direction, m.body_id::text, CASE WHEN m.body_id IS NULL THEN m.body END, m.mms::text, m.media_url,
                                         CASE WHEN m.status_id IS NULL THEN m.status END, m.status_code::text, m.status_id::text]))::text AS j
     FROM (SELECT * FROM index_messages m ${w.length ? `WHERE ${w.join(' AND ')}` : ''} ORDER BY m.date DESC, m.number DESC, m.ordinal DESC LIMIT $${params.length}) m`,
    params,
  )
  const j = r.rows[0]?.j
  return inOrder(j ? (JSON.parse(j) as ExportTuple[]) : [])
}

/** Separators of exportBatchText: a field's end (unit separator) and a row's end (record separator). */
export const FIELD_SEP = '\u001f'
export const ROW_SEP = '\u001e'

/** Fields of an export row (ExportTuple). */
export const EXPORT_FIELDS = 17

/** A batch of export rows, read one row at a time into a reused array of EXPORT_FIELDS fields. */
export interface ExportRows {
  length: number
  /** Row k's fields, as in ExportTuple but '' for null, written into `into`. */
  row(k: number, into: string[]): void
  /** Row k's field i alone. */
  field(k: number, i: number): string
}

/**
 * One CSV export batch, with '' for null (a CSV cell cannot tell them apart). The rows come as
 * one text value, fields joined by FIELD_SEP and rows by ROW_SEP: PostgreSQL builds it for about
 * two thirds of what the JSON of text arrays costs, and the fields are cut out of it only as the
 * export writes them (no array per row, little for the garbage collector). An upstream text
 * holding either separator would shift the fields, and the cutting proves it did not: the row
 * count PostgreSQL reports must equal the pieces between ROW_SEPs, and each piece must hold
 * exactly EXPORT_FIELDS fields (any extra separator adds a piece or a field). A batch that fails the proof
 * is asked for again as JSON.
 */
export async function exportBatchText(db: Queryable, f: Filters, cursor: Cursor | null, limit: number): Promise<ExportRows> {
  if ((f.party && f.parties?.length === 0) || (f.q && f.bodyIds?.length === 0)) return tupleRows([])
  const params: unknown[] = []
  const w = whereOf(f, params)
  if (cursor) w.push(keyset(f, cursor, params))
  params.push(limit)
  const r = await db.query<{ n: number; t: string | null }>(
    `SELECT count(*)::int AS n, string_agg(concat(m.number, E'\\x1f', m.fetched_tid, E'\\x1f', m.tid, E'\\x1f', m.ordinal, E'\\x1f', m.system_id, E'\\x1f',
                m.message_id, E'\\x1f', date_part('epoch', m.date) * 1000, E'\\x1f', m.date_raw, E'\\x1f', m.phone, E'\\x1f', m.direction, E'\\x1f',
                m.body_id, E'\\x1f', m.body, E'\\x1f', m.mms, E'\\x1f', m.media_url, E'\\x1f', m.status, E'\\x1f', m.status_code, E'\\x1f', m.status_id), E'\\x1e') AS t
     FROM (SELECT m.number, m.fetched_tid, m.tid, m.ordinal, m.system_id, m.message_id, m.date, m.date_raw, m.phone, m.direction, m.body_id,
                  CASE WHEN m.body_id IS NULL THEN m.body END AS body, m.mms, m.media_url,
                  CASE WHEN m.status_id IS NULL THEN m.status END AS status, m.status_code, m.status_id
           FROM index_messages m ${w.length ? `WHERE ${w.join(' AND ')}` : ''} ORDER BY m.date DESC, m.number DESC, m.ordinal DESC LIMIT $${params.length}) m`,
    params,
  )
  const n = r.rows[0]?.n ?? 0
  const t = r.rows[0]?.t ?? ''
  if (n === 0) return tupleRows([])
  // cuts[W k] is where row k starts (minus one); cuts[W k + i + 1] is the separator after its field i.
  const W = EXPORT_FIELDS + 1
  const cuts = new Int32Array(W * n)
  let at = -1
  let proved = true
  for (let k = 0; proved && k < n; k++) {
    const end = k === n - 1 ? t.length : t.indexOf(ROW_SEP, at + 1)
    if (end < 0) proved = false
    cuts[W * k] = at
    let sep = at
    for (let i = 1; proved && i < EXPORT_FIELDS; i++) {
      sep = t.indexOf(FIELD_SEP, sep + 1)
      if (sep < 0 || sep > end) proved = false
      cuts[W * k + i] = sep
    }
    const extra = t.indexOf(FIELD_SEP, sep + 1)
    if (extra >= 0 && extra < end) proved = false
    cuts[W * k + EXPORT_FIELDS] = end
    at = end
  }
  // The last row ends the text: a ROW_SEP inside it (one piece too many) fails here.
  if (proved && t.indexOf(ROW_SEP, cuts[W * (n - 1)]! + 1) >= 0) proved = false
  if (!proved) return tupleRows((await exportBatch(db, f, cursor, limit)).map((row) => row.map((v) => v ?? '')))
  const rows: ExportRows = {
    length: n,
    row(k, into) {
      for (let i = 0; i < EXPORT_FIELDS; i++) into[i] = t.slice(cuts[W * k + i]! + 1, cuts[W * k + i + 1])
      // concat() writes booleans as t/f; the JSON path's 'true'/'false' is what the export reads.
      into[12] = into[12] === 't' ? 'true' : 'false'
    },
    field: (k, i) => t.slice(cuts[W * k + i]! + 1, cuts[W * k + i + 1]),
  }
  return inOrderRows(rows)
}

function tupleRows(tuples: ExportTuple[]): ExportRows {
  return {
    length: tuples.length,
    row(k, into) {
      const t = tuples[k]!
      for (let i = 0; i < EXPORT_FIELDS; i++) into[i] = t[i] ?? ''
    },
    field: (k, i) => tuples[k]![i] ?? '',
  }
}

/** Checks the order of a text batch (newest first); sorts a copy in the (never seen) case it was not kept. */
function inOrderRows(rows: ExportRows): ExportRows {
  // The dates alone decide, but for ties (a number's messages in one second, or two numbers').
  const key = (k: number) => [rows.field(k, 0), '', '', rows.field(k, 3), '', '', rows.field(k, 6)]
  let prevDate = rows.length > 0 ? Number(rows.field(0, 6)) : 0
  for (let k = 1; k < rows.length; k++) {
    const date = Number(rows.field(k, 6))
    if (date < prevDate || (date === prevDate && before(key(k - 1), key(k)) < 0)) {
      prevDate = date
      continue
    }
    const all: ExportTuple[] = []
    for (let j = 0; j < rows.length; j++) {
      const t: string[] = []
      rows.row(j, t)
      all.push(t)
    }
    return tupleRows(all.sort(before))
  }
  return rows
}

const before = (a: ExportTuple, b: ExportTuple) => {
  const da = Number(a[6])
  const db_ = Number(b[6])
  if (da !== db_) return db_ - da
  const na = a[0] ?? ''
  const nb = b[0] ?? ''
  return na !== nb ? (na < nb ? 1 : -1) : Number(b[3]) - Number(a[3])
}

/** Newest first, as the keyset needs: sorts in the (never seen) case an aggregate did not keep the order. */
function inOrder(rows: ExportTuple[]): ExportTuple[] {
  for (let k = 1; k < rows.length; k++)
    if (before(rows[k - 1]!, rows[k]!) >= 0) {
      rows.sort(before)
      break
    }
  return rows
}

/** Status texts by id (index_statuses). */
export async function statusesById(db: Queryable, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map()
  const r = await db.query<{ id: number; status: string }>('SELECT id, status FROM index_statuses WHERE id = ANY($1::int[])', [ids])
  return new Map(r.rows.map((x) => [x.id, x.status]))
}

/** Body texts by id (index_bodies). */
export async function bodiesById(db: Queryable, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map()
  const r = await db.query<{ id: number; body: string }>('SELECT id, body FROM index_bodies WHERE id = ANY($1::int[])', [ids])
  return new Map(r.rows.map((x) => [x.id, x.body]))
}

export async function threadPage(
  db: Queryable,
  number: string,
  party: string,
  before: Cursor | null,
  at: string | null,
  limit: number,
): Promise<{ total: number; firstDate: string | null; lastDate: string | null; rows: MessageRow[]; nextCursor: string | null }> {
  // One number with one party: the key the index stores (partyKey), whichever form was asked for.
  const variants = partyForms(party)
  // The roll-up's total and newest date and the oldest message, in one statement.
  const meta = await db.query<{ total: number; last: Date | null; first: Date | null }>(
    `SELECT COALESCE(sum(count), 0)::int AS total, max(last_date) AS last,
            (SELECT m.date FROM index_messages m WHERE m.number = $1 AND m.party_digits = ANY($2::text[]) ORDER BY m.date ASC, m.ordinal ASC LIMIT 1) AS first
     FROM index_parties WHERE number = $1 AND party = ANY($2::text[])`,
    [number, variants],
  )
  const params: unknown[] = [number, variants]
  const w = ['m.number = $1', 'm.party_digits = ANY($2::text[])']
  if (before) {
    params.push(before.date, before.ordinal)
    w.push(`(m.date, m.ordinal) < ($${params.length - 1}::timestamptz, $${params.length}::int)`)
  }
  if (at) {
    params.push(at)
    w.push(`m.date < $${params.length}::timestamptz`)
  }
  params.push(limit + 1)
  const r = await db.query<MessageRow>(
    `SELECT p.*, ${BASE_OF('p')} AS position_base FROM (
       SELECT ${COLS} FROM index_messages m WHERE ${w.join(' AND ')} ORDER BY m.date DESC, m.ordinal DESC LIMIT $${params.length}) p
     ORDER BY p.date DESC, p.ordinal DESC`,
    params,
  )
  const rows = r.rows.slice(0, limit)
  const last = rows[rows.length - 1]
  return {
    total: meta.rows[0]?.total ?? 0,
    firstDate: isoOf(meta.rows[0]?.first ?? null),
    lastDate: isoOf(meta.rows[0]?.last ?? null),
    rows,
    nextCursor: r.rows.length > limit && last ? encodeCursor({ date: cursorDate(last.date), number, ordinal: last.ordinal }) : null,
  }
}

export async function parties(db: Queryable, number: string, party: string | null, limit: number) {
  const params: unknown[] = [number]
  let cond = ''
  if (party) {
    params.push(likeContains(party))
    cond = ` AND party LIKE $2 ESCAPE '\\'`
  }
  params.push(limit)
  const r = await db.query<{ party: string; count: number; last_date: Date | null }>(
    `SELECT party, count, last_date FROM index_parties WHERE number = $1${cond} ORDER BY last_date DESC NULLS LAST, party LIMIT $${params.length}`,
    params,
  )
  return r.rows.map((x) => ({ party: x.party, count: x.count, lastDate: isoOf(x.last_date) }))
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

export async function messageAt(db: Queryable, number: string, ordinal: number): Promise<MessageRow | undefined> {
  const r = await db.query<MessageRow>(`SELECT ${COLS} FROM index_messages m WHERE m.number = $1 AND m.ordinal = $2`, [number, ordinal])
  return r.rows[0]
}

export async function indexedCount(db: Queryable, number: string): Promise<number> {
  const r = await db.query<{ n: number }>('SELECT indexed AS n FROM index_numbers WHERE number = $1', [number])
  return r.rows[0]?.n ?? 0
}

/** The newest message on or before the end of a UTC day (the "go to date" look-up). */
export async function locate(db: Queryable, number: string, endExclusive: string): Promise<MessageRow | undefined> {
  const r = await db.query<MessageRow>(
    `SELECT ${COLS} FROM index_messages m WHERE m.number = $1 AND m.date < $2::timestamptz ORDER BY m.date DESC, m.ordinal DESC LIMIT 1`,
    [number, endExclusive],
  )
  return r.rows[0]
}

/** How many messages the index holds of a number (or of all, with null), from the numbers' own counts. */
export async function indexedMessages(db: Db, number: string | null): Promise<number> {
  const r = await db.query<{ n: number }>(
    'SELECT COALESCE(sum(indexed), 0)::int AS n FROM index_numbers WHERE $1::text IS NULL OR number = $1',
    [number],
  )
  return r.rows[0]?.n ?? 0
}

/** Forget: a number's (or every) message, roll-up and sync state. Returns messages deleted. */
export async function forget(db: Db, number: string | null, hooks: Pick<IndexHooks, 'forgetting'>): Promise<number> {
  return db.transaction(async (tx) => {
    if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '300s'`)
    const before = await tx.query<{ n: number }>(
      'SELECT COALESCE(sum(indexed), 0)::int AS n FROM index_numbers WHERE $1::text IS NULL OR number = $1',
      [number],
    )
    // What other rooms (the support desk) derived from these messages goes with them.
    await hooks.forgetting(tx, number)
    if (number === null) {
      await tx.query(
        'TRUNCATE index_messages, index_daily, index_quarter_hours, index_parties, index_body_counts, index_bodies, index_statuses',
      )
    } else {
      await tx.query('DELETE FROM index_messages WHERE number = $1', [number])
      await tx.query('DELETE FROM index_daily WHERE number = $1', [number])
      await tx.query('DELETE FROM index_quarter_hours WHERE number = $1', [number])
      await tx.query('DELETE FROM index_parties WHERE number = $1', [number])
      await tx.query('DELETE FROM index_body_counts WHERE number = $1', [number])
      // Bodies no other number uses are customer data of this one. The lock waits for syncs
      // that are adding messages (their body look-up writes index_bodies), so a body one of
      // them is about to reference is seen as used.
      await tx.query('LOCK TABLE index_bodies IN SHARE ROW EXCLUSIVE MODE')
      await tx.query('DELETE FROM index_bodies b WHERE NOT EXISTS (SELECT 1 FROM index_body_counts c WHERE c.body_id = b.id)')
    }
    await tx.query(
      `UPDATE index_numbers SET indexed = 0, top_ordinal = 0, full_done = false, cp_next = NULL, cp_total = NULL, cp_check = NULL,
         state = 'never', error = NULL, upstream_total = NULL, newest_msg_id = NULL, newest_at = NULL, created_raw = NULL, optin = NULL,
         started_at = NULL, finished_at = NULL, last_synced_at = NULL, progress_done = NULL, progress_total = NULL,
         -- Kept out of the periodic re-sync and a history view's refresh until a person asks for it.
         forgotten_at = now(),
         -- A sync of it on another server loses its lease: its next store is refused (the fence in
         -- sync/sql.ts) rather than filling the forgotten number again.
         locked_by = NULL, locked_at = NULL
       WHERE $1::text IS NULL OR number = $1`,
      [number],
    )
    return before.rows[0]?.n ?? 0
  })
}
