import { columnVisibilityFeature, createSortedRowModel, rowSortingFeature, sortFn_basic, sortFn_text, tableFeatures } from '@tanstack/react-table'

/**
 * The one feature set both tables use: client sorting and column visibility. Filtering is done
 * on the data before it reaches the table (precomputed search text is cheaper than a filter fn per cell).
 */
export const features = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { text: sortFn_text, basic: sortFn_basic },
  columnVisibilityFeature,
})

export type Features = typeof features

/** `number.asc` ⇄ SortingState, for the query string. */
export function parseSort(raw: string | null, allowed: readonly string[]): Array<{ id: string; desc: boolean }> {
  if (!raw) return []
  const [id, dir] = raw.split('.')
  return id && allowed.includes(id) ? [{ id, desc: dir === 'desc' }] : []
}

export function sortToParam(sorting: Array<{ id: string; desc: boolean }>): string | null {
  const s = sorting[0]
  return s ? `${s.id}.${s.desc ? 'desc' : 'asc'}` : null
}
