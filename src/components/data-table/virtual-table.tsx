import {
  useTable,
  type ColumnDef,
  type ColumnVisibilityState,
  type Header,
  type Row,
  type RowData,
  type SortingState,
  type Updater,
} from '@tanstack/react-table'
import { useId, useMemo, useRef, type ReactNode } from 'react'
import { TableSkeleton } from '../empty-state'
import { CardList } from './card-list'
import { renderCell } from './cell'
import { ScrollRegion } from './scroll-region'
import { cardLabel, features, type CardRole, type Features } from './features'
import { tableMinWidth, useMedia, usePrinting } from './layout'
import { useRowWindow } from './use-row-window'

/**
 * A semantic, virtualised table. The caller hands over every row, already filtered and sorted;
 * only the rows in view (plus overscan) reach TanStack Table and the DOM. Spacer rows keep the
 * scroll height honest, and aria-rowcount/aria-rowindex tell a screen reader where each rendered
 * row sits in the whole set (WAI-ARIA table pattern). The virtualizer and the table live here,
 * the lowest component, so scrolling re-renders nothing above it.
 */
export interface VirtualTableProps<TData extends RowData> {
  rows: readonly TData[]
  // Column value types differ per column; the table only needs their shared shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  columns: Array<ColumnDef<Features, TData, any>>
  getRowId: (row: TData) => string
  sorting: SortingState
  onSortingChange: (next: SortingState) => void
  columnVisibility?: ColumnVisibilityState
  label: string
  estimateRowHeight: number
  height?: string
  dynamic?: boolean
  /**
   * While the rows are on their way: the headers are shown and the body holds a skeleton with
   * this label. The table is then already mounted when the data lands, so the first rows are
   * an update of a warm component, not a mount of the whole table (see README, Performance).
   */
  loading?: string
  /** Estimated height of a row shown as a card (narrow screens); cards are measured once shown. */
  estimateCardHeight?: number
}

/** Below this width each row is a card (see ColumnLayout in ./features). A media query: known at the first render, so the layout never switches after paint. */
export const CARDS_QUERY = '(max-width: 899.98px)'
/** Below this width `details` columns fold into a disclosure in their cell, so the body gets the room. */
export const COMPACT_QUERY = '(max-width: 1279.98px)'
const FOLDED_WIDTH = '6rem'

