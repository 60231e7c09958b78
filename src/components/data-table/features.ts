import {
  columnVisibilityFeature,
  rowSortingFeature,
  tableFeatures,
  type CellData,
  type RowData,
  type SortingState,
  type TableFeatures,
} from '@tanstack/react-table'

/**
 * The one feature set both tables use: sort state and column visibility. Rows are filtered and
 * sorted before they reach the table (`sortRows`), and the table is only ever given the rows in
 * view: building a row model for 10,000 rows nobody sees was the largest cost of the first paint.
 */
export const features = tableFeatures({
  rowSortingFeature,
  columnVisibilityFeature,
})

/**
 * Every column's `meta` is a ColumnLayout of its row type. TanStack Table v9 offers two ways to
 * type it: the features' `columnMeta` slot (one type for every table, so it cannot mention the
 * row) or merging into its `ColumnMeta` interface, which is generic in the row. The export and
 * sort values take a row, so it is the interface.
 */
/* eslint-disable @typescript-eslint/no-unused-vars, @typescript-eslint/no-empty-object-type -- a merge repeats the library's
   parameters (used or not) and adds its members through `extends` */
declare module '@tanstack/react-table' {
  interface ColumnMeta<
    in out TFeatures extends TableFeatures,
    in out TData extends RowData,
    TValue extends CellData = CellData,
  > extends ColumnLayout<TData> {}
}
/* eslint-enable @typescript-eslint/no-unused-vars, @typescript-eslint/no-empty-object-type */

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

/**
 * What a column says about itself, besides its header and cell: one place per column, so adding
 * a column is one edit (its toggle, width, export and sort come with it).
 */
export interface ColumnLayout<TData> {
  /** The column's name in the column toggles, the export header and screen-reader labels; default: the header text. */
  label?: string
  /** Table mode: the column's width (CSS length, or `auto` for a share of what is left). */
  width?: string
  /** Extra classes for the column's cells: text styling on the cell itself, not a wrapper element in every row. */
  cellClass?: string
  /** The text the column exports for a row: raw data, not formatted display. No export value, an empty cell. */
  exportValue?: (row: TData) => string
  /**
   * A column that exports as several cells (one per kind of thing it shows), each with its own
   * header: used instead of exportValue, so a spreadsheet can filter on each kind by itself.
   */
  exportCells?: { headers: readonly string[]; values: (row: TData) => readonly string[] }
  /** What the column sorts by (see sortRows); default: its export value. */
  sortValue?: SortValue<TData>
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

/** The part of a column definition these helpers read. */
export interface ColumnShape<T> {
  id?: string
  header?: unknown
  meta?: ColumnLayout<T>
}

/** A column's name: its label, else its header text, else its id. */
export function columnLabel<T>(column: ColumnShape<T>): string {
  return column.meta?.label ?? (typeof column.header === 'string' ? column.header : (column.id ?? ''))
}

/** The card's label for a column's value: its card label, else its name. */
export function cardLabel<T>(column: ColumnShape<T>): string {
  return column.meta?.cardLabel ?? columnLabel(column)
}

export function columnIds<T>(columns: ReadonlyArray<ColumnShape<T>>): string[] {
  return columns.flatMap((c) => (c.id ? [c.id] : []))
}

/** The columns that say what they sort by. */
export function sortableIds<T>(columns: ReadonlyArray<ColumnShape<T>>): string[] {
  return columns.flatMap((c) => (c.id && (c.meta?.sortValue ?? c.meta?.exportValue) ? [c.id] : []))
}

/** The shown columns (by id, in that order) of the given rows as text: the export of exactly what is on screen. */
export function exportTable<T>(
  columns: ReadonlyArray<ColumnShape<T>>,
  ids: readonly string[],
  rows: readonly T[],
): { header: string[]; rows: string[][] } {
  const shown = ids.flatMap((id) => columns.filter((c) => c.id === id))
  return {
    header: shown.flatMap((c) => c.meta?.exportCells?.headers ?? [columnLabel(c)]),
    rows: rows.map((r) => shown.flatMap((c) => c.meta?.exportCells?.values(r) ?? [c.meta?.exportValue?.(r) ?? ''])),
  }
}

/**
 * Stable sort by one column, by its sort value: keys computed once per row (strings compared
 * case-insensitively), ties kept in their original order, descending by reversing the comparison.
 */
export function sortRows<T>(rows: readonly T[], sorting: SortingState, columns: ReadonlyArray<ColumnShape<T>>): readonly T[] {
  const s = sorting[0]
  const meta = s ? columns.find((c) => c.id === s.id)?.meta : undefined
  const value = meta?.sortValue ?? meta?.exportValue
  if (!s || !value) return rows
  // Each row's key is read once, and ties keep the rows' order.
  const keyed = rows.map((row, i) => {
    const v = value(row)
    return { row, i, key: typeof v === 'string' ? v.toLowerCase() : v }
  })
  const dir = s.desc ? -1 : 1
  keyed.sort((a, b) => (a.key < b.key ? -dir : a.key > b.key ? dir : a.i - b.i))
  return keyed.map((k) => k.row)
}
