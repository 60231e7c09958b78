import { useTable, type Cell, type ColumnDef, type ColumnVisibilityState, type RowData, type SortingState, type Updater } from '@tanstack/react-table'
import { elementScroll, useVirtualizer, type Virtualizer, type VirtualizerOptions } from '@tanstack/react-virtual'
import { useRef, type ReactNode } from 'react'
import { TableSkeleton } from '../empty-state'
import { features, type Features } from './features'
import { useRowWindow } from './row-window'

/**
 * A semantic, virtualised table. The caller hands over every row, already filtered and sorted;
 * only the rows in view (plus overscan) reach TanStack Table and the DOM. Spacer rows keep the
 * scroll height honest, and aria-rowcount/aria-rowindex tell a screen reader where each rendered
 * row sits in the whole set (WAI-ARIA table pattern). The virtualizer and the table live here,
 * the lowest component, so scrolling re-renders nothing above it.
 */
const INITIAL_RECT = typeof window === 'undefined' ? { width: 0, height: 0 } : { width: window.innerWidth, height: Math.round(window.innerHeight * 0.7) }

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
  columnWidths?: Record<string, string>
  /** Extra classes for a column's cells: text styling on the cell itself, not a wrapper element in every row. */
  cellClassNames?: Record<string, string>
  dynamic?: boolean
  /**
   * While the rows are on their way: the headers are shown and the body holds a skeleton with
   * this label. The table is then already mounted when the data lands, so the first rows are
   * an update of a warm component, not a mount of the whole table (see README, Performance).
   */
  loading?: string
}

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
  columnWidths,
  cellClassNames,
  dynamic = false,
  loading,
}: VirtualTableProps<TData>) {
  const scrollRef = useRef<HTMLDivElement>(null)
  // Rows of one known height (the numbers table) need only arithmetic; rows that grow with
  // their content (message bodies, thumbnails) are measured by TanStack Virtual.
  const fixed = useRowWindow({ enabled: !dynamic, count: rows.length, rowHeight: estimateRowHeight, overscan: OVERSCAN, scrollRef, initialHeight: INITIAL_RECT.height })
  const virtualizer = useVirtualizer({
    enabled: dynamic,
    count: dynamic ? rows.length : 0,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => estimateRowHeight,
    // Measured rows are cached by row id, so a page swap does not reuse another row's height.
    getItemKey: (i) => {
      const r = rows[i]
      return r === undefined ? i : getRowId(r)
    },
    overscan: OVERSCAN,
    // The scroll element does not exist during the first render; without a size guess the first
    // commit holds no rows and a second render is needed before anything is painted.
    initialRect: INITIAL_RECT,
    observeElementRect: observeRectWithoutLayout,
    scrollToFn: scrollWithoutMountLayout,
  })
  const items = dynamic ? virtualizer.getVirtualItems() : null
  const first = items ? (items[0]?.index ?? 0) : fixed.first
  const last = items ? (items.at(-1)?.index ?? -1) : fixed.last
  const top = items ? (items[0]?.start ?? 0) : fixed.top
  const bottom = items ? virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0) : fixed.bottom
  const table = useTable(
    {
      features,
      columns,
      data: rows.slice(first, last + 1),
      getRowId,
      state: { sorting, columnVisibility },
      onSortingChange: (u: Updater<SortingState>) => onSortingChange(typeof u === 'function' ? u(sorting) : u),
      manualSorting: true,
      enableSortingRemoval: true,
    },
    selectNothing,
  )
  const tableRows = table.getRowModel().rows
  const headerGroups = table.getHeaderGroups()
  const leafCount = headerGroups[0]?.headers.length ?? 1

  return (
    <div ref={scrollRef} className="relative overflow-auto rounded border border-slate-200 bg-white" style={{ maxHeight: height }} tabIndex={0} role="region" aria-label={`${label}, scrollable`}>
      <table className="w-full table-fixed border-collapse text-sm" aria-label={label} aria-rowcount={loading ? undefined : rows.length + 1} aria-busy={loading ? true : undefined}>
        <colgroup>
          {headerGroups[0]?.headers.map((h) => (
            <col key={h.id} style={{ width: columnWidths?.[h.column.id] }} />
          ))}
        </colgroup>
        <thead className="sticky top-0 z-10 bg-slate-100">
          {headerGroups.map((group) => (
            <tr key={group.id} aria-rowindex={1}>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted()
                const canSort = header.column.getCanSort()
                const title = <table.FlexRender header={header} />
                return (
                  <th
                    key={header.id}
                    scope="col"
                    className="border-b border-slate-300 px-2 py-2 text-left font-semibold text-slate-800"
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : canSort ? 'none' : undefined}
                  >
                    {canSort ? (
                      <button type="button" className="inline-flex items-center gap-1 rounded hover:underline" onClick={header.column.getToggleSortingHandler()}>
                        {title}
                        <span aria-hidden="true" className="text-slate-600">
                          {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}
                        </span>
                      </button>
                    ) : (
                      title
                    )}
                  </th>
                )
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {loading ? (
            <tr>
              <td colSpan={leafCount} className="p-0">
                <TableSkeleton label={loading} />
              </td>
            </tr>
          ) : null}
          {top > 0 && (
            <tr aria-hidden="true">
              <td colSpan={leafCount} style={{ height: top, padding: 0, border: 0 }} />
            </tr>
          )}
          {tableRows.map((row, i) => {
            const index = first + i
            return (
              <tr
                key={row.id}
                data-index={index}
                ref={dynamic ? virtualizer.measureElement : undefined}
                aria-rowindex={index + 2}
                className="border-b border-slate-100 align-top hover:bg-blue-50/40"
                style={dynamic ? undefined : { height: estimateRowHeight }}
              >
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} className={`overflow-hidden px-2 py-1.5 break-words ${cellClassNames?.[cell.column.id] ?? ''}`}>
                    {renderCell(cell)}
                  </td>
                ))}
              </tr>
            )
          })}
          {bottom > 0 && (
            <tr aria-hidden="true">
              <td colSpan={leafCount} style={{ height: bottom, padding: 0, border: 0 }} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  )
}