export function VirtualTable<TData extends RowData>({
  rows,
  columns,
  getRowId,
  sorting,
  onSortingChange,
  columnVisibility = NO_HIDDEN,
  label,
  estimateRowHeight,
  height = '70vh',
  dynamic = false,
  loading,
  estimateCardHeight = 180,
}: VirtualTableProps<TData>) {
  const scrollRef = useRef<HTMLDivElement>(null)
  const baseId = useId()
  const printing = usePrinting()
  // Paper gets the table (a transcript), whatever the screen was showing.
  const cards = useMedia(CARDS_QUERY) && !printing
  const compact = useMedia(COMPACT_QUERY) && !printing
  // Cards grow with their content (URLs and bodies wrap), so they are measured like history rows.
  const measured = dynamic || cards
  const { first, last, top, bottom, measure } = useRowWindow({
    rows,
    getRowId,
    measured,
    printing,
    estimateSize: cards ? estimateCardHeight : estimateRowHeight,
    rowHeight: estimateRowHeight,
    scrollRef,
  })
  const visibility = usePrintVisibility(printing, columnVisibility, columns)
  const table = useTable(
    {
      features,
      columns,
      data: rows.slice(first, last + 1),
      getRowId,
      state: { sorting, columnVisibility: visibility },
      onSortingChange: (u: Updater<SortingState>) => onSortingChange(typeof u === 'function' ? u(sorting) : u),
      manualSorting: true,
      enableSortingRemoval: true,
    },
    selectNothing,
  )
  const tableRows = table.getRowModel().rows
  const headerGroups = table.getHeaderGroups()
  const leaves = headerGroups[0]?.headers ?? []
  const leafCount = leaves.length || 1
  const widthOf = (meta: { card?: CardRole; width?: string } | undefined) =>
    compact && meta?.card === 'details' ? FOLDED_WIDTH : meta?.width
  const minWidth = tableMinWidth(
    leaves.map((h) => ({ width: widthOf(h.column.columnDef.meta), minWidth: h.column.columnDef.meta?.minWidth })),
  )

  if (cards)
    return (
      <CardList
        rows={tableRows}
        first={first}
        total={rows.length}
        top={top}
        bottom={bottom}
        leaves={leaves}
        sorting={sorting}
        onSortingChange={onSortingChange}
        label={label}
        loading={loading}
        height={height}
        scrollRef={scrollRef}
        measure={measure}
        baseId={baseId}
      />
    )

  return (
    <ScrollRegion ref={scrollRef} label={label} height={height}>
      <table
        className="w-full table-fixed border-collapse text-sm"
        style={{ minWidth }}
        aria-label={label}
        aria-rowcount={loading ? undefined : rows.length + 1}
        aria-busy={loading ? true : undefined}
      >
        <colgroup>
          {leaves.map((h) => (
            <col key={h.id} data-col={h.column.id} style={{ width: widthOf(h.column.columnDef.meta) }} />
          ))}
        </colgroup>
        <thead className="sticky top-0 z-10 bg-slate-100">
          {headerGroups.map((group) => (
            <tr key={group.id} aria-rowindex={1}>
              {group.headers.map((header) => (
                <HeaderCell key={header.id} header={header} title={<table.FlexRender header={header} />} />
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {loading ? <LoadingRow label={loading} colSpan={leafCount} /> : null}
          {top > 0 && <SpacerRow height={top} colSpan={leafCount} />}
          {tableRows.map((row, i) => (
            <BodyRow
              key={row.id}
              row={row}
              index={first + i}
              measure={dynamic ? measure : undefined}
              height={dynamic ? undefined : estimateRowHeight}
              compact={compact}
            />
          ))}
          {bottom > 0 && <SpacerRow height={bottom} colSpan={leafCount} />}
        </tbody>
      </table>
    </ScrollRegion>
  )
}

/** A column header: a sort button where the column sorts, and aria-sort saying how it is sorted. */
function HeaderCell<TData extends RowData>({ header, title }: { header: Header<Features, TData, unknown>; title: ReactNode }) {
  const sorted = header.column.getIsSorted()
  const canSort = header.column.getCanSort()
  return (
    <th
      scope="col"
      className="border-b border-slate-300 px-2 py-2 text-left font-semibold text-slate-800"
      aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : canSort ? 'none' : undefined}
    >
      {canSort ? (
        <button
          type="button"
          className="inline-flex min-h-6 items-center gap-1 rounded hover:underline"
          onClick={header.column.getToggleSortingHandler()}
        >
          {title}
          <span aria-hidden="true" className="text-slate-600 print:hidden">
            {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}
          </span>
        </button>
      ) : (
        title
      )}
    </th>
  )
}

/**
 * One rendered row at its place in the whole set (aria-rowindex counts the header row as 1).
 * `measure` is the virtualizer's, for rows that grow with their content; else the row has its fixed height.
 * In a compact layout `details` columns fold into a disclosure, so the message body gets the room.
 */
function BodyRow<TData extends RowData>({
  row,
  index,
  measure,
  height,
  compact,
}: {
  row: Row<Features, TData>
  index: number
  measure: ((el: Element | null) => void) | undefined
  height: number | undefined
  compact: boolean
}) {
  return (
    <tr
      data-index={index}
      ref={measure}
      aria-rowindex={index + 2}
      className="border-b border-slate-100 align-top hover:bg-blue-50/40"
      style={height === undefined ? undefined : { height }}
    >
      {row.getVisibleCells().map((cell) => (
        <td
          key={cell.id}
          data-col={cell.column.id}
          className={`overflow-hidden px-2 py-1.5 break-words ${cell.column.columnDef.meta?.cellClass ?? ''}`}
        >
          {compact && cell.column.columnDef.meta?.card === 'details' ? (
            <details>
              <summary className="min-h-6 cursor-pointer text-xs text-blue-800">
                Show
                <span className="sr-only"> {cardLabel(cell.column.columnDef)}</span>
              </summary>
              {renderCell(cell)}
            </details>
          ) : (
            renderCell(cell)
          )}
        </td>
      ))}
    </tr>
  )
}

/** On paper the identifiers give their width to the messages (the transcript names every message by date). */
function usePrintVisibility<TData extends RowData>(
  printing: boolean,
  columnVisibility: ColumnVisibilityState,
  columns: VirtualTableProps<TData>['columns'],
): ColumnVisibilityState {
  return useMemo(
    () =>
      printing
        ? {
            ...columnVisibility,
            ...Object.fromEntries(columns.filter((c) => c.meta?.card === 'details' && c.id).map((c) => [c.id!, false])),
          }
        : columnVisibility,
    [printing, columnVisibility, columns],
  )
}

/** Stands for the rows above or below the window, so the scroll height is the whole set's. */
function SpacerRow({ height, colSpan }: { height: number; colSpan: number }) {
  return (
    <tr aria-hidden="true">
      <td colSpan={colSpan} style={{ height, padding: 0, border: 0 }} />
    </tr>
  )
}

function LoadingRow({ label, colSpan }: { label: string; colSpan: number }) {
  return (
    <tr>
      <td colSpan={colSpan} className="p-0">
        <TableSkeleton label={label} />
      </td>
    </tr>
  )
}

const NO_HIDDEN: ColumnVisibilityState = {}
// Sort and visibility are controlled by the caller (from the URL): no store subscription needed.
const selectNothing = () => null
