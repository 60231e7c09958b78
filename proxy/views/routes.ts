import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  RELATIVE_RANGES,
  SEARCH_KEYS,
  VIEW_NAME_MAX,
  VIEW_PATHS,
  VIEW_QUERY_MAX,
  VIEWS_PER_OWNER,
  daysBefore,
  isTimeZone,
  resolveRange,
  startOfDayIn,
  type RelativeRange,
  type SavedView,
  VIEWS_ANSWERS,
  type ViewsAnswer,
} from '../../contract/saved-views.ts'
import { PARAM_OF_KEY } from '../../contract/search-filters.ts'
import { isRealDay } from '../../contract/upstream-values.ts'
import type { Db, Queryable } from '../db/types.ts'
import { ProxyError, invalid } from '../errors.ts'
import { readJsonBody, readQuery, safeFieldName, sendJson } from '../http.ts'
import type { RequestContext, RouteSpec } from '../http-types.ts'
import { names, NO_PARAMS } from '../schema.ts'
import { parseFilters, type Filters } from '../kernel/params.ts'

/**
 * Saved views (contract/saved-views.ts): a Search page query kept by name, private or shared,
 * and when each person last opened it. The counts of new matches show customer data, so their
 * route declares a read and logs it; the list itself does not (someone with no views leaves no
 * entry on every page load). The changes are audited.
 */

/**
 * The index's answers a view's counts need, handed in by the composition root (rooms.ts): a view
 * is a saved search, and searching is the index's.
 */
export interface ViewSearch {
  /** Matches of the filters stored after `since` (every match when null). */
  newMatches: (db: Queryable, f: Filters, since: Date | null) => Promise<number>
  /** What the index holds, in one string (a count is cached while it stays the same). */
  dataVersion: (db: Queryable) => Promise<string>
}

export interface ViewsDeps {
  /** The index's search (INDEX=on); null with INDEX=off, when no view is counted. */
  search: ViewSearch | null
  /** The clock relative ranges are resolved on (the team-access clock, which tests move). */
  now?: () => number
}

/** Views counted per list: the rest say "not counted" rather than hold the navigation up. */
const MAX_COUNTED = 50
const LIST_MAX = 500

type SearchKey = (typeof SEARCH_KEYS)[number]

/** A saved query, checked: its canonical string, the filters without dates, and its days and zone. */
export interface ParsedQuery {
  query: string
  filters: Filters
  from: string | null
  to: string | null
  zone: 'local' | 'utc'
}

/** The index's parameter name of each of the Search page's filter keys (`dir` → `direction`), from the filters' table. */
const INDEX_NAME: Partial<Record<SearchKey, string>> = PARAM_OF_KEY

/**
 * Checks a query string against the Search page's keys and, for the filters, against the
 * index's own search parameters (proxy/kernel/params.ts): a view holds only what a search takes.
 * Problems name the field `query` and the parameter as the page's URL spells it.
 */
export function parseViewQuery(raw: unknown, range: RelativeRange | null): ParsedQuery {
  if (typeof raw !== 'string') throw invalid('query', "query must be the Search page's query string (text such as q=refund&dir=inbound).")
  const text = raw.startsWith('?') ? raw.slice(1) : raw
  if (text.length > VIEW_QUERY_MAX) throw invalid('query', `query must be at most ${VIEW_QUERY_MAX} characters.`)
  const given = new Map<SearchKey, string>()
  for (const [k, v] of new URLSearchParams(text)) {
    if (!(SEARCH_KEYS as readonly string[]).includes(k))
      throw invalid('query', `query: "${safeFieldName(k)}" is not a search parameter (allowed: ${SEARCH_KEYS.join(', ')}).`)
    if (given.has(k as SearchKey)) throw invalid('query', `query: ${k} is given more than once.`)
    if (v !== '') given.set(k as SearchKey, v)
  }
  const tz = given.get('tz') ?? 'local'
  if (tz !== 'local' && tz !== 'utc') throw invalid('query', 'query: tz must be local or utc.')
  for (const k of ['from', 'to'] as const) {
    const v = given.get(k)
    if (v !== undefined && !isRealDay(v)) throw invalid('query', `query: ${k} must be a day (YYYY-MM-DD).`)
  }
  if (range && (given.has('from') || given.has('to')))
    throw invalid('range', 'A relative range replaces from and to: leave them out of the query, or choose no range.')
  const forIndex = new Map<string, string>()
  for (const [k, v] of given) if (k !== 'tz') forIndex.set(INDEX_NAME[k] ?? k, v)
  let filters: Filters
  try {
    filters = parseFilters(forIndex)
  } catch (err) {
    if (!(err instanceof ProxyError)) throw err
    const page = (Object.entries(INDEX_NAME) as Array<[SearchKey, string]>).find(([k, i]) => i === err.body.field && k !== i)?.[0]
    throw invalid('query', `query: ${page ? err.body.message.replace(err.body.field ?? '', page) : err.body.message}`)
  }
  const canonical = new URLSearchParams()
  for (const k of SEARCH_KEYS) {
    const v = given.get(k)
    if (v !== undefined) canonical.set(k, v)
  }
  return {
    query: canonical.toString(),
    filters: { ...filters, dates: null },
    from: given.get('from') ?? null,
    to: given.get('to') ?? null,
    zone: tz,
  }
}

