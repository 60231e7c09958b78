import type { SearchMiddleware, SearchSchemaInput } from '@tanstack/react-router'
import * as z from 'zod/mini'
import { day, digits, orNull, text } from '../../contract/query-words'
import { SEARCH_PAGE_SHAPE } from '../../contract/search-filters'
import { isRealDay } from '../../contract/upstream-values'

/**
 * One schema per route for its query string: the route tree (src/app/routes.tsx) hands each to
 * TanStack Router's `validateSearch`, so a page gets typed search values and a bad value never
 * reaches a component: each field falls back to its default on its own (`page=abc` → 1,
 * `size=7` → 50), so one bad parameter does not throw away the rest of a shared link.
 *
 * The URL keeps plain words (`?tid=X&page=2&numbers=1832,1555`), not the router's default JSON
 * encoding: every link already shared, bookmarked or saved as a view keeps working. The router
 * reads a query string into strings (`parseSearchString`) and writes typed values back as words
 * (`stringifySearch`); each schema reads those strings.
 */

const oneOf = <T extends string>(values: readonly [T, ...T[]], fallback: T) => z.catch(z._default(z.enum(values), fallback), fallback)
const posInt = (fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  z.catch(
    z.prefault(
      z.pipe(
        z.string().check(z.regex(/^\d{1,15}$/)),
        z.transform((v) => Math.min(max, Math.max(1, Number(v)))),
      ),
      String(fallback),
    ),
    fallback,
  )
const optPosInt = z.catch(
  z._default(
    z.nullable(
      z.pipe(
        z.string().check(z.regex(/^\d{1,15}$/)),
        z.transform((v) => Number(v)),
      ),
    ),
    null,
  ),
  null,
)

export function isDay(v: string): boolean {
  return isRealDay(v)
}

/** `first-last`, 1-based and inclusive; anything else is no range at all. */
const recordRange = z.catch(
  z._default(
    z.nullable(
      z.pipe(
        z.string().check(z.regex(/^\d{1,15}-\d{1,15}$/)),
        z.transform((v) => {
          const [first = 0, last = 0] = v.split('-').map(Number)
          return first >= 1 && last >= first ? { first, last } : null
        }),
      ),
    ),
    null,
  ),
  null,
)

export const zoneParam = oneOf(['local', 'utc'], 'local')

export const historySearch = z.object({
  tid: text,
  page: posInt(1),
  // Kept as the link wrote it (bounded): refitLink fits it to this server's sizes and says which
  // records the link named; capped here at 1,000, size=2000&page=2 opened records 1,001–2,000 silently.
  size: posInt(50, 1_000_000),
  view: oneOf(['log', 'conversation'], 'log'),
  tz: zoneParam,
  dir: orNull(['outbound', 'inbound']),
  status: orNull(['Success', 'Error', 'Unknown']),
  media: orNull(['1']),
  mq: text,
  sort: text,
  more: z.catch(
    z.prefault(
      z.pipe(
        z.string(),
        z.transform((v) => Math.max(0, Math.min(50, Number(v) || 0))),
      ),
      '0',
    ),
    0,
  ),
  party: text,
  /** A record position to bring into view and mark (links from search, go to date, message page). */
  mark: optPosInt,
  /**
   * The marked message by its ordinal (oldest = 1), which new messages do not move: the page
   * works `mark` and `page` out from it and the history's total, so a shared link still marks
   * the message it named after messages arrived (a position alone marked another one).
   */
  o: optPosInt,
  /** The day "Go to date" was asked for (with `mark`, where it led): a reload shows both again. */
  date: day,
  /** Set when a link asked for a page past the end and was moved to the last page: says so. */
  past: optPosInt,
  /** The records a link named (`1001-1500`) before this server's smaller page cap refitted it: says so. */
  asked: recordRange,
})
export type HistorySearch = z.output<typeof historySearch>

/** The Search page: its filters, each read as the filters' table says (contract/search-filters.ts), and the zone it shows. */
export const searchSearch = z.object({ ...SEARCH_PAGE_SHAPE, tz: zoneParam })
export type SearchSearch = z.output<typeof searchSearch>

export const threadSearch = z.object({
  tid: text,
  party: digits,
  tz: zoneParam,
  /** The message (its ordinal, oldest = 1) the thread opens at and marks: the one clicked. */
  at: optPosInt,
  /** The day a go-to-date asked for (YYYY-MM-DD in the shown zone); `at` holds the message it led to. */
  date: day,
})
export type ThreadSearch = z.output<typeof threadSearch>

export const messageSearch = z.object({
  tid: text,
  tz: zoneParam,
})
export type MessageSearch = z.output<typeof messageSearch>

export const chartsSearch = z.object({
  number: digits,
  range: oneOf(['30d', '90d', '1y', 'all'], '90d'),
  tz: zoneParam,
})
export type ChartsSearch = z.output<typeof chartsSearch>

export const needsReplySearch = z.object({ number: digits, tz: zoneParam })
export type NeedsReplySearch = z.output<typeof needsReplySearch>

export const optOutsSearch = z.object({
  number: digits,
  state: oneOf(['all', 'opted-out', 'opted-in'], 'all'),
  /** The sent-after-opt-out evidence of one party, when set. */
  party: digits,
  tz: zoneParam,
})
export type OptOutsSearch = z.output<typeof optOutsSearch>

export const customerSearch = z.object({ party: digits, tz: zoneParam })
export type CustomerSearch = z.output<typeof customerSearch>

/** Quiet hours and segments: one number, an optional span of whole UTC days. */
export const deskNumberSearch = z.object({ number: digits, from: day, to: day, tz: zoneParam })
export type DeskNumberSearch = z.output<typeof deskNumberSearch>

/** The Callbacks page: its tab, one number to narrow changes and messages at risk to, one endpoint (its key) opened. */
export const callbacksSearch = z.object({ tab: oneOf(['endpoints', 'changes', 'at-risk'], 'endpoints'), number: digits, endpoint: text })
export type CallbacksSearch = z.output<typeof callbacksSearch>
/** The Alerts page's tab. */
export const ALERT_TABS = ['now', 'rules', 'channels', 'history'] as const
export const alertsSearch = z.object({ tab: oneOf(ALERT_TABS, 'now') })
export type AlertsSearch = z.output<typeof alertsSearch>

/** `ended`: `1` when the app came here because the server said the session had ended. */
export const signInSearch = z.object({ next: text, ended: text })
export type SignInSearch = z.output<typeof signInSearch>

/** The numbers list: tab, filter text, audit chips, sort and hidden columns, as the page reads them. */
export const numbersSearch = z.object({ tab: text, q: text, audit: text, severity: text, sort: text, hide: text })
export type NumbersSearch = z.output<typeof numbersSearch>

/** The access log's filters, each free text the server checks. */
export const accessLogSearch = z.object({ user: text, number: text, party: text, action: text, from: text, to: text })
export type AccessLogSearch = z.output<typeof accessLogSearch>

/** A value in the URL's words: `null`, `undefined` and '' mean "not set" (the default). */
function word(v: unknown): string | undefined {
  if (v === null || v === undefined || v === '') return undefined
  if (Array.isArray(v)) return v.length ? v.map(String).join(',') : undefined
  if (typeof v === 'object') {
    // A record range (`asked`) is written as it is read: `first-last`.
    const r = v as { first?: unknown; last?: unknown }
    return typeof r.first === 'number' && typeof r.last === 'number' ? `${r.first}-${r.last}` : undefined
  }
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined
}

/** Typed values or URL strings → URL strings, so one schema reads both a link's values and an address bar. */
function words(input: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(input)) {
    const w = word(v)
    if (w !== undefined) out[k] = w
  }
  return out
}

