import type { z } from 'zod'
import {
  VIEW_PATHS,
  VIEWS_PER_OWNER,
  daysBefore,
  resolveRange,
  startOfDayIn,
  type RelativeRange,
  type SavedView,
  VIEWS_ANSWERS,
  type ViewsAnswer,
} from '../../contract/saved-views.ts'
import type { Db, Queryable } from '../db/types.ts'
import { ProxyError, invalid } from '../errors.ts'
import { answering, type JsonAnswer, type RequestContext, type RouteSpec } from '../http-types.ts'
import { NO_PARAMS, NO_QUERY } from '../schema.ts'
import type { Filters } from '../kernel/params.ts'
import { COUNTS_QUERY, CREATE_BODY, ID_BODY, parseViewQuery, RENAME_BODY, SHARE_BODY, type ParsedQuery } from './params.ts'

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

/** A handler: what its row's schema parsed (the body, for a change; else the query), the database and the shared deps. */
type ViewHandler<P = unknown> = (ctx: RequestContext, db: Db, deps: RouteDeps, parsed: P) => Promise<JsonAnswer>

/** The views the caller may see: their own first, then the ones others share. */
const visibleRows = (db: Db, me: string) =>
  db.query<ViewRow>(
    `SELECT ${VIEW_COLUMNS} FROM saved_views v LEFT JOIN saved_view_opens o ON o.view_id = v.id AND o.user_name = $1
      WHERE v.owner = $1 OR v.shared ORDER BY (v.owner = $1) DESC, lower(v.name), v.id LIMIT ${LIST_MAX}`,
    [me],
  )

const listRoute: ViewHandler = async (ctx, db) => {
  const me = owner(ctx)
  return { status: 200, body: { views: (await visibleRows(db, me)).rows.map((r) => toView(r, me)) } satisfies ViewsAnswer<'list'> }
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

const countsRoute: ViewHandler<z.output<typeof COUNTS_QUERY>> = async (ctx, db, deps, { tz }) => {
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
  return { status: 200, body: { counts: out } satisfies ViewsAnswer<'counts'> }
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

const createRoute: ViewHandler<z.output<typeof CREATE_BODY>> = async (ctx, db, _deps, { name, shared, range, query }) => {
  const me = owner(ctx)
  // The entry first (the view's id does not exist yet: its name stands for it); a name already
  // taken is refused before it, as the insert would refuse it.
  await refuseTaken(db, me, name)
  await ctx.audit('view.create', { name, shared })
  const row = await insertView(db, me, { name, shared, query, range })
  return { status: 201, body: { view: toView(row, me) } satisfies ViewsAnswer<'one'> }
}

const renameRoute: ViewHandler<z.output<typeof RENAME_BODY>> = async (ctx, db, _deps, { id, name }) => {
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
  return { status: 200, body: { view: toView(await visible(db, id, me), me) } satisfies ViewsAnswer<'one'> }
}

const shareRoute: ViewHandler<z.output<typeof SHARE_BODY>> = async (ctx, db, _deps, { id, shared }) => {
  const me = owner(ctx)
  await ownView(db, id, me, shared ? 'share' : 'make private')
  await ctx.audit('view.share', { view: id, shared })
  await db.query(`UPDATE saved_views SET shared = $2, updated_at = now() WHERE id = $1::bigint`, [id, shared])
  // Teammates' marks of when they opened it stay: shared again, their counts go on from there.
  return { status: 200, body: { view: toView(await visible(db, id, me), me) } satisfies ViewsAnswer<'one'> }
}

const removeRoute: ViewHandler<z.output<typeof ID_BODY>> = async (ctx, db, _deps, { id }) => {
  await ownView(db, id, owner(ctx), 'delete')
  await ctx.audit('view.delete', { view: id })
  await db.query(`DELETE FROM saved_views WHERE id = $1::bigint`, [id])
  return { status: 200, body: { deleted: true } satisfies ViewsAnswer<'deleted'> }
}

const openRoute: ViewHandler<z.output<typeof ID_BODY>> = async (ctx, db, _deps, { id }) => {
  const me = owner(ctx)
  await visible(db, id, me)
  await db.query(
    `INSERT INTO saved_view_opens (view_id, user_name, opened_at) VALUES ($1::bigint, $2, now())
     ON CONFLICT (view_id, user_name) DO UPDATE SET opened_at = excluded.opened_at`,
    [id, me],
  )
  return { status: 200, body: { view: toView(await visible(db, id, me), me) } satisfies ViewsAnswer<'one'> }
}

const VIEW_ROUTES: readonly ViewRouteRow[] = [
  viewRow({
    method: 'GET',
    path: VIEW_PATHS.list,
    access: 'signed-in',
    reads: null,
    schema: NO_PARAMS,
    response: VIEWS_ANSWERS.list,
    run: listRoute,
  }),
  viewRow({
    method: 'GET',
    path: VIEW_PATHS.counts,
    access: 'signed-in',
    reads: 'view.counts',
    schema: { querystring: COUNTS_QUERY },
    response: VIEWS_ANSWERS.counts,
    run: countsRoute,
  }),
  viewRow({
    method: 'POST',
    path: VIEW_PATHS.create,
    access: 'signed-in',
    reads: null,
    schema: { querystring: NO_QUERY, body: CREATE_BODY },
    response: VIEWS_ANSWERS.one,
    run: createRoute,
  }),
  viewRow({
    method: 'POST',
    path: VIEW_PATHS.rename,
    access: 'signed-in',
    reads: null,
    schema: { querystring: NO_QUERY, body: RENAME_BODY },
    response: VIEWS_ANSWERS.one,
    run: renameRoute,
  }),
  viewRow({
    method: 'POST',
    path: VIEW_PATHS.share,
    access: 'signed-in',
    reads: null,
    schema: { querystring: NO_QUERY, body: SHARE_BODY },
    response: VIEWS_ANSWERS.one,
    run: shareRoute,
  }),
  viewRow({
    method: 'POST',
    path: VIEW_PATHS.delete,
    access: 'signed-in',
    reads: null,
    schema: { querystring: NO_QUERY, body: ID_BODY },
    response: VIEWS_ANSWERS.deleted,
    run: removeRoute,
  }),
  viewRow({
    method: 'POST',
    path: VIEW_PATHS.open,
    access: 'signed-in',
    reads: null,
    schema: { querystring: NO_QUERY, body: ID_BODY },
    response: VIEWS_ANSWERS.one,
    run: openRoute,
  }),
]

type ViewRouteRow = Omit<RouteSpec, 'handle'> & { run: ViewHandler }
type Parsed<Q extends z.ZodType, B> = B extends z.ZodType ? z.output<B> : z.output<Q>

/** One row, its handler typed by its schema (viewsRoutes hands it what Fastify parsed). */
function viewRow<Q extends z.ZodType, B extends z.ZodType | undefined = undefined>(
  r: Omit<RouteSpec, 'handle' | 'schema'> & { schema: { querystring: Q; body?: B }; run: ViewHandler<Parsed<Q, B>> },
): ViewRouteRow {
  return { ...r, run: (ctx, db, deps, parsed) => r.run(ctx, db, deps, parsed as Parsed<Q, B>) }
}

export function viewsRoutes(db: Db, deps: ViewsDeps): RouteSpec[] {
  const routeDeps: RouteDeps = { search: deps.search, now: deps.now ?? Date.now, cache: createCache() }
  return VIEW_ROUTES.map(({ run, ...r }) => ({
    ...r,
    handle: answering((ctx, input) => run(ctx, db, routeDeps, input.body ?? input.query)),
  }))
}