/** The filters a view searches with now: its days (fixed, or its range resolved) in its zone. */
export function viewFilters(p: ParsedQuery, range: RelativeRange | null, nowMs: number, browserZone: string): Filters {
  const zone = p.zone === 'utc' ? 'UTC' : browserZone
  const days = range ? resolveRange(range, nowMs, zone) : { from: p.from, to: p.to }
  const dates =
    days.from || days.to
      ? {
          from: days.from ? new Date(startOfDayIn(days.from, zone)).toISOString() : null,
          toExclusive: days.to ? new Date(startOfDayIn(daysBefore(days.to, -1), zone)).toISOString() : null,
          toInclusive: null,
        }
      : null
  return { ...p.filters, dates }
}

type ViewRow = {
  id: string
  name: string
  owner: string
  shared: boolean
  query: string
  range: RelativeRange | null
  created_at: Date
  opened_at: Date | null
}

const VIEW_COLUMNS = `v.id::text AS id, v.name, v.owner, v.shared, v.query, v.range, v.created_at, o.opened_at`

function toView(r: ViewRow, me: string): SavedView {
  return {
    id: r.id,
    name: r.name,
    owner: r.owner,
    mine: r.owner === me,
    shared: r.shared,
    query: r.query,
    range: r.range,
    createdAt: new Date(r.created_at).toISOString(),
    lastOpenedAt: r.opened_at ? new Date(r.opened_at).toISOString() : null,
  }
}

const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/
/** Bidirectional controls and zero-width characters (Unicode's Bidi_Control, and ZWSP/ZWNJ/ZWJ/WJ/BOM). */
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/

function nameField(v: unknown): string {
  if (typeof v !== 'string') throw invalid('name', 'name is required: a name for the view.')
  const name = v.trim()
  if (name.length === 0) throw invalid('name', 'name must not be empty.')
  if (name.length > VIEW_NAME_MAX) throw invalid('name', `name must be at most ${VIEW_NAME_MAX} characters.`)
  if (!PRINTABLE.test(name)) throw invalid('name', 'name must not contain control characters or line breaks.')
  // A teammate reads a shared view's name as its owner wrote it: a right-to-left override or an
  // invisible character would make "abc\u202etxt.exe" read as something it is not (Trojan Source).
  if (INVISIBLE.test(name)) throw invalid('name', 'name must not contain invisible or text-direction characters.')
  return name
}

function idField(v: unknown): string {
  const id = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v
  if (typeof id !== 'string' || !/^[1-9]\d{0,17}$/.test(id)) throw invalid('id', 'id must be the id of a saved view (a whole number).')
  return id
}

function rangeField(v: unknown): RelativeRange | null {
  if (v === undefined || v === null || v === '') return null
  if (typeof v !== 'string' || !(RELATIVE_RANGES as readonly string[]).includes(v))
    throw invalid('range', `range must be one of ${RELATIVE_RANGES.join(', ')}, or null for the query's own days.`)
  return v as RelativeRange
}

/** A JSON body with only these fields (an unknown one is refused, naming it). */
async function bodyWith(req: IncomingMessage, allowed: readonly string[]): Promise<Record<string, unknown>> {
  const body = await readJsonBody(req)
  for (const k of Object.keys(body))
    if (!allowed.includes(k)) throw invalid(safeFieldName(k), `${safeFieldName(k)} is not a field here (allowed: ${allowed.join(', ')}).`)
  return body
}

