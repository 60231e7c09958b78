import type { ReactTable, RowData } from '@tanstack/react-table'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useRef, type ReactNode } from 'react'
import type { Features } from './features'

/**
 * A semantic, virtualised table. Only the rows in view (plus overscan) are in the DOM; spacer
 * rows keep the scroll height honest, and aria-rowcount/aria-rowindex tell a screen reader
 * where each rendered row sits in the whole set (WAI-ARIA table pattern).
 * The virtualizer lives here, the lowest component, so scrolling re-renders nothing above it.
 */
const INITIAL_RECT = typeof window === 'undefined' ? { width: 0, height: 0 } : { width: window.innerWidth, height: Math.round(window.innerHeight * 0.7) }

export function VirtualTable<TData extends RowData, TSel>({
  table,
  label,
  estimateRowHeight,
  height = '70vh',
  columnWidths,
  rowClassName,
  dynamic = false,
}: {
  table: ReactTable<Features, TData, TSel>
  label: string
  estimateRowHeight: number
  height?: string
  columnWidths?: Record<string, string>
  rowClassName?: (row: TData) => string | undefined
  dynamic?: boolean
}) {
  const scrollRef = useRef<HTMLDivElement>(null)
  const rows = table.getRowModel().rows
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => estimateRowHeight,
    getItemKey: (i) => rows[i]?.id ?? i,
    overscan: 8,
    // The scroll element does not exist during the first render; without a size guess the first
    // commit holds no rows and a second render is needed before anything is painted.
    initialRect: INITIAL_RECT,
  })
  const items = virtualizer.getVirtualItems()
  const headerGroups = table.getHeaderGroups()
  const leafCount = headerGroups[0]?.headers.length ?? 1
  const top = items[0]?.start ?? 0
  const bottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0)

  return (
    <div ref={scrollRef} className="relative overflow-auto rounded border border-slate-200 bg-white" style={{ maxHeight: height }} tabIndex={0} role="region" aria-label={`${label}, scrollable`}>
      <table className="w-full table-fixed border-collapse text-sm" aria-label={label} aria-rowcount={rows.length + 1}>
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
          {top > 0 && (
            <tr aria-hidden="true">
              <td colSpan={leafCount} style={{ height: top, padding: 0, border: 0 }} />
            </tr>
          )}
          {items.map((item) => {
            const row = rows[item.index]
            if (!row) return null
            return (
              <tr
                key={row.id}
                data-index={item.index}
                ref={dynamic ? virtualizer.measureElement : undefined}
                aria-rowindex={item.index + 2}
                className={`border-b border-slate-100 align-top hover:bg-blue-50/40 ${rowClassName?.(row.original) ?? ''}`}
                style={dynamic ? undefined : { height: estimateRowHeight }}
              >
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} className="overflow-hidden px-2 py-1.5 break-words">
                    <table.FlexRender cell={cell} />
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

export function ColumnToggles<TData extends RowData, TSel>({ table, onToggle }: { table: ReactTable<Features, TData, TSel>; onToggle: (id: string, visible: boolean) => void }): ReactNode {
  return (
    <details className="relative">
      <summary className="btn cursor-pointer list-none">Columns</summary>
      <fieldset className="absolute right-0 z-20 mt-1 w-48 rounded border border-slate-300 bg-white p-2 shadow">
        <legend className="sr-only">Shown columns</legend>
        {table
          .getAllLeafColumns()
          .filter((c) => c.getCanHide())
          .map((c) => (
            <label key={c.id} className="flex items-center gap-2 py-0.5 text-sm">
              <input type="checkbox" checked={c.getIsVisible()} onChange={(e) => onToggle(c.id, e.target.checked)} />
              {typeof c.columnDef.header === 'string' ? c.columnDef.header : c.id}
            </label>
          ))}
      </fieldset>
    </details>
  )
}
