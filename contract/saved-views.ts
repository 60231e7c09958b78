import * as z from 'zod/mini'
import { SEARCH_PAGE_KEYS, type SearchPageKey } from './search-filters.ts'
import { isRealDay } from './upstream-values.ts'

/**
 * Saved views: a Search page query (its URL query string: the filters' keys and tz) kept by name,
 * private to its owner or shared with the team. Served by proxy/views/routes.ts, called by
 * src/api/views.ts. Reads are GET, changes POST with JSON.
 *
 * A view's dates are either the fixed days of its query (`from`/`to`), or a relative `range`
 * stored as a word and turned into days when the view is opened (and when its new matches are
 * counted), in the zone the Search page shows (`tz`: the browser's own zone, or UTC).
 */

export const VIEW_PATHS = {
  /** GET → ViewList: your views and those shared with the team (no customer data: not a logged read). */
  list: '/api/views',
  /** GET {tz?: IANA zone of the browser} → ViewCounts: each view's new matches (a logged read). */
  counts: '/api/views/counts',
  /** POST {name, shared, query, range} → 201 {view}. */
  create: '/api/views',
  /** POST {id, name} → {view}: the owner renames. */
  rename: '/api/views/rename',
  /** POST {id, shared} → {view}: the owner shares it with the team (true) or makes it private (false). */
  share: '/api/views/share',
  /** POST {id} → {deleted: true}: the owner deletes. */
  delete: '/api/views/delete',
  /** POST {id} → {view}: marks the view opened now by the caller (its new matches start from here). */
  open: '/api/views/open',
} as const

export const RELATIVE_RANGES = ['today', 'last-7-days', 'last-30-days'] as const
export type RelativeRange = (typeof RELATIVE_RANGES)[number]

export const RANGE_LABELS: Record<RelativeRange, string> = {
  today: 'Today',
  'last-7-days': 'Last 7 days',
  'last-30-days': 'Last 30 days',
}

/** The Search page's query string keys, as its URL writes them (src/lib/route-params.ts searchSearch): the filters' and its zone. */
export const SEARCH_KEYS: readonly (SearchPageKey | 'tz')[] = [...SEARCH_PAGE_KEYS, 'tz']

export const VIEW_NAME_MAX = 80
export const VIEW_QUERY_MAX = 2000
/** Views one person may keep: the navigation lists them all. */
export const VIEWS_PER_OWNER = 50

/**
 * A saved view as the server answers it. These schemas are the one description of the views'
 * answers: the route rows declare them (proxy/views/routes.ts), the views tests hold every answer
 * to them (proxy/testing/answers.ts), and the browser parses with them (src/api/views.ts).
 */
const viewWire = z.object({
  id: z.string(),
  name: z.string(),
  owner: z.string(),
  /** The caller owns it (may rename, share or unshare, and delete it). */
  mine: z.boolean(),
  shared: z.boolean(),
  /** The Search page's query string without `?` (no from/to when `range` is set). */
  query: z.string(),
  range: z.nullable(z.enum(RELATIVE_RANGES)),
  createdAt: z.string(),
  /** When the caller last opened it; null when never. */
  lastOpenedAt: z.nullable(z.string()),
})
export type SavedView = z.infer<typeof viewWire>

/** Each route's 2xx answer. */
export const VIEWS_ANSWERS = {
  list: z.object({ views: z.array(viewWire) }),
  /**
   * Per view: the matching messages the index stored after the caller last opened it (every
   * match when never opened); null when not counted (index off, or the count took too long).
   */
  counts: z.object({ counts: z.array(z.object({ id: z.string(), newMatches: z.nullable(z.number()) })) }),
  /** A view made, renamed, shared or opened. */
  one: z.object({ view: viewWire }),
  deleted: z.object({ deleted: z.literal(true) }),
} as const
export type ViewsAnswer<K extends keyof typeof VIEWS_ANSWERS> = z.infer<(typeof VIEWS_ANSWERS)[K]>
export type ViewList = ViewsAnswer<'list'>
export type ViewCounts = ViewsAnswer<'counts'>

const DAY_MS = 86_400_000

/** `YYYY-MM-DD` of an instant in an IANA zone. */
export function dayInZone(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(ms)
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? ''
  return `${get('year')}-${get('month')}-${get('day')}`
}

/** The calendar day `n` days before `day` (calendar arithmetic: no zone, no daylight-saving shift). */
export function daysBefore(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  return new Date(Date.UTC(y, m - 1, d) - n * DAY_MS).toISOString().slice(0, 10)
}

/** A relative range as the Search page's days (`to` included), for `nowMs` in `timeZone`. */
export function resolveRange(range: RelativeRange, nowMs: number, timeZone: string): { from: string; to: string } {
  const today = dayInZone(nowMs, timeZone)
  const back = range === 'today' ? 0 : range === 'last-7-days' ? 6 : 29
  return { from: daysBefore(today, back), to: today }
}

/** Whether an IANA zone name is one this runtime knows. */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(zone)) return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** The zone's offset from UTC at an instant, in milliseconds (local − UTC). */
function offsetAt(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(ms)
  const n = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0)
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - Math.floor(ms / 1000) * 1000
}

/** The first instant of the day `YYYY-MM-DD` in an IANA zone (twice corrected: the offset may change that day). */
export function startOfDayIn(day: string, timeZone: string): number {
  if (!isRealDay(day)) throw new RangeError(`not a day: ${day}`)
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  const guess = Date.UTC(y, m - 1, d)
  const first = guess - offsetAt(guess, timeZone)
  return guess - offsetAt(first, timeZone)
}