const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === '23505'
const duplicate = (name: string) =>
  new ProxyError(409, { kind: 'invalid_request', field: 'name', message: `You already have a view named "${name}".` })
const owner = (ctx: RequestContext) => ctx.principal?.name ?? 'local'

/** A view the caller may see (theirs, or shared), else 404 naming the id. */
async function visible(db: Queryable, id: string, me: string): Promise<ViewRow> {
  const r = await db.query<ViewRow>(
    `SELECT ${VIEW_COLUMNS} FROM saved_views v LEFT JOIN saved_view_opens o ON o.view_id = v.id AND o.user_name = $2
      WHERE v.id = $1::bigint AND (v.owner = $2 OR v.shared)`,
    [id, me],
  )
  const row = r.rows[0]
  if (!row) throw new ProxyError(404, { kind: 'not_found', field: 'id', message: `There is no saved view ${id} that you can see.` })
  return row
}

async function ownView(db: Queryable, id: string, me: string, doing: string): Promise<ViewRow> {
  const row = await visible(db, id, me)
  if (row.owner !== me)
    throw new ProxyError(403, { kind: 'forbidden', field: 'id', message: `Only its owner, ${row.owner}, may ${doing} this view.` })
  return row
}

/** Exact counts while the index is unchanged: the navigation asks again on every page. */
function createCache(max = 500) {
  const cache = new Map<string, number>()
  return {
    get: (k: string) => cache.get(k),
    set: (k: string, n: number) => {
      cache.set(k, n)
      if (cache.size > max) cache.delete(cache.keys().next().value!)
    },
  }
}

/** What the handlers share besides the database: the options, resolved, and the counts' cache. */
interface RouteDeps {
  search: ViewSearch | null
  now: () => number
  cache: ReturnType<typeof createCache>
}

type ViewHandler = (req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, db: Db, deps: RouteDeps) => Promise<void>

/** The views the caller may see: their own first, then the ones others share. */
const visibleRows = (db: Db, me: string) =>
  db.query<ViewRow>(
    `SELECT ${VIEW_COLUMNS} FROM saved_views v LEFT JOIN saved_view_opens o ON o.view_id = v.id AND o.user_name = $1
      WHERE v.owner = $1 OR v.shared ORDER BY (v.owner = $1) DESC, lower(v.name), v.id LIMIT ${LIST_MAX}`,
    [me],
  )

const listRoute: ViewHandler = async (_req, res, url, ctx, db) => {
  readQuery(url, [])
  const me = owner(ctx)
  sendJson(res, 200, { views: (await visibleRows(db, me)).rows.map((r) => toView(r, me)) } satisfies ViewsAnswer<'list'>)
}

/** One view's new matches, from the cache while the index is unchanged; null when too broad to count in the bound. */
async function countOf(db: Db, search: ViewSearch, f: Filters, row: ViewRow, version: string, deps: RouteDeps): Promise<number | null> {
  const key = `${version}|${JSON.stringify(f)}|${row.opened_at ? new Date(row.opened_at).toISOString() : ''}`
  const cached = deps.cache.get(key)
  if (cached !== undefined) return cached
  try {
    const count = await search.newMatches(db, f, row.opened_at ? new Date(row.opened_at) : null)
    deps.cache.set(key, count)
    return count
  } catch (err) {
    // A count too broad for the statement bound is "not counted", not a failed navigation.
    if ((err as { code?: unknown } | null)?.code !== '57014') throw err
    return null
  }
}