/**
 * For the measured (history) table: the scroll element's size from ResizeObserver alone. The
 * library's default also reads getBoundingClientRect() in the layout effect that mounts the
 * table, which forced a full synchronous layout (10–13 ms, measured on the 10,000-row numbers
 * table) in the middle of the commit that shows the first rows. Until the observer's first
 * report (after the browser's own layout, same frame), the initialRect guess stands.
 */
function observeRectWithoutLayout(instance: Virtualizer<HTMLDivElement, Element>, cb: (rect: { width: number; height: number }) => void) {
  const el = instance.scrollElement
  if (!el || typeof ResizeObserver === 'undefined') return undefined
  const observer = new ResizeObserver(([entry]) => {
    const box = entry?.borderBoxSize?.[0]
    if (box) cb({ width: Math.round(box.inlineSize), height: Math.round(box.blockSize) })
    else if (entry) cb({ width: Math.round(entry.contentRect.width), height: Math.round(entry.contentRect.height) })
  })
  observer.observe(el)
  return () => observer.disconnect()
}

const mounted = new WeakSet<Element>()

/**
 * On mount the virtualizer writes the offset it starts from (0) to the fresh element. That
 * no-op scrollTo() forced another synchronous layout (~10 ms at 10,000 rows) in the commit of
 * the first rows; it is skipped. Every later write, and a non-zero first one, goes through.
 */
const scrollWithoutMountLayout: VirtualizerOptions<HTMLDivElement, Element>['scrollToFn'] = (offset, options, instance) => {
  const el = instance.scrollElement
  if (el && !mounted.has(el)) {
    mounted.add(el)
    if (offset + (options.adjustments ?? 0) === 0 && options.behavior !== 'smooth') return
  }
  elementScroll(offset, options, instance)
}

const OVERSCAN = 8

/**
 * A cell's renderer called as a plain function, not mounted through <FlexRender> as a component
 * of its own: two fibers fewer per cell, 260 on a screen of the numbers table. So renderers must
 * not call hooks; the elements they return may (the columns' renderers keep to this).
 */
function renderCell<TData extends RowData>(cell: Cell<Features, TData, unknown>): ReactNode {
  const render = cell.column.columnDef.cell
  return typeof render === 'function' ? (render(cell.getContext()) as ReactNode) : (render ?? null)
}

const NO_HIDDEN: ColumnVisibilityState = {}
// Sort and visibility are controlled by the caller (from the URL): no store subscription needed.
const selectNothing = () => null


/** Show/hide columns: a disclosure with a checkbox per hideable column. */
export function ColumnToggles({ columns, hidden, onToggle }: { columns: ReadonlyArray<{ id: string; label: string }>; hidden: ReadonlySet<string>; onToggle: (id: string, visible: boolean) => void }) {
  return (
    <details className="relative">
      <summary className="btn cursor-pointer list-none">Columns</summary>
      <fieldset className="absolute right-0 z-20 mt-1 w-48 rounded border border-slate-300 bg-white p-2 shadow">
        <legend className="sr-only">Shown columns</legend>
        {columns.map((c) => (
          <label key={c.id} className="flex items-center gap-2 py-0.5 text-sm">
            <input type="checkbox" checked={!hidden.has(c.id)} onChange={(e) => onToggle(c.id, e.target.checked)} />
            {c.label}
          </label>
        ))}
      </fieldset>
    </details>
  )
}
