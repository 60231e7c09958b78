import type { Freshness, IndexedMessage, NumberIndexStatus, SyncState } from '../../contract/index-api.ts'
import { partyForms } from '../../contract/desk/messages.ts'
import { PLAIN_FIELDS, plainValues, type PlainColumn } from '../../contract/message-fields.ts'
import type { Db, Queryable } from '../db/types.ts'
import type { IndexHooks } from './hooks.ts'
import { encodeCursor, type Cursor, type Filters } from '../kernel/params.ts'
import { BODY_OF, STATUS_OF } from '../kernel/stored-messages.ts'
import { VERSION_SQL } from './count-queries.ts'
import { likeContains, MAX_BODIES, MAX_PARTIES, walkingDates, whereOf } from './filter-sql.ts'

/**
 * The index's read side: the SQL (parameterised, LIKE wildcards escaped, bounded page sizes) and
 * the row shapes of contract/index-api.ts, over filters already checked by kernel/params.ts. Shared by
 * the JSON routes and the export stream.
 */

/** Lists inside `freshness` are cut here; the counts say how many there are. */
const FRESHNESS_LIST_MAX = 100

// ---------------------------------------------------------------------------------------------
// SQL

/** A message row's columns: those the index reads its own way, and the plain fields' (contract/message-fields.ts). */
const COLS = `m.number, m.fetched_tid, m.tid, m.ordinal, ${PLAIN_FIELDS.map((f) => `m.${f.column}`).join(', ')}, m.date, m.date_raw, m.phone, ${BODY_OF('m')} AS body, m.mms, ${STATUS_OF('m')} AS status, m.status_code`

export type MessageRow = Record<string, unknown> & { [C in PlainColumn]: string | null } & OwnRow

interface OwnRow {
  number: string
  fetched_tid: string
  tid: string | null
  ordinal: number
  date: Date | string
  date_raw: string | null
  phone: string | null
  body: string | null
  mms: boolean
  status: string | null
  status_code: number | null
  /** The number's position base (see positionBases), where the query read it alongside the row. */
  position_base?: number | null
}

/** `2026-11-21T12:04:00Z`: seconds precision, as the upstream's dates have. */
export function isoOf(d: Date | string | null | undefined): string | null {
  if (d === null || d === undefined) return null
  const date = d instanceof Date ? d : new Date(Date.parse(d))
  const year = date.getUTCFullYear()
  if (Number.isNaN(year)) return null
  // Written field by field: toISOString() on a fresh Date was a microsecond and a half a date, on
  // the server's thread, 100 of them per search answer. Years it cannot write in four digits keep toISOString's form.
  if (year < 1000 || year > 9999) return `${date.toISOString().slice(0, -5)}Z`
  return `${year}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}T${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}Z`
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n))

/** Cursor dates keep milliseconds so a keyset comparison is exact. */
const cursorDate = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString()

