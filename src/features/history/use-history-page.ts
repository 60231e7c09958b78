import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { afterPaint } from '../../lib/after-paint'
import { historyKeys, historyPrefetchQuery, historyQuery, reportShown, type HistoryPage } from '../../api/history'
import { metaQuery } from '../../api/meta'
import type { HistorySearch } from '../../lib/route-params'
import { pageCount, pageRange, refitLink } from '../../lib/range'
import { useSetParams } from '../../lib/navigation'

/**
 * The paged history's data: the page asked for by the URL, the previous page kept on screen
 * while the next loads (`keepPreviousData`: the page is keyed by number and tid, so it is never
 * another number's rows), the last page that loaded kept through a failed page change, drift
 * detection, the next page prefetched, a page past the end moved to the last page, and a link
 * whose page size this server does not allow moved to the page holding the records it named.
 */
export function useHistoryPage(number: string, search: HistorySearch, cap: number) {
  const queryClient = useQueryClient()
  const setParams = useSetParams('/numbers/$number')
  const { tid } = search
  // The cap decides which records a link's page names, so nothing is asked for before it is
  // known (a failed /api/meta leaves the default, as useMeta does).
  const capKnown = !useQuery(metaQuery()).isPending
  // `size=500&page=3` names records 1,001–1,500 whatever this server's cap: the page shown is
  // the one that holds the first of them, and the URL is rewritten to say so (effect below).
  const fitted = refitLink(search.page, search.size, cap, search.mark)
  const { size } = fitted

  // The last page that loaded (not a placeholder): kept on screen when a page change fails.
  // Derived state set during render (React's pattern for "information from previous renders").
  const [shown, setShown] = useState<HistoryPage | undefined>(undefined)
  const known = shown?.total ?? null
  const pages = known === null ? null : pageCount(known, size)
  const pastEnd = pages !== null && fitted.page > pages
  const page = pastEnd ? pages : fitted.page
  const { start, end } = pageRange(page, size, known)

  const result = useQuery({ ...historyQuery(number, tid, start, end), enabled: tid !== '' && capKnown, placeholderData: keepPreviousData })

  // The link's records, refitted: the URL names the page shown, and keeps the range the link
  // named (`asked`) so the pager can say why the page holds fewer of them.
  const { asked } = fitted
  useEffect(() => {
    if (!capKnown || !asked) return
    void setParams({ size: size === 50 ? null : size, page: fitted.page <= 1 ? null : fitted.page, asked }, { replace: true })
  }, [capKnown, asked, size, fitted.page, setParams])
  const fresh = result.data && !result.isPlaceholderData ? result.data : undefined
  if (fresh && fresh !== shown) setShown(fresh)

  // Drift: record numbers are positions, so new messages shift every page (spec §4.1).
  const [anchor, setAnchor] = useState<string | null | undefined>(undefined)
  if (fresh && anchor === undefined) setAnchor(fresh.mostRecentId)
  const drifted = fresh && anchor !== undefined && fresh.mostRecentId !== anchor ? fresh : null

  // A link past the last page lands on the last page, and the URL says where it came from so
  // the page can say so (and a reload does not ask for the nonsense range again).
  useEffect(() => {
    if (pastEnd) void setParams({ page: pages <= 1 ? null : pages, past: search.page, mark: null, o: null, date: null }, { replace: true })
  }, [pastEnd, pages, search.page, setParams])

  // A link that names its message by ordinal (`o`): the position it has now, in this history's
  // total, is the one marked, on the page that holds it (the URL says so; a reload works it out again).
  const ordinal = search.o
  useEffect(() => {
    if (!fresh || ordinal === null) return
    const position = fresh.total - ordinal + 1
    if (position < 1 || position === search.mark) return
    const p = Math.ceil(position / size)
    void setParams({ page: p <= 1 ? null : p, mark: position }, { replace: true })
  }, [fresh, ordinal, search.mark, size, setParams])

  // Prefetch the next page so "Next page" swaps rows at once; once this page is painted, so the
  // request's start is not between the page's render and its paint.
  useEffect(() => {
    if (!fresh || tid === '' || page >= pageCount(fresh.total, size)) return
    const next = pageRange(page + 1, size, fresh.total)
    return afterPaint(() => {
      // A prefetch that fails costs nothing: the page shows its own error if it is opened.
      queryClient.query(historyPrefetchQuery(number, tid, next.start, next.end)).catch(() => undefined)
    })
  }, [fresh, page, size, number, tid, queryClient])

  // A page that was fetched ahead is read when it is shown, so the access log hears of it once it is painted.
  useEffect(() => {
    if (fresh)
      return afterPaint(() => {
        reportShown(fresh)
      })
  }, [fresh])

  const display = result.data ?? shown
  return {
    result,
    shown: display,
    page,
    size,
    start,
    end,
    total: display?.total ?? null,
    pastEnd,
    drifted,
    goPage: (p: number) => setParams({ page: p <= 1 ? null : p, more: null, past: null, mark: null, o: null, date: null, asked: null }),
    goSize: (s: number) => {
      // Keep the first record in view: the new page is the one that contains it (the rows kept on
      // screen after a page change failed, not the page that did not load).
      const first = result.isError && display ? display.start : start
      const p = Math.floor((first - 1) / s) + 1
      return setParams({ size: s === 50 ? null : s, page: p <= 1 ? null : p, more: null, past: null, asked: null })
    },
    goNewest: () => {
      queryClient.removeQueries({ queryKey: historyKeys.number(tid, number) })
      setAnchor(undefined)
      void setParams({ page: null, more: null, past: null, mark: null, o: null, date: null, asked: null })
    },
    refresh: () => {
      setAnchor(undefined)
      void queryClient.invalidateQueries({ queryKey: historyKeys.number(tid, number) })
    },
  }
}
