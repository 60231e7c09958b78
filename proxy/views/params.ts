import { RELATIVE_RANGES, SEARCH_KEYS, VIEW_NAME_MAX, VIEW_QUERY_MAX, isTimeZone, type RelativeRange } from '../../contract/saved-views.ts'
import { PARAM_OF_KEY } from '../../contract/search-filters.ts'
import { isRealDay } from '../../contract/upstream-values.ts'
import { z } from 'zod'
import { ProxyError, invalid } from '../errors.ts'
import { safeFieldName } from '../http.ts'
import { parseFilters, type Filters } from '../kernel/params.ts'
import { checked, jsonBody, param, query } from '../schema.ts'

/**
 * What the saved views' routes take (proxy/views/routes.ts), as zod schemas on their rows:
 * Fastify refuses a bad request before the handler, naming its field in the one envelope, and the
 * handler gets typed values. An unknown field is refused first, then each field in order.
 */

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

const field = z.unknown().optional()
/** A JSON body of these fields; any other is refused, naming it and those allowed. */
const body = <K extends string>(...keys: K[]) =>
  jsonBody(
    Object.fromEntries(keys.map((k) => [k, field])) as Record<K, typeof field>,
    (k) => `${k} is not a field here (allowed: ${keys.join(', ')}).`,
  )

function sharedField(v: unknown): boolean {
  if (typeof v !== 'boolean') throw invalid('shared', 'shared must be true (the whole team sees it) or false (only you).')
  return v
}

/** A new view: its name, whether the team sees it, its query and its relative range. */
export const CREATE_BODY = body('name', 'shared', 'query', 'range').transform(
  checked((b) => {
    const name = nameField(b.name)
    const shared = b.shared === undefined ? false : sharedField(b.shared)
    const range = rangeField(b.range)
    return { name, shared, range, query: parseViewQuery(b.query, range).query }
  }),
)
export const RENAME_BODY = body('id', 'name').transform(checked((b) => ({ id: idField(b.id), name: nameField(b.name) })))
export const SHARE_BODY = body('id', 'shared').transform(checked((b) => ({ id: idField(b.id), shared: sharedField(b.shared) })))
/** Delete, or open: the view's id. */
export const ID_BODY = body('id').transform(checked((b) => ({ id: idField(b.id) })))

/** The counts' zone: an IANA name (the browser's), UTC by default. */
export const COUNTS_QUERY = query({
  tz: param((v) => {
    const tz = v || 'UTC'
    if (!isTimeZone(tz)) throw invalid('tz', 'tz must be an IANA time zone such as Europe/Paris or UTC.')
    return tz
  }),
})