const countsRoute: ViewHandler = async (_req, res, url, ctx, db, deps) => {
  const p = readQuery(url, ['tz'])
  const tz = p.get('tz') || 'UTC'
  if (!isTimeZone(tz)) throw invalid('tz', 'tz must be an IANA time zone such as Europe/Paris or UTC.')
  const me = owner(ctx)
  const rows = (await visibleRows(db, me)).rows
  const search = deps.search
  const version = search ? await search.dataVersion(db) : ''
  const out: Array<{ id: string; newMatches: number | null }> = []
  let counted = 0
  // Each count of the reader's own views is a search they asked for: the access log names the
  // numbers and customers searched. A teammate's shared view is counted because its owner saved
  // it (an audited action in their name); the reader's entry names it by id and owner only, so a
  // viewer's shared view cannot write customers into everyone's entries as they navigate.
  const numbers = new Set<string>()
  const parties = new Set<string>()
  const shared: Array<{ view: string; owner: string }> = []
  for (const row of rows) {
    let count: number | null = null
    if (search && counted < MAX_COUNTED) {
      let f: Filters | null = null
      try {
        f = viewFilters(parseViewQuery(row.query, row.range), row.range, deps.now(), tz)
      } catch (err) {
        // A view saved before a rule it breaks (a day past 2999) is not counted; the others are.
        if (!(err instanceof ProxyError) && !(err instanceof RangeError)) throw err
      }
      if (f) {
        counted++
        if (row.owner === me) {
          for (const n of f.numbers ?? []) numbers.add(n)
          if (f.party) parties.add(f.party)
        } else shared.push({ view: row.id, owner: row.owner })
        count = await countOf(db, search, f, row, version, deps)
      }
    }
    out.push({ id: row.id, newMatches: count })
  }
  await ctx.logRead({
    views: rows.length,
    counted,
    tz,
    ...(numbers.size ? { numbers: [...numbers] } : {}),
    ...(parties.size ? { parties: [...parties] } : {}),
    ...(shared.length ? { shared } : {}),
  })
  sendJson(res, 200, { counts: out } satisfies ViewsAnswer<'counts'>)
}

/** A new view of the owner's, within their limit and under a name of theirs not yet taken. */
async function insertView(db: Db, me: string, v: { name: string; shared: boolean; query: string; range: RelativeRange | null }) {
  try {
    return await db.transaction(async (tx) => {
      const mine = await tx.query<{ n: number; taken: boolean }>(
        `SELECT count(*)::int AS n, COALESCE(bool_or(lower(name) = lower($2)), false) AS taken FROM saved_views WHERE owner = $1`,
        [me, v.name],
      )
      if (mine.rows[0]?.taken) throw duplicate(v.name)
      if ((mine.rows[0]?.n ?? 0) >= VIEWS_PER_OWNER)
        throw invalid('name', `You have ${VIEWS_PER_OWNER} saved views, the most one person may keep: delete one first.`)
      const ins = await tx.query<{ id: string }>(
        `INSERT INTO saved_views (owner, name, shared, query, range) VALUES ($1, $2, $3, $4, $5) RETURNING id::text AS id`,
        [me, v.name, v.shared, v.query, v.range],
      )
      const id = ins.rows[0]!.id
      // Saving is seeing: the owner's new matches start now.
      await tx.query(`INSERT INTO saved_view_opens (view_id, user_name, opened_at) VALUES ($1::bigint, $2, now())`, [id, me])
      return visible(tx, id, me)
    })
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate(v.name)
    throw err
  }
}

/** A name this owner already gives another view (the unique index, read before an action's entry is stored). */
async function refuseTaken(db: Db, me: string, name: string, except?: string): Promise<void> {
  const r = await db.query(`SELECT 1 FROM saved_views WHERE owner = $1 AND lower(name) = lower($2) AND id <> COALESCE($3::bigint, 0)`, [
    me,
    name,
    except ?? null,
  ])
  if (r.rows.length) throw duplicate(name)
}

const createRoute: ViewHandler = async (req, res, url, ctx, db) => {
  readQuery(url, [])
  const body = await bodyWith(req, ['name', 'shared', 'query', 'range'])
  const name = nameField(body.name)
  if (body.shared !== undefined && typeof body.shared !== 'boolean')
    throw invalid('shared', 'shared must be true (the whole team sees it) or false (only you).')
  const shared = body.shared === true
  const range = rangeField(body.range)
  const { query } = parseViewQuery(body.query, range)
  const me = owner(ctx)
  // The entry first (the view's id does not exist yet: its name stands for it); a name already
  // taken is refused before it, as the insert would refuse it.
  await refuseTaken(db, me, name)
  await ctx.audit('view.create', { name, shared })
  const row = await insertView(db, me, { name, shared, query, range })
  sendJson(res, 201, { view: toView(row, me) } satisfies ViewsAnswer<'one'>)
}

const renameRoute: ViewHandler = async (req, res, url, ctx, db) => {
  readQuery(url, [])
  const body = await bodyWith(req, ['id', 'name'])
  const id = idField(body.id)
  const name = nameField(body.name)
  const me = owner(ctx)
  await ownView(db, id, me, 'rename')
  await refuseTaken(db, me, name, id)
  await ctx.audit('view.rename', { view: id })
  try {
    await db.query(`UPDATE saved_views SET name = $2, updated_at = now() WHERE id = $1::bigint`, [id, name])
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate(name)
    throw err
  }
  sendJson(res, 200, { view: toView(await visible(db, id, me), me) } satisfies ViewsAnswer<'one'>)
}

