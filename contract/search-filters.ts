import type * as z from 'zod/mini'
import { LINE_KEY } from './lines.ts'
import { day, digits, numberList, orNull, text } from './query-words.ts'

/**
 * The search's filters, one row each, in the order the Search page's URL writes them. Every place
 * that names a filter reads this table: the page's URL schema (src/lib/route-params.ts), the
 * index API's query (SearchParams, below), a saved view's keys (saved-views.ts SEARCH_KEYS), what
 * the page sends, says and names when a link's value was left out (src/features/search), the
 * server's parameters and their refusals (proxy/kernel/params.ts), an export's file name and
 * action (proxy/index/export.ts), and which searches the roll-ups may count
 * (proxy/index/count-queries.ts: a filter they do not know is counted among the messages).
 *
 * Adding a filter is a row here, its SQL (proxy/index/filter-sql.ts FILTER_SQL) and its control
 * (src/features/search/search-form.tsx FILTER_CONTROLS): those two are records keyed by the
 * filter's name, so leaving one out does not compile.
 */

/**
 * What the server reads a filter's parameters with: the kernel's checked readers
 * (proxy/kernel/params.ts), so the contract says how a filter is read and the server keeps one
 * error envelope. `fail` refuses the request with a 400 naming the field.
 */
export interface ParamReaders {
  fail(field: string, message: string): never
  /** Text of at most `max` characters with no NUL; null when absent or empty. */
  text(name: string, value: string | undefined, max: number): string | null
  /** A phone number's digits, any formatting forgiven; null when absent or empty. */
  digits(name: string, value: string | undefined): string | null
  /** `YYYY-MM-DD` (a whole UTC day) or an ISO instant with a zone; null when absent or empty. */
  date(name: string, value: string | undefined): { start: string; endExclusive: string; isDay: boolean } | null
}

/** A parameter as sent (undefined when absent). */
export type Sent = (param: string) => string | undefined

/** The page's days as instants in the zone it shows: `from`'s first instant, `to`'s last (absent when not set). */
export type DayRange = (from: string, to: string) => { from?: string; to?: string }

/** One of the Search page's query keys. */
interface PageKey {
  /** The index API's parameter it is sent as (a saved view's query is checked under this name too). */
  param: string
  /** How the page reads it from its URL: a bad value falls back to the default on its own. */
  schema: z.ZodMiniType
  /** How the page names a value it had to leave out of a link (DroppedParams); absent: any text reads. */
  dropped?: { label: string; must: string }
}

type Keys = Record<string, PageKey>
type PageValues<K extends Keys> = { [P in keyof K]: z.output<K[P]['schema']> }

/*
 * Methods, not function-typed properties: the loops below read every row as FilterRow<Keys,
 * unknown>, which method parameters (checked both ways) allow; each row's own functions are still
 * typed by its keys and value where it is written.
 */
interface FilterRow<K extends Keys, V> {
  keys: K
  /** What the page sends the index; absent: each key's URL word, trimmed, under its parameter (nothing when empty). */
  send?(v: PageValues<K>, days: DayRange): Partial<Record<string, string>>
  /** Its words in the page's summary and printout ("with media"); null when not set or said apart. */
  says(v: PageValues<K>): string | null
  /** The server's reading of its parameters: null when not set; a bad value is refused with `r.fail`, naming the field. */
  read(sent: Sent, r: ParamReaders): V | null
  /** Its part of an export's file name (contract/file-name.ts). */
  fileName(v: V, sent: Sent): string
}

const filter = <const K extends Keys, V>(row: FilterRow<K, V>): FilterRow<K, V> => row

/** A parameter that is one of `values`, or null when absent or empty. */
function oneOf<const T extends string>(sent: Sent, r: ParamReaders, name: string, values: readonly [T, T, ...T[]]): T | null {
  const v = sent(name)
  if (v === undefined || v === '') return null
  const hit = values.find((x) => x === v)
  if (hit === undefined) r.fail(name, `${name} must be ${values.slice(0, -1).join(', ')} or ${values.at(-1) ?? ''}.`)
  return hit
}

const MAX_Q = 500
const MAX_NUMBERS = 1000
const REAL_DAY = 'not a real day written YYYY-MM-DD'
/** The day of a `from`/`to` parameter (a day, or an instant whose UTC day stands for it). */
const dayOf = (v: string) => (/^\d{4}-\d{2}-\d{2}/.exec(v)?.[0] ?? v).slice(0, 10)

/** success (2xx), error (400 and up), other (neither), or one numeric code. */
export type StatusFilter = { kind: 'success' | 'error' | 'other' } | { kind: 'code'; code: number }

