import {
  useTable,
  type Cell,
  type ColumnDef,
  type ColumnVisibilityState,
  type Header,
  type Row,
  type RowData,
  type SortingState,
  type Updater,
} from '@tanstack/react-table'
import { elementScroll, useVirtualizer, type Virtualizer, type VirtualizerOptions } from '@tanstack/react-virtual'
import { useId, useMemo, useRef, type ReactNode } from 'react'
import { TableSkeleton } from '../empty-state'
import { features, parseSort, sortToParam, type CardRole, type Features } from './features'
import { useRowWindow } from './row-window'
import { tableMinWidth, useMedia, usePrinting } from './layout'

/**
 * A semantic, virtualised table. The caller hands over every row, already filtered and sorted;
 * only the rows in view (plus overscan) reach TanStack Table and the DOM. Spacer rows keep the
 * scroll height honest, and aria-rowcount/aria-rowindex tell a screen reader where each rendered
 * row sits in the whole set (WAI-ARIA table pattern). The virtualizer and the table live here,
 * the lowest component, so scrolling re-renders nothing above it.
 */
const INITIAL_RECT =
  typeof window === 'undefined' ? { width: 0, height: 0 } : { width: window.innerWidth, height: Math.round(window.innerHeight * 0.7) }

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
  columnWidths,
  cellClassNames,
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
  // Rows of one known height (the numbers table) need only arithmetic; rows that grow with
  // their content (message bodies, thumbnails) are measured by TanStack Virtual. Printing
  // renders every row: a transcript has no window.
  const fixed = useRowWindow({
    enabled: !measured && !printing,
    count: rows.length,
    rowHeight: estimateRowHeight,
    overscan: OVERSCAN,
    scrollRef,
    initialHeight: INITIAL_RECT.height,
  })
  const virtualizer = useVirtualizer({
    enabled: measured && !printing,
    count: measured && !printing ? rows.length : 0,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => (cards ? estimateCardHeight : estimateRowHeight),
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
  const items = measured && !printing ? virtualizer.getVirtualItems() : null
  const first = printing ? 0 : items ? (items[0]?.index ?? 0) : fixed.first
  const last = printing ? rows.length - 1 : items ? (items.at(-1)?.index ?? -1) : fixed.last
  const top = printing ? 0 : items ? (items[0]?.start ?? 0) : fixed.top
  const bottom = printing ? 0 : items ? virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0) : fixed.bottom
  // On paper the identifiers give their width to the messages (the transcript names every message by date).
  const visibility = useMemo(
    () =>
      printing
        ? {
            ...columnVisibility,
            ...Object.fromEntries(columns.filter((c) => c.meta?.card === 'details' && c.id).map((c) => [c.id!, false])),
          }
        : columnVisibility,
    [printing, columnVisibility, columns],
  )
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
  const widthOf = (id: string, role: CardRole | undefined) => (compact && role === 'details' ? FOLDED_WIDTH : columnWidths?.[id])
  const minWidth = tableMinWidth(
    leaves.map((h) => ({ width: widthOf(h.column.id, h.column.columnDef.meta?.card), minWidth: h.column.columnDef.meta?.minWidth })),
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
        measure={virtualizer.measureElement}
        baseId={baseId}
        cellClassNames={cellClassNames}
      />
    )

  return (
    <div
      ref={scrollRef}
      data-print="expand"
      className="relative overflow-auto rounded border border-slate-200 bg-white"
      style={{ maxHeight: height }}
      tabIndex={0}
      role="region"
      aria-label={`${label}, scrollable`}
    >
      <table
        className="w-full table-fixed border-collapse text-sm"
        style={{ minWidth }}
        aria-label={label}
        aria-rowcount={loading ? undefined : rows.length + 1}
        aria-busy={loading ? true : undefined}
      >
        <colgroup>
          {leaves.map((h) => (
            <col key={h.id} style={{ width: widthOf(h.column.id, h.column.columnDef.meta?.card) }} />
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
                  <td
                    key={cell.id}
                    data-col={cell.column.id}
                    className={`overflow-hidden px-2 py-1.5 break-words ${cellClassNames?.[cell.column.id] ?? ''}`}
                  >
                    {compact && cell.column.columnDef.meta?.card === 'details' ? (
                      <details>
                        <summary className="min-h-6 cursor-pointer text-xs text-blue-800">
                          Show
                          <span className="sr-only">
                            {' '}
                            {labelOf(cell.column.columnDef.header, cell.column.columnDef.meta, cell.column.id)}
                          </span>
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

function labelOf(header: unknown, meta: { cardLabel?: string } | undefined, id: string): string {
  return meta?.cardLabel ?? (typeof header === 'string' ? header : id)
}

interface CardListProps<TData extends RowData> {
  rows: Array<Row<Features, TData>>
  first: number
  total: number
  top: number
  bottom: number
  leaves: Array<Header<Features, TData, unknown>>
  sorting: SortingState
  onSortingChange: (next: SortingState) => void
  label: string
  loading?: string
  height: string
  scrollRef: React.RefObject<HTMLDivElement | null>
  measure: (el: Element | null) => void
  baseId: string
  cellClassNames?: Record<string, string>
}

/**
 * Narrow screens: each row is a card in a list (a table whose columns are squeezed to 0 px
 * helps nobody). Every card is an article named by its title; values are a description list,
 * so a screen reader hears "Webhook, https://…". aria-setsize/posinset say where a card sits
 * in the whole list, as aria-rowindex does for the table. Sorting, which the column headers
 * offer in the table, is one select above the list.
 */
function CardList<TData extends RowData>({
  rows,
  first,
  total,
  top,
  bottom,
  leaves,
  sorting,
  onSortingChange,
  label,
  loading,
  height,
  scrollRef,
  measure,
  baseId,
  cellClassNames,
}: CardListProps<TData>) {
  const sortable = leaves.filter((h) => h.column.getCanSort())
  const sortValue = sortToParam(sorting) ?? ''
  const sortId = `${baseId}-sort`
  return (
    <div>
      {sortable.length ? (
        <div className="mb-2 flex flex-wrap items-center gap-2 text-sm" data-print="hide">
          <label htmlFor={sortId}>Sort by</label>
          <select
            id={sortId}
            className="input min-h-6"
            value={sortValue}
            onChange={(e) =>
              onSortingChange(
                parseSort(
                  e.target.value,
                  sortable.map((h) => h.column.id),
                ),
              )
            }
          >
            <option value="">Default order</option>
            {sortable.flatMap((h) => {
              const name = labelOf(h.column.columnDef.header, h.column.columnDef.meta, h.column.id)
              return [
                <option key={`${h.id}.asc`} value={`${h.column.id}.asc`}>
                  {name}, ascending
                </option>,
                <option key={`${h.id}.desc`} value={`${h.column.id}.desc`}>
                  {name}, descending
                </option>,
              ]
            })}
          </select>
        </div>
      ) : null}
      <div
        ref={scrollRef}
        data-print="expand"
        className="relative overflow-auto rounded border border-slate-200 bg-white"
        style={{ maxHeight: height }}
        tabIndex={0}
        role="region"
        aria-label={`${label}, scrollable`}
      >
        {loading ? <TableSkeleton label={loading} /> : null}
        <ul aria-label={label} aria-busy={loading ? true : undefined}>
          {top > 0 && <li aria-hidden="true" style={{ height: top }} />}
          {rows.map((row, i) => {
            const index = first + i
            const cells = row.getVisibleCells()
            const role = (c: Cell<Features, TData, unknown>): CardRole => c.column.columnDef.meta?.card ?? 'field'
            const titleId = `${baseId}-card-${index}`
            const name = (c: Cell<Features, TData, unknown>) => labelOf(c.column.columnDef.header, c.column.columnDef.meta, c.column.id)
            const details = cells.filter((c) => role(c) === 'details')
            const metas = cells.filter((c) => role(c) === 'meta')
            const fields = cells.filter((c) => role(c) === 'body' || role(c) === 'field')
            const cls = (c: Cell<Features, TData, unknown>) => `min-w-0 break-words ${cellClassNames?.[c.column.id] ?? ''}`
            return (
              <li
                key={row.id}
                ref={measure}
                data-index={index}
                aria-setsize={total}
                aria-posinset={index + 1}
                className="border-b border-slate-200 px-3 py-2.5"
              >
                <article aria-labelledby={titleId} className="flex flex-col gap-1.5 text-sm">
                  <div id={titleId} className="font-semibold">
                    {cells
                      .filter((c) => role(c) === 'title')
                      .map((c) => (
                        <div key={c.id} data-col={c.column.id} className={cls(c)}>
                          {renderCell(c)}
                        </div>
                      ))}
                  </div>
                  {metas.length ? (
                    <dl className="flex flex-wrap items-center gap-x-3 gap-y-1">
                      {metas.map((c) => (
                        <div key={c.id} data-col={c.column.id} className={cls(c)}>
                          <dt className="sr-only">{name(c)}</dt>
                          <dd data-col={c.column.id}>{renderCell(c)}</dd>
                        </div>
                      ))}
                    </dl>
                  ) : null}
                  {fields.length ? (
                    <dl className="flex flex-col gap-1.5">
                      {fields.map((c) => (
                        <div key={c.id} className={role(c) === 'field' ? 'flex flex-wrap gap-x-2' : ''}>
                          <dt className="text-xs font-semibold text-slate-700">{name(c)}</dt>
                          <dd data-col={c.column.id} className={cls(c)}>
                            {renderCell(c)}
                          </dd>
                        </div>
                      ))}
                    </dl>
                  ) : null}
                  {details.length ? (
                    <details>
                      <summary className="min-h-6 cursor-pointer text-xs font-semibold text-blue-800">
                        {details.map(name).join(', ')}
                      </summary>
                      <dl className="mt-1 flex flex-col gap-1">
                        {details.map((c) => (
                          <div key={c.id}>
                            <dt className="sr-only">{name(c)}</dt>
                            <dd data-col={c.column.id} className={cls(c)}>
                              {renderCell(c)}
                            </dd>
                          </div>
                        ))}
                      </dl>
                    </details>
                  ) : null}
                </article>
              </li>
            )
          })}
          {bottom > 0 && <li aria-hidden="true" style={{ height: bottom }} />}
        </ul>
      </div>
    </div>
  )
}

/** Show/hide columns: a disclosure with a checkbox per hideable column. */
export function ColumnToggles({
  columns,
  hidden,
  onToggle,
}: {
  columns: ReadonlyArray<{ id: string; label: string }>
  hidden: ReadonlySet<string>
  onToggle: (id: string, visible: boolean) => void
}) {
  return (
    <details className="relative" data-print="hide">
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
