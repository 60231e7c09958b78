import { columnVisibilityFeature, metaHelper, rowSortingFeature, tableFeatures, type SortingState } from '@tanstack/react-table'

/**
 * The one feature set both tables use: sort state and column visibility. Rows are filtered and
 * sorted before they reach the table (`sortRows`), and the table is only ever given the rows in
 * view: building a row model for 10,000 rows nobody sees was the largest cost of the first paint.
 */
export const features = tableFeatures({
  rowSortingFeature,
  columnVisibilityFeature,
  columnMeta: metaHelper<ColumnLayout>(),
})

/**
 * Where a column's value goes when a row is shown as a card (narrow screens, see VirtualTable):
 * - `title`: the card's first line, bold (the number; the message's date);
 * - `meta`: short values on the line under the title, labelled for screen readers only (type,
 *   direction, party, status); they must read on their own ("Inbound", "✓ Delivered");
 * - `body`: full width with a visible label, and the room (message text, callback URLs, findings);
 * - `field`: a labelled value (the default);
 * - `details`: inside a closed disclosure at the card's foot (identifiers); in the table, below
 *   1,280 px, the same disclosure stands in the cell so the column takes 6rem, not 17;
 * - `hidden`: left out of the card (a running position the list already gives).
 */
export type CardRole = 'title' | 'meta' | 'body' | 'field' | 'details' | 'hidden'

export interface ColumnLayout {
  card?: CardRole
  /** The card's label for this value; the header text when the header is a string. */
  cardLabel?: string
  /**
   * Table mode: the least width an `auto` column may get (CSS length, rem or px). The table
   * never squeezes below the sum of its columns' widths; it scrolls inside its own region
   * instead, so no column drops under what its content needs. Default 12rem.
   */
  minWidth?: string
}

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
