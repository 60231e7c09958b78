import { LINE_KEY } from './lines.ts'
import * as z from 'zod/mini'
import { isRealDay } from './upstream-values.ts'

/**
 * How a page reads its query string's words (zod/mini, as src/lib/route-params.ts's schemas):
 * each field falls back to its default on its own, so one bad value does not throw away the
 * rest of a shared link. Here rather than in src/ because the search filters' table
 * (search-filters.ts) names each filter's reader, and both sides import that table.
 */

/** Any text; absent is ''. */
export const text = z.catch(z._default(z.string(), ''), '')

/** One of `values`, else null. */
export const orNull = <const T extends string>(values: readonly [T, ...T[]]) => z.catch(z._default(z.nullable(z.enum(values)), null), null)

/** YYYY-MM-DD that names a real day, else empty. */
export const day = z.catch(z._default(z.string().check(z.refine((v) => v === '' || isRealDay(v))), ''), '')

/** A phone number's digits, any formatting dropped (at most 20); absent is ''. */
export const digits = z.catch(
  z.prefault(
    z.pipe(
      z.string(),
      z.transform((v) => v.replace(/\D/g, '').slice(0, 20)),
    ),
    '',
  ),
  '',
)

/**
 * Account numbers, comma-separated, any formatting: each must be one (6 to 15 digits), or the
 * whole list is left out (and DroppedParams says so). Members that were not numbers were dropped
 * one by one, and one too short to be a number ("123") reached the server, whose 400 the page
 * showed as "a request the server refused".
 */
export const numberList = z.catch(
  z.prefault(
    z.pipe(
      z.pipe(
        z.string(),
        z.transform((v) =>
          v
            .split(',')
            .map((n) => n.trim())
            .filter((n) => n.length > 0)
            .slice(0, 500)
            .map((n) => (LINE_KEY.test(n) ? n : /^\+?[\d\s().-]+$/.test(n) ? n.replace(/\D/g, '') : '')),
        ),
      ),
      z.array(z.string().check(z.regex(LINE_KEY))),
    ),
    '',
  ),
  [],
)
