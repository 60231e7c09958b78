import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import type { SearchParams } from '../../../contract/index-api'
import { searchQuery } from '../../api/index-api'

/** The search's pages, loaded as the reader asks for more; the previous answer kept while a new one loads. */
export function useSearchResults(params: SearchParams, enabled: boolean) {
  const result = useInfiniteQuery({ ...searchQuery(params), enabled, placeholderData: keepPreviousData })
  const rows = useMemo(() => result.data?.pages.flatMap((p) => p.rows) ?? [], [result.data])
  const first = result.data?.pages[0]
  return { result, rows, first, total: first?.total ?? null, capped: first?.totalCapped ?? false }
}

export type SearchResults = ReturnType<typeof useSearchResults>
