import * as z from 'zod/mini'
import { isRealDay } from '../../contract/upstream-values'

/**
 * One schema per route for its query string, parsed once where the route is matched
 * (contract/routes.ts) and handed to the page as typed props. A bad value never reaches a
 * component: each field falls back to its default on its own (`page=abc` → 1, `size=7` → 50),
 * so one bad parameter does not throw away the rest of a shared link.
 */

const text = z.catch(z._default(z.string(), ''), '')
const oneOf = <T extends string>(values: readonly [T, ...T[]], fallback: T) => z.catch(z._default(z.enum(values), fallback), fallback)
const orNull = <T extends string>(values: readonly [T, ...T[]]) => z.catch(z._default(z.nullable(z.enum(values)), null), null)
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
/** YYYY-MM-DD that names a real day, else empty. */
const day = z.catch(z._default(z.string().check(z.refine((v) => v === '' || isDay(v))), ''), '')
const digits = z.catch(
  z.prefault(
    z.pipe(
      z.string(),
      z.transform((v) => v.replace(/\D/g, '').slice(0, 20)),
    ),
    '',
  ),
  '',
)
const numberList = z.catch(
  z.prefault(
    z.pipe(
      z.string(),
      z.transform((v) =>
        v
          .split(',')
          .map((n) => n.replace(/\D/g, ''))
          .filter((n) => n.length > 0 && n.length <= 20)
          .slice(0, 500),
      ),
    ),
    '',
  ),
  [],
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
  size: posInt(50, 1000),
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
  /** Set when a link asked for a page past the end and was moved to the last page: says so. */
  past: optPosInt,
  /** The records a link named (`1001-1500`) before this server's smaller page cap refitted it: says so. */
  asked: recordRange,
})
export type HistorySearch = z.output<typeof historySearch>

export const searchSearch = z.object({
  q: text,
  party: digits,
  dir: orNull(['inbound', 'outbound']),
  status: orNull(['success', 'error', 'other']),
  media: orNull(['yes', 'no']),
  from: day,
  to: day,
  numbers: numberList,
  tz: zoneParam,
})
export type SearchSearch = z.output<typeof searchSearch>

export const threadSearch = z.object({
  tid: text,
  party: digits,
  tz: zoneParam,
  /** The message (its ordinal, oldest = 1) the thread opens at and marks: the one clicked. */
  at: optPosInt,
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

export const signInSearch = z.object({ next: text })

/** URLSearchParams → a plain object (the first value of each key) → the route's schema. */
export function parseSearch<T extends z.ZodMiniType>(schema: T, params: URLSearchParams): z.output<T> {
  const raw: Record<string, string> = {}
  for (const [k, v] of params) if (!(k in raw)) raw[k] = v
  return schema.parse(raw)
}
