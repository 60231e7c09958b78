import { columnVisibilityFeature, rowSortingFeature, tableFeatures, type SortingState } from '@tanstack/react-table'

/**
 * The one feature set both tables use: sort state and column visibility. Rows are filtered and
 * sorted before they reach the table (`sortRows`), and the table is only ever given the rows in
 * view: building a row model for 10,000 rows nobody sees was the largest cost of the first paint.
 */
export const features = tableFeatures({
  rowSortingFeature,
  columnVisibilityFeature,
})

export type Features = typeof features

/** `number.asc` ⇄ SortingState, for the query string. */
export function parseSort(raw: string | null, allowed: readonly string[]): SortingState {
  if (!raw) return []
  const [id, dir] = raw.split('.')
  return id && allowed.includes(id) ? [{ id, desc: dir === 'desc' }] : []
}

export function sortToParam(sorting: SortingState): string | null {
  const s = sorting[0]
  return s ? `${s.id}.${s.desc ? 'desc' : 'asc'}` : null
}

export type SortValue<T> = (row: T) => string | number

/**
 * Stable sort by one column: keys computed once per row (strings compared case-insensitively),
 * ties kept in their original order, descending by reversing the comparison.
 */
export function sortRows<T>(rows: readonly T[], sorting: SortingState, values: Record<string, SortValue<T>>): readonly T[] {
  const s = sorting[0]
  const value = s ? values[s.id] : undefined
  if (!s || !value) return rows
  const keys = rows.map((r) => {
    const v = value(r)
    return typeof v === 'string' ? v.toLowerCase() : v
  })
  const order = rows.map((_, i) => i)
  const dir = s.desc ? -1 : 1
  order.sort((a, b) => {
    const ka = keys[a]!
    const kb = keys[b]!
    return ka < kb ? -dir : ka > kb ? dir : a - b
  })
  return order.map((i) => rows[i]!)
}