/** What a link or a navigation may pass: any field, `null` for "back to its default". */
export type SearchInput<T> = { [K in keyof T]?: T[K] | null }

/** A route's `validateSearch`: links pass typed values (all optional), pages receive the full typed search. */
export function searchValidator<T extends z.ZodMiniType<Record<string, unknown>>>(schema: T) {
  return (input: SearchInput<z.output<T>> & SearchSchemaInput): z.output<T> => schema.parse(words(input))
}

/**
 * Leaves defaults out of the URL (`page=1`, `view=log`, `tz=local`): links stay as short as the
 * ones already shared, and one page has one address.
 */
export function stripDefaults<T extends z.ZodMiniType<Record<string, unknown>>>(schema: T): SearchMiddleware<z.output<T>> {
  const defaults = schema.parse({})
  return ({ search, next }) => withoutDefaults(next(search), defaults) as z.output<T>
}

/** A search without the fields that hold their defaults (as the URL leaves them out). */
export function withoutDefaults(given: Record<string, unknown>, defaults: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(given).filter(([k, v]) => !(k in defaults) || word(v) !== word(defaults[k])))
}

/** A search value that means "not set": null, '' or an empty list. */
export function isUnset(v: unknown): boolean {
  return word(v) === undefined
}

/** The router's reading of `?a=1&b=x`: plain strings, the first value of each key (as URLSearchParams.get). */
export function parseSearchString(searchStr: string): Record<string, string> {
  const raw: Record<string, string> = {}
  for (const [k, v] of new URLSearchParams(searchStr)) if (!(k in raw)) raw[k] = v
  return raw
}

/** The router's writing of a search object: words, unset values left out. */
export function stringifySearch(search: Record<string, unknown>): string {
  const qs = new URLSearchParams(words(search)).toString()
  // Commas stay commas (`severity=problem,look`): legal in a query (RFC 3986 sub-delims), read back the same, and a shared link stays legible.
  return qs ? `?${qs.replace(/%2C/gi, ',')}` : ''
}

/** A query string read through a route's schema, as the router reads it (tests, and code that reads a URL it did not route). */
export function parseSearch<T extends z.ZodMiniType>(schema: T, params: URLSearchParams): z.output<T> {
  return schema.parse(parseSearchString(params.toString()))
}

/**
 * The fields a link gave that its schema could not read and so left out (`from=2026-13-45`,
 * `dir=sideways`): each with the value as written, for a page to say so instead of quietly
 * showing more than was asked for. Only `keys` are judged, and only a value that was given and
 * read as nothing; one the schema tidied (`party=415.555.0123`) is not left out.
 */
export function droppedParams<T extends z.ZodMiniType<Record<string, unknown>>>(
  schema: T,
  searchStr: string,
  keys: readonly (keyof z.output<T> & string)[],
): { key: keyof z.output<T> & string; value: string }[] {
  const raw = parseSearchString(searchStr.replace(/^\?/, ''))
  const read = schema.parse(raw) as Record<string, unknown>
  return keys.flatMap((key) => {
    const value = raw[key]?.trim()
    return value && word(read[key]) === undefined ? [{ key, value }] : []
  })
}
