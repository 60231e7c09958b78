import { useLocation } from '@tanstack/react-router'
import { SEARCH_FILTERS } from '../../contract/search-filters'
import { useEffect } from 'react'
import type * as z from 'zod/mini'
import { forgetOpenedLink, openedSearch } from '../lib/opened-link'
import { droppedParams, isUnset, parseSearchString } from '../lib/route-params'

/**
 * "This link's From (2026-13-45) is not a real day …": a field of the page's link that could not
 * be read, said in words where the filters are, so a bad day or a garbled value in a shared link
 * does not quietly widen what the page shows. The router has already left the field out of the
 * address, so the link as opened is read (src/lib/opened-link.ts). A field's line goes once the
 * page's own control sets it, and the whole note once the page is left.
 */
export function DroppedParams<T extends z.ZodMiniType<Record<string, unknown>>>({
  schema,
  fields,
}: {
  schema: T
  /** Each judged field: its name on the page and what it must be. */
  fields: Partial<Record<keyof z.output<T> & string, { label: string; must: string }>>
}) {
  const { pathname, searchStr } = useLocation({ select: (l) => ({ pathname: l.pathname, searchStr: l.searchStr }) })
  const asOpened = openedSearch(pathname)
  // Leaving the page lets the opened link go (not StrictMode's trial unmount: the address is still this page's).
  useEffect(
    () => () => {
      if (window.location.pathname !== pathname) forgetOpenedLink()
    },
    [pathname],
  )
  const keys = Object.keys(fields) as (keyof z.output<T> & string)[]
  const now = schema.parse(parseSearchString(searchStr.replace(/^\?/, ''))) as Record<string, unknown>
  // Still left out: the page's control for it has not set it since.
  const dropped = asOpened === null ? [] : droppedParams(schema, asOpened, keys).filter(({ key }) => isUnset(now[key]))
  if (dropped.length === 0) return null
  return (
    <div role="status" className="mt-2 rounded border border-amber-600 bg-amber-50 p-2 text-sm text-amber-950">
      <p>
        This link had {dropped.length === 1 ? 'a filter' : 'filters'} this page could not read, so{' '}
        {dropped.length === 1 ? 'it was' : 'they were'} left out and the page is not limited by {dropped.length === 1 ? 'it' : 'them'}:
      </p>
      <ul className="mt-1 list-disc pl-5">
        {dropped.map(({ key, value }) => {
          const f = fields[key]
          return (
            <li key={key}>
              {f?.label ?? key} “<span className="break-all">{value.length > 60 ? `${value.slice(0, 60)}…` : value}</span>”:{' '}
              {f?.must ?? 'not a value this page knows'}.
            </li>
          )
        })}
      </ul>
    </div>
  )
}

/** The span of days a page filters by, in the search filters' words (contract/search-filters.ts). */
export const DAY_FIELDS = { from: SEARCH_FILTERS.dates.keys.from.dropped, to: SEARCH_FILTERS.dates.keys.to.dropped }
