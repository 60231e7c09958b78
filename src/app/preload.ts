import type { QueryClient } from '@tanstack/react-query'
import { historyQuery } from '../api/history'
import { DEFAULT_META } from '../api/meta'
import { fitSize, pageRange } from '../lib/range'
import { historySearch, parseSearch } from '../lib/route-params'
import { matchRoute } from './routes'

/**
 * Starts the data the first page needs as soon as the entry script runs, in parallel with the
 * page's lazy chunk, instead of after it: a history link's first page of records is requested
 * before the history page's code has arrived. The query is the exact one the page will ask for
 * (same key, same range as use-history-page.ts computes before the total is known), so the page
 * finds it in flight or in the cache and asks nothing twice.
 */
export function preloadFirstPage(client: QueryClient, location: { pathname: string; search: string }): void {
  const route = matchRoute(location.pathname)
  if (route.name !== 'history') return
  const search = parseSearch(historySearch, new URLSearchParams(location.search))
  if (search.tid === '') return
  const { start, end } = pageRange(search.page, fitSize(search.size, DEFAULT_META.historyPageCap))
  void client.prefetchQuery(historyQuery(route.number, search.tid, start, end))
}