const ROWS = {
  /** Case-insensitive substring of the body. */
  q: filter({
    keys: { q: { param: 'q', schema: text } },
    says: (v) => (v.q.trim() ? `text "${v.q.trim()}"` : null),
    read: (sent, r) => r.text('q', sent('q'), MAX_Q),
    fileName: (q) => `text-${q.slice(0, 40)}`,
  }),
  /** Digits of the other party, whole or partial; any formatting is stripped. */
  party: filter({
    keys: { party: { param: 'party', schema: digits, dropped: { label: 'Other party', must: 'not a phone number' } } },
    says: (v) => (v.party ? `party ${v.party}` : null),
    read: (sent, r) => r.digits('party', sent('party')),
    fileName: (party) => `party-${party}`,
  }),
  direction: filter({
    keys: {
      dir: {
        param: 'direction',
        schema: orNull(['inbound', 'outbound']),
        dropped: { label: 'Direction', must: 'neither inbound nor outbound' },
      },
    },
    says: (v) => v.dir,
    read: (sent, r) => oneOf(sent, r, 'direction', ['inbound', 'outbound']),
    fileName: (direction) => direction,
  }),
  /** The page offers success, error and other; the server also takes a three-digit code. */
  status: filter({
    keys: {
      status: {
        param: 'status',
        schema: orNull(['success', 'error', 'other']),
        dropped: { label: 'Status', must: 'none of success, error or other' },
      },
    },
    says: (v) => (v.status ? `status ${v.status}` : null),
    read: (sent, r): StatusFilter | null => {
      const st = sent('status')
      if (st === undefined || st === '') return null
      if (st === 'success' || st === 'error' || st === 'other') return { kind: st }
      if (/^\d{3}$/.test(st)) return { kind: 'code', code: Number(st) }
      return r.fail('status', 'status must be success, error, other or a three-digit code such as 503.')
    },
    fileName: (status) => (status.kind === 'code' ? `status-${status.code}` : status.kind),
  }),
  media: filter({
    keys: { media: { param: 'media', schema: orNull(['yes', 'no']), dropped: { label: 'Media', must: 'neither yes nor no' } } },
    says: (v) => (v.media ? (v.media === 'yes' ? 'with media' : 'without media') : null),
    read: (sent, r) => {
      const media = oneOf(sent, r, 'media', ['yes', 'no'])
      return media === null ? null : media === 'yes'
    },
    fileName: (media) => (media ? 'with-media' : 'no-media'),
  }),
  /**
   * Whole days of the zone the page shows, `to` included; the index takes a UTC day or an
   * instant for each. The page says them apart, as the span.
   */
  dates: filter({
    keys: {
      from: { param: 'from', schema: day, dropped: { label: 'From', must: REAL_DAY } },
      to: { param: 'to', schema: day, dropped: { label: 'To', must: REAL_DAY } },
    },
    send: (v, days) => days(v.from, v.to),
    says: () => null,
    read: (sent, r) => {
      const from = r.date('from', sent('from'))
      const to = r.date('to', sent('to'))
      if (from && to && from.start >= to.endExclusive) r.fail('to', 'to must not be before from.')
      if (!from && !to) return null
      return {
        from: from?.start ?? null,
        /** Exclusive upper bound (a whole `to` day is turned into the next midnight). */
        toExclusive: to?.isDay ? to.endExclusive : null,
        toInclusive: to && !to.isDay ? to.start : null,
      }
    },
    fileName: (_, sent) => {
      const from = sent('from')
      const to = sent('to')
      return `${from ? dayOf(from) : 'start'}-to-${to ? dayOf(to) : 'now'}`
    },
  }),
  /** Account numbers (digits); absent = all numbers. The scope: every roll-up is kept per number. */
  numbers: filter({
    keys: {
      numbers: {
        param: 'numbers',
        schema: numberList,
        dropped: { label: 'Numbers', must: 'not a list of account numbers (6 to 15 digits each, separated by commas)' },
      },
    },
    says: (v) => (v.numbers.length ? `numbers ${v.numbers.join(', ')}` : null),
    read: (sent, r) => {
      const nums = sent('numbers')
      if (nums === undefined || nums === '') return null
      const list = nums.split(',').map((s) => s.trim().replace(/^\+/, ''))
      if (list.length > MAX_NUMBERS) r.fail('numbers', `numbers lists at most ${MAX_NUMBERS} numbers.`)
      for (const n of list)
        if (!LINE_KEY.test(n)) r.fail('numbers', 'numbers must be comma-separated account numbers (6 to 15 digits each).')
      return [...new Set(list)]
    },
    fileName: (numbers) => (numbers.length === 1 ? (numbers[0] ?? '') : `${numbers.length}-numbers`),
  }),
}

type Rows = typeof ROWS
export type FilterName = keyof Rows
type KeysOf<N extends FilterName> = Rows[N]['keys']

/** A search's filters as the server reads them: each filter's value, null when not set. */
export type FilterValues = { [N in FilterName]: NonNullable<ReturnType<Rows[N]['read']>> | null }

