import { useMemo } from 'react'
import type { HistoryPage } from '../../api/history'
import { parseSort, sortRows } from '../../components/data-table/features'
import { formatDate, type Zone } from '../../lib/dates'
import type { HistorySearch } from '../../lib/route-params'
import { HISTORY_COLUMNS, HISTORY_SORTABLE } from './columns'
import { filterMessages } from './filters'
import { filtersOf } from './filters-bar'

/** The loaded page's messages as the URL's filters and sort show them, and the dates they span. */
export function useVisibleMessages(messages: HistoryPage['messages'] | undefined, search: HistorySearch, zone: Zone) {
  const filters = filtersOf(search)
  const sorting = useMemo(() => parseSort(search.sort || null, HISTORY_SORTABLE), [search.sort])
  const visible = useMemo(
    () => (messages ? sortRows(filterMessages(messages, filters), sorting, HISTORY_COLUMNS) : []),
    [messages, filters.direction, filters.status, filters.media, filters.q, sorting], // eslint-disable-line react-hooks/exhaustive-deps
  )
  const first = visible.reduce<number | null>((a, m) => (m.dateMs !== null && (a === null || m.dateMs < a) ? m.dateMs : a), null)
  const last = visible.reduce<number | null>((a, m) => (m.dateMs !== null && (a === null || m.dateMs > a) ? m.dateMs : a), null)
  const span = first !== null && last !== null ? `${formatDate(first, zone)} – ${formatDate(last, zone)}` : null
  return { filters, sorting, visible, span }
}
