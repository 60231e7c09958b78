import {
  useTable,
  type ColumnDef,
  type ColumnVisibilityState,
  type Header,
  type Cell,
  type RowData,
  type SortingState,
  type Updater,
} from '@tanstack/react-table'
import { memo, useId, useMemo, type ReactNode, type RefObject } from 'react'
import { TableSkeleton } from '../empty-state'
import { CardList } from './card-list'
import { renderCell } from './cell'
import { ScrollRegion } from './scroll-region'
import { cardLabel, features, type CardRole, type Features } from './features'
import { tableMinWidth } from './layout'
import type { RowWindow } from './use-fixed-rows'
import { useUrlBound } from '../../lib/use-url-bound'

export interface VirtualTableProps<TData extends RowData> {
  rows: readonly TData[]
  // Column value types differ per column; the table only needs their shared shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  columns: Array<ColumnDef<Features, TData, any>>
  getRowId: (row: TData) => string
  /** The sort as the URL has it (the rows come sorted so); a header's click shows its new sort at once. */
  sorting: SortingState
  onSortingChange: (next: SortingState) => unknown
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

/** How the table is shown: on paper, as cards (narrow screens), with `details` columns folded. */
export interface TableMode {
  printing: boolean
  cards: boolean
  compact: boolean
}

/** The props with their defaults filled in, and the mode: what each row engine hands on to TableView. */
export type EngineProps<TData extends RowData> = Required<Omit<VirtualTableProps<TData>, 'loading'>> &
  Pick<VirtualTableProps<TData>, 'loading'> &
  TableMode

const FOLDED_WIDTH = '6rem'

/**
 * The table (or, on a narrow screen, the card list) over the rows a row engine put in the window:
 * every row when printing (a transcript has no window). `measure` is the measuring engine's ref
 * callback, for rows that grow with their content; without it rows have their fixed height.
 */
export function TableView<TData extends RowData>({
  rows,
  columns,
  getRowId,
  sorting,
  onSortingChange,
  columnVisibility,
  label,
  estimateRowHeight,
  height,
  dynamic,
  loading,
  printing,
  cards,
  compact,
  window: view,
  measure,
  scrollRef,
}: EngineProps<TData> & {
  window: RowWindow
  measure: ((el: Element | null) => void) | undefined
  scrollRef: RefObject<HTMLDivElement | null>
}) {
  const baseId = useId()
  const first = printing ? 0 : view.first
  const last = printing ? rows.length - 1 : view.last
  const top = printing ? 0 : view.top
  const bottom = printing ? 0 : view.bottom
  const visibility = usePrintVisibility(printing, columnVisibility, columns)
  // The headers (and the cards' sort select) show a pick at once; the rows follow when the URL commits.
  const [shownSorting, pickSorting] = useUrlBound(sorting, onSortingChange)
  const table = useTable(
    {
      features,
      columns,
      data: rows.slice(first, last + 1),
      getRowId,
      state: { sorting: shownSorting, columnVisibility: visibility },
      onSortingChange: (u: Updater<SortingState>) => {
        pickSorting(typeof u === 'function' ? u(shownSorting) : u)
      },
      manualSorting: true,
      enableSortingRemoval: true,
      // A header's first click sorts ascending unless its column says otherwise (numbers, dates: newest
      // or most first). Never guessed from the rows in view: TanStack samples them, and while they are
      // on their way (a filter just typed, a window not yet measured) it guessed descending.
      sortDescFirst: false,
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
        sorting={shownSorting}
        onSortingChange={pickSorting}
        label={label}
        loading={loading}
        height={height}
        scrollRef={scrollRef}
        measure={measure ?? noMeasure}
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
          {/* Rows while still loading are its first ones (the numbers listing's preview): shown, the table still busy. */}
          {loading && rows.length === 0 ? <LoadingRow label={loading} colSpan={leafCount} /> : null}
          {top > 0 && <SpacerRow height={top} colSpan={leafCount} />}
          {tableRows.map((row, i) => (
            <BodyRow
              key={row.id}
              cells={row.getVisibleCells()}
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
function HeaderCell<TData extends RowData>({ header, title }: { header: Header<Features, TData>; title: ReactNode }) {
  const sorted = header.column.getIsSorted()
  const canSort = header.column.getCanSort()
  return (
    <th
      scope="col"
      className="border-b border-slate-300 px-2 py-2 text-left font-semibold text-slate-800"
      aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : canSort ? 'none' : undefined}
    >
      {canSort ? (
        <>
          <button
            type="button"
            className="inline-flex min-h-6 items-center gap-1 rounded hover:underline print:hidden"
            onClick={header.column.getToggleSortingHandler()}
          >
            {title}
            <span aria-hidden="true" className="text-slate-600">
              {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}
            </span>
          </button>
          {/* Chromium paints no button in a header row it repeats on a printed page's top: paper gets the title as text. */}
          <span className="hidden print:inline">{title}</span>
        </>
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
 *
 * Memoised on what its cells draw (sameRow): a scroll step renders only the rows it brings into
 * the window, not every row of it again. What a cell reads from a context still re-renders it.
 */
function BodyRowView<TData extends RowData>({ cells, index, measure, height, compact }: BodyRowProps<TData>) {
  return (
    <tr
      data-index={index}
      ref={measure}
      aria-rowindex={index + 2}
      className="border-b border-slate-100 align-top hover:bg-blue-50/40"
      style={height === undefined ? undefined : { height }}
    >
      {cells.map((cell) => (
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
interface BodyRowProps<TData extends RowData> {
  cells: Array<Cell<Features, TData>>
  index: number
  measure: ((el: Element | null) => void) | undefined
  height: number | undefined
  compact: boolean
}

/**
 * Whether a row would draw the same: the same record under the same columns, at the same place.
 * Not the cells array itself: the table is given only the rows in the window (a new slice each
 * step), so TanStack makes new row and cell objects every time the window moves, and a memo on
 * them re-rendered every row of it twice a step (the render with estimated heights, then the one
 * after they are measured): 49 row renders a step for the 24 rows of the 1,000-message history.
 * Every column's cell is drawn from `row.original` alone (the history, search and numbers
 * columns), so the record and the column definition decide what a cell shows.
 */
function sameRow<TData extends RowData>(a: BodyRowProps<TData>, b: BodyRowProps<TData>): boolean {
  if (a.index !== b.index || a.measure !== b.measure || a.height !== b.height || a.compact !== b.compact) return false
  if (a.cells === b.cells) return true
  if (a.cells.length !== b.cells.length) return false
  return a.cells.every((x, i) => {
    const y = b.cells[i]
    return y !== undefined && x.row.original === y.row.original && x.column.columnDef === y.column.columnDef && x.column.id === y.column.id
  })
}
const BodyRow = memo(BodyRowView, sameRow) as typeof BodyRowView

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
            ...Object.fromEntries(columns.flatMap((c) => (c.meta?.card === 'details' && c.id ? [[c.id, false]] : []))),
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

const noMeasure = () => undefined
// Sort and visibility are controlled by the caller (from the URL): no store subscription needed.
const selectNothing = () => null