/** The Search page's query keys of the filters (`tz`, the zone it shows, is not one). */
export type SearchPageKey = { [N in FilterName]: keyof KeysOf<N> & string }[FilterName]
type KeyOf<P extends SearchPageKey> = { [N in FilterName]: P extends keyof KeysOf<N> ? KeysOf<N>[P] : never }[FilterName]
/** How the page reads each key (src/lib/route-params.ts searchSearch). */
export type SearchPageShape = { [P in SearchPageKey]: KeyOf<P>['schema'] }
export type SearchPageValues = { [P in SearchPageKey]: z.output<SearchPageShape[P]> }

/** The index API's search parameters (INDEX_PATHS.search and .export), each a word on the wire; absent = no filter. */
export type SearchParamName = KeyOf<SearchPageKey>['param']
export type SearchParams = { [P in SearchParamName]?: string }

/** The table, each row typed by its own name (so a record keyed by filter name lines up with it). */
export const SEARCH_FILTERS: { [N in FilterName]: Rows[N] } = ROWS
export const FILTER_NAMES = Object.keys(SEARCH_FILTERS) as FilterName[]
const ROW_LIST: ReadonlyArray<readonly [FilterName, FilterRow<Keys, unknown>]> = FILTER_NAMES.map((n) => [n, SEARCH_FILTERS[n]] as const)
const KEY_LIST: ReadonlyArray<readonly [SearchPageKey, PageKey]> = ROW_LIST.flatMap(([, row]) =>
  Object.entries(row.keys).map(([k, d]) => [k as SearchPageKey, d] as const),
)

export const SEARCH_PAGE_KEYS: readonly SearchPageKey[] = KEY_LIST.map(([k]) => k)
export const SEARCH_PARAM_NAMES = KEY_LIST.map(([, d]) => d.param) as readonly SearchParamName[]
export const SEARCH_PAGE_SHAPE = Object.fromEntries(KEY_LIST.map(([k, d]) => [k, d.schema])) as SearchPageShape
/** The index API's parameter of each page key (`dir` → `direction`). */
export const PARAM_OF_KEY = Object.fromEntries(KEY_LIST.map(([k, d]) => [k, d.param])) as Record<SearchPageKey, SearchParamName>
/** Each page key a link may carry a value of that the page cannot read: its name on the page and what it must be. */
export const DROPPED_FIELDS: Partial<Record<SearchPageKey, { label: string; must: string }>> = Object.fromEntries(
  KEY_LIST.flatMap(([k, d]) => (d.dropped ? [[k, d.dropped] as const] : [])),
)

/** A page value as its URL writes it, trimmed; undefined when it is the empty default. */
function wordOf(v: unknown): string | undefined {
  const w = Array.isArray(v) ? v.join(',') : typeof v === 'string' ? v.trim() : undefined
  return w || undefined
}

/** The page's filter keys with their URL words (unset ones left out), in the URL's order. */
export function pageWords(v: SearchPageValues): Array<[SearchPageKey, string]> {
  return KEY_LIST.flatMap(([k]) => {
    const w = wordOf(v[k])
    return w === undefined ? [] : [[k, w] as [SearchPageKey, string]]
  })
}

/** The index API's query for the page's values (absent = no filter); `days` turns its days into instants of its zone. */
export function searchParamsOf(v: SearchPageValues, days: DayRange): SearchParams {
  const out: Partial<Record<string, string>> = {}
  for (const [, row] of ROW_LIST) {
    if (row.send) Object.assign(out, row.send(v, days))
    else
      for (const [k, d] of Object.entries(row.keys)) {
        const w = wordOf(v[k as SearchPageKey])
        if (w !== undefined) out[d.param] = w
      }
  }
  return out
}

/** The page's filters in words ("text "refund"", "inbound", "with media"), for its summary, printout and file names. */
export const filterWords = (v: SearchPageValues): string[] => ROW_LIST.flatMap(([, row]) => row.says(v) ?? [])

/** Reads and checks every filter's parameters, in the table's order (the first refusal is the answer). */
export function readFilters(sent: Sent, r: ParamReaders): FilterValues {
  return Object.fromEntries(ROW_LIST.map(([n, row]) => [n, row.read(sent, r)])) as FilterValues
}

/** The filters a search sets, in the table's order. */
export const filtersSet = (f: FilterValues): FilterName[] => FILTER_NAMES.filter((n) => f[n] !== null)

/** Whether a search sets no filter but those named. */
export const setWithin = (f: FilterValues, names: readonly FilterName[]): boolean => filtersSet(f).every((n) => names.includes(n))

/** The file-name part of each filter the search sets, in the table's order. */
export function fileNameParts(f: FilterValues, sent: Sent): Array<[FilterName, string]> {
  return ROW_LIST.flatMap(([n, row]) => {
    const v = f[n]
    return v === null ? [] : [[n, row.fileName(v, sent)] as [FilterName, string]]
  })
}