export function toMessage(r: MessageRow, positionBase: number): IndexedMessage & { messageTid: string | null; dateRaw?: string } {
  return {
    number: r.number,
    tid: r.fetched_tid,
    ordinal: r.ordinal,
    position: Math.max(1, positionBase - r.ordinal + 1),
    ...plainValues((f) => r[f.column]),
    date: r.date_raw ? null : isoOf(r.date),
    phone: r.phone,
    body: r.body,
    mms: r.mms,
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
  // Only the look-ups this call needs are in the statement: each is planned on every execution
  // (plan_cache_mode = force_custom_plan on PGlite), and the text, digit and unknown-number
  // look-ups were most of the planning of a search that used none of them.
  const params: unknown[] = [scope]
  const textAt = q === null ? null : params.push(q)
  const partyAt = party === null ? null : params.push(party)
  const unknownSql =
    scope === null
      ? 'NULL::text[]'
      : `(SELECT array_agg(u.x ORDER BY u.k) FROM unnest($1::text[]) WITH ORDINALITY u(x, k)
              WHERE NOT EXISTS (SELECT 1 FROM index_numbers n WHERE n.number = u.x))`
  // As resolveParties: the ids of the distinct bodies holding the text, the distinct parties
  // holding the digits (one more than the most listed: too many to list).
  const bodiesSql =
    textAt === null
      ? 'NULL::int[]'
      : `(SELECT array_agg(b.id) FROM (SELECT id FROM index_bodies WHERE body ILIKE $${textAt} ESCAPE '\\'
              LIMIT ${MAX_BODIES + 1}) b)`
  const partiesSql =
    partyAt === null
      ? 'NULL::text[]'
      : `(SELECT array_agg(p.party) FROM (SELECT DISTINCT party FROM index_parties WHERE party LIKE $${partyAt} ESCAPE '\\'
              AND ($1::text[] IS NULL OR number = ANY($1::text[])) LIMIT ${MAX_PARTIES + 1}) p)`
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
       SELECT number, state, last_synced_at, indexed, finished_at, line_of, removed_at,
              -- A number that left the account is never reported fresh, nor one whose last sync stopped
              -- short (an error or a refusal: its newest messages are not known to be here).
              (full_done AND top_ordinal >= COALESCE(upstream_total, 0) AND removed_at IS NULL AND state NOT IN ('error', 'paused')) AS complete,
              ($1::text[] IS NULL OR number = ANY($1::text[])) AS in_scope
       FROM index_numbers
     )
     -- Numbers, not lines: a number's further lines (contract/lines.ts) are counted with it, complete
     -- when they all are. The numbers with a line not complete are gathered once (not looked up per
     -- number: on a 10,000-number account that was a scan of the whole list for each).
     SELECT count(*) FILTER (WHERE line_of IS NULL)::int AS known,
            count(*) FILTER (WHERE line_of IS NULL AND complete AND NOT (number = ANY(ARRAY(
              SELECT l.line_of FROM s l WHERE l.line_of IS NOT NULL AND l.removed_at IS NULL AND NOT l.complete))))::int AS complete,
            min(last_synced_at) FILTER (WHERE in_scope) AS up_to,
            (array_agg(number ORDER BY number) FILTER (WHERE state IN ('queued', 'syncing')))[1:${FRESHNESS_LIST_MAX}] AS syncing,
            count(*) FILTER (WHERE state IN ('queued', 'syncing'))::int AS syncing_count,
            (array_agg(number ORDER BY number) FILTER (WHERE in_scope AND NOT complete))[1:${FRESHNESS_LIST_MAX}] AS incomplete,
            count(*) FILTER (WHERE in_scope AND NOT complete)::int AS incomplete_count,
            count(*) FILTER (WHERE in_scope AND NOT complete AND state IN ('queued', 'syncing'))::int AS incomplete_syncing_count,
            -- Numbers asked about that the index has never seen, in the order asked.
            ${unknownSql} AS unknown,
            ${VERSION_SQL} AS version,
            COALESCE(sum(indexed) FILTER (WHERE in_scope), 0)::int AS scope_indexed,
            ${bodiesSql} AS body_ids,
            ${partiesSql} AS parties
     FROM s`,
    params,
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

type NumberStatus = NumberIndexStatus & { fullyIndexed: boolean }

/** Every number the index knows, or just `only`. */
export async function numberStatuses(db: Queryable, only: string | null = null): Promise<NumberStatus[]> {
  return (await numberStatusRows(db, only, null, null)).numbers
}

/**
 * The first `limit` numbers in number order whose digits hold `match` (every number without it),
 * and how many match: the Index page's rows, without the newest and oldest dates of 10,000.
 */
export async function numberStatusPage(
  db: Queryable,
  page: { limit?: number; match?: string },
): Promise<{ numbers: NumberStatus[]; numbersMatched: number }> {
  const r = await numberStatusRows(db, null, page.limit ?? null, page.match ?? null)
  return { numbers: r.numbers, numbersMatched: r.matched }
}

async function numberStatusRows(
  db: Queryable,
  only: string | null,
  limit: number | null,
  match: string | null,
): Promise<{ numbers: NumberStatus[]; matched: number }> {
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
    line_of: string | null
    line_tids: string[] | null
    matched: number
  }>(
    // The page is chosen first, so each number's newest and oldest dates are read for its rows only.
    `SELECT n.number, n.tid, n.state, n.indexed, n.upstream_total, n.error, n.last_synced_at, n.progress_done, n.progress_total, n.matched,
            -- As freshness() judges it: a whole walk holding the upstream's newest, in the account.
            (n.full_done AND n.top_ordinal >= COALESCE(n.upstream_total, 0) AND n.removed_at IS NULL AND n.state NOT IN ('error', 'paused')) AS full_done,
            n.removed_at IS NOT NULL AS removed, n.other_tids, n.forgotten_at, n.finding, n.line_of,
            (SELECT array_agg(l.tid ORDER BY l.number) FROM index_numbers l WHERE l.line_of = n.number) AS line_tids,
            (SELECT m.date FROM index_messages m WHERE m.number = n.number ORDER BY m.date DESC, m.ordinal DESC LIMIT 1) AS newest,
            (SELECT m.date FROM index_messages m WHERE m.number = n.number ORDER BY m.date ASC, m.ordinal ASC LIMIT 1) AS oldest
     FROM (SELECT *, count(*) OVER ()::int AS matched FROM index_numbers
           WHERE ($1::text IS NULL OR number = $1) AND ($2::text IS NULL OR number LIKE $2 ESCAPE '\\')
           ORDER BY number LIMIT $3) n
     ORDER BY n.number`,
    [only, match === null ? null : likeContains(match), limit],
  )
  const numbers = r.rows.map((x) => ({
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
    ...(x.line_of === null ? {} : { lineOf: x.line_of }),
    ...(x.line_tids === null ? {} : { lineTids: x.line_tids }),
  }))
  return { numbers, matched: r.rows[0]?.matched ?? 0 }
}

export interface SearchPage {
  total: number
  rows: MessageRow[]
  nextCursor: string | null
}

/** Keyset condition after `cursor`: (date, ordinal) within one number, else (date, number, ordinal). */
export function keyset(f: Filters, cursor: Cursor, params: unknown[]): string {
  if (f.numbers?.length === 1 && f.numbers[0] === cursor.number) {
    params.push(cursor.date, cursor.ordinal)
    return `(m.date, m.ordinal) < ($${params.length - 1}::timestamptz, $${params.length}::int)`
  }
  params.push(cursor.date, cursor.number, cursor.ordinal)
  const n = params.length
  return `(m.date, m.number, m.ordinal) < ($${n - 2}::timestamptz, $${n - 1}::text, $${n}::int)`
}

/** One page newest first, keyset over (date, number, ordinal). Call resolveParties first. */
/** Up to this many customers matched, a search's page is read thread by thread (searchPage). */
const THREAD_WALK_MAX_PARTIES = 10

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
  // A few customers' messages: each (number, customer) is read down the thread index on its own,
  // newest first, and the pages merged; as one ANY() the planner walked the date index of every
  // number and filtered out the others' rows (9,600 for a page of 101 in the bench). The customer
  // and the numbers are then the join's alone: PostgreSQL 15, given an ANY() in the thread index's
  // columns too, read the thread's every row and sorted them (10,310 for a page of 101).
  const byThread = !walkDates && f.parties && f.parties.length > 0 && f.parties.length <= THREAD_WALK_MAX_PARTIES
  const w = whereOf(byThread ? { ...f, party: null, numbers: null } : f, params)
  if (cursor) w.push(keyset(f, cursor, params))
  const partiesAt = byThread ? params.push(f.parties) : 0
  const numbersAt = byThread && f.numbers ? params.push(f.numbers) : 0
  params.push(limit + 1)
  const from = byThread
    ? `index_parties ip CROSS JOIN LATERAL (
         SELECT * FROM index_messages m WHERE ${['m.number = ip.number', 'm.party_digits = ip.party', ...w].join(' AND ')}
         ORDER BY m.date DESC, m.ordinal DESC LIMIT $${params.length}) m
       WHERE ip.party = ANY($${partiesAt}::text[])${numbersAt ? ` AND ip.number = ANY($${numbersAt}::text[])` : ''}`
    : `index_messages m ${w.length ? `WHERE ${w.join(' AND ')}` : ''}`
  // The page's position bases come with it (one statement, and the same snapshot as the rows);
  // they are looked up for the page's rows only, after the limit.
  const sql = `SELECT p.*, ${BASE_OF('p')} AS position_base FROM (
       SELECT ${COLS} FROM ${from}
       ORDER BY m.date DESC, m.number DESC, m.ordinal DESC LIMIT $${params.length}) p
     ORDER BY p.date DESC, p.number DESC, p.ordinal DESC`
  const r = walkDates ? await walkingDates<MessageRow>(db, sql, params) : await db.query<MessageRow>(sql, params)
  const rows = r.rows.slice(0, limit)
  const last = rows[rows.length - 1]
  const nextCursor =
    r.rows.length > limit && last ? encodeCursor({ date: cursorDate(last.date), number: last.number, ordinal: last.ordinal }) : null
  return { rows, nextCursor }
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
  // Each form's messages are read on their own down the thread index (number, party_digits, date),
  // in its order: with the forms as one ANY() the planner walked the number's date index instead
  // and filtered out the other customers' messages (9,660 rows for a page of 101 in the bench).
  const meta = db.query<{ total: number; last: Date | null; first: Date | null }>(
    `SELECT COALESCE(sum(count), 0)::int AS total, max(last_date) AS last,
            (SELECT min(f.date) FROM unnest($2::text[]) v(pd) CROSS JOIN LATERAL (
               SELECT m.date FROM index_messages m WHERE m.number = $1 AND m.party_digits = v.pd ORDER BY m.date ASC, m.ordinal ASC LIMIT 1) f) AS first
     FROM index_parties WHERE number = $1 AND party = ANY($2::text[])`,
    [number, variants],
  )
  const params: unknown[] = [number, variants]
  const w = ['m.number = $1', 'm.party_digits = v.pd']
  if (before) {
    params.push(before.date, before.ordinal)
    w.push(`(m.date, m.ordinal) < ($${params.length - 1}::timestamptz, $${params.length}::int)`)
  }
  if (at) {
    params.push(at)
    w.push(`m.date < $${params.length}::timestamptz`)
  }
  params.push(limit + 1)
  // Both statements asked for at once (neither needs the other's answer): see handlers.ts thread.
  const [m, r] = await Promise.all([
    meta,
    db.query<MessageRow>(
      `SELECT p.*, ${BASE_OF('p')} AS position_base FROM (
       SELECT ${COLS} FROM unnest($2::text[]) v(pd) CROSS JOIN LATERAL (
         SELECT * FROM index_messages m WHERE ${w.join(' AND ')} ORDER BY m.date DESC, m.ordinal DESC LIMIT $${params.length}) m
       ORDER BY m.date DESC, m.ordinal DESC LIMIT $${params.length}) p
     ORDER BY p.date DESC, p.ordinal DESC`,
      params,
    ),
  ])
  const rows = r.rows.slice(0, limit)
  const last = rows[rows.length - 1]
  return {
    total: m.rows[0]?.total ?? 0,
    firstDate: isoOf(m.rows[0]?.first ?? null),
    lastDate: isoOf(m.rows[0]?.last ?? null),
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

/** How many messages the index holds of these keys (or of all, with null), from the numbers' own counts. */
export async function indexedMessages(db: Queryable, keys: string[] | null): Promise<number> {
  const r = await db.query<{ n: number }>(
    'SELECT COALESCE(sum(indexed), 0)::int AS n FROM index_numbers WHERE $1::text[] IS NULL OR number = ANY($1::text[])',
    [keys],
  )
  return r.rows[0]?.n ?? 0
}

/** A key's own and, for a number, its further lines' keys (contract/lines.ts). */
export async function keysOf(db: Queryable, key: string): Promise<string[]> {
  const r = await db.query<{ number: string }>('SELECT number FROM index_numbers WHERE line_of = $1 ORDER BY number', [key])
  return [key, ...r.rows.map((x) => x.number)]
}

/**
 * Forget: a number's (or every) message, roll-up and sync state. Returns messages deleted. A
 * number's further lines (contract/lines.ts) go with it; a line's key forgets that line only.
 */
export async function forget(db: Db, number: string | null, hooks: Pick<IndexHooks, 'forgetting'>): Promise<number> {
  return db.transaction(async (tx) => {
    if (db.engine === 'postgres') await tx.query(`SET LOCAL statement_timeout = '300s'`)
    const keys = number === null ? null : await keysOf(tx, number)
    const before = await indexedMessages(tx, keys)
    if (keys === null) {
      // What other rooms (the support desk) derived from these messages goes with them.
      await hooks.forgetting(tx, null)
      await tx.query(
        'TRUNCATE index_messages, index_daily, index_quarter_hours, index_parties, index_body_counts, index_bodies, index_statuses',
      )
    } else {
      for (const key of keys) {
        await hooks.forgetting(tx, key)
        await tx.query('DELETE FROM index_messages WHERE number = $1', [key])
        await tx.query('DELETE FROM index_daily WHERE number = $1', [key])
        await tx.query('DELETE FROM index_quarter_hours WHERE number = $1', [key])
        await tx.query('DELETE FROM index_parties WHERE number = $1', [key])
        await tx.query('DELETE FROM index_body_counts WHERE number = $1', [key])
      }
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
       WHERE $1::text[] IS NULL OR number = ANY($1::text[])`,
      [keys],
    )
    return before
  })
}