const shareRoute: ViewHandler = async (req, res, url, ctx, db) => {
  readQuery(url, [])
  const body = await bodyWith(req, ['id', 'shared'])
  const id = idField(body.id)
  if (typeof body.shared !== 'boolean') throw invalid('shared', 'shared must be true (the whole team sees it) or false (only you).')
  const me = owner(ctx)
  await ownView(db, id, me, body.shared ? 'share' : 'make private')
  await ctx.audit('view.share', { view: id, shared: body.shared })
  await db.query(`UPDATE saved_views SET shared = $2, updated_at = now() WHERE id = $1::bigint`, [id, body.shared])
  // Teammates' marks of when they opened it stay: shared again, their counts go on from there.
  sendJson(res, 200, { view: toView(await visible(db, id, me), me) } satisfies ViewsAnswer<'one'>)
}

const removeRoute: ViewHandler = async (req, res, url, ctx, db) => {
  readQuery(url, [])
  const id = idField((await bodyWith(req, ['id'])).id)
  await ownView(db, id, owner(ctx), 'delete')
  await ctx.audit('view.delete', { view: id })
  await db.query(`DELETE FROM saved_views WHERE id = $1::bigint`, [id])
  sendJson(res, 200, { deleted: true } satisfies ViewsAnswer<'deleted'>)
}

const openRoute: ViewHandler = async (req, res, url, ctx, db) => {
  readQuery(url, [])
  const id = idField((await bodyWith(req, ['id'])).id)
  const me = owner(ctx)
  await visible(db, id, me)
  await db.query(
    `INSERT INTO saved_view_opens (view_id, user_name, opened_at) VALUES ($1::bigint, $2, now())
     ON CONFLICT (view_id, user_name) DO UPDATE SET opened_at = excluded.opened_at`,
    [id, me],
  )
  sendJson(res, 200, { view: toView(await visible(db, id, me), me) } satisfies ViewsAnswer<'one'>)
}

const VIEW_ROUTES: ReadonlyArray<Omit<RouteSpec, 'handle'> & { run: ViewHandler }> = [
  {
    method: 'GET',
    path: VIEW_PATHS.list,
    access: 'signed-in',
    reads: null,
    schema: NO_PARAMS,
    response: VIEWS_ANSWERS.list,
    run: listRoute,
  },
  {
    method: 'GET',
    path: VIEW_PATHS.counts,
    access: 'signed-in',
    reads: 'view.counts',
    schema: { querystring: names('tz') },
    response: VIEWS_ANSWERS.counts,
    run: countsRoute,
  },
  {
    method: 'POST',
    path: VIEW_PATHS.create,
    access: 'signed-in',
    reads: null,
    schema: NO_PARAMS,
    response: VIEWS_ANSWERS.one,
    run: createRoute,
  },
  {
    method: 'POST',
    path: VIEW_PATHS.rename,
    access: 'signed-in',
    reads: null,
    schema: NO_PARAMS,
    response: VIEWS_ANSWERS.one,
    run: renameRoute,
  },
  {
    method: 'POST',
    path: VIEW_PATHS.share,
    access: 'signed-in',
    reads: null,
    schema: NO_PARAMS,
    response: VIEWS_ANSWERS.one,
    run: shareRoute,
  },
  {
    method: 'POST',
    path: VIEW_PATHS.delete,
    access: 'signed-in',
    reads: null,
    schema: NO_PARAMS,
    response: VIEWS_ANSWERS.deleted,
    run: removeRoute,
  },
  {
    method: 'POST',
    path: VIEW_PATHS.open,
    access: 'signed-in',
    reads: null,
    schema: NO_PARAMS,
    response: VIEWS_ANSWERS.one,
    run: openRoute,
  },
]

export function viewsRoutes(db: Db, deps: ViewsDeps): RouteSpec[] {
  const routeDeps: RouteDeps = { search: deps.search, now: deps.now ?? Date.now, cache: createCache() }
  return VIEW_ROUTES.map(({ run, ...r }) => ({ ...r, handle: (req, res, url, ctx) => run(req, res, url, ctx, db, routeDeps) }))
}
