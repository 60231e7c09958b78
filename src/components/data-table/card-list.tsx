import type { Cell, Header, Row, RowData, SortingState } from '@tanstack/react-table'
import type { RefObject } from 'react'
import { TableSkeleton } from '../empty-state'
import { renderCell } from './cell'
import { ScrollRegion } from './scroll-region'
import { cardLabel, parseSort, sortToParam, type CardRole, type Features } from './features'

export interface CardListProps<TData extends RowData> {
  rows: Array<Row<Features, TData>>
  first: number
  total: number
  top: number
  bottom: number
  leaves: Array<Header<Features, TData>>
  sorting: SortingState
  onSortingChange: (next: SortingState) => void
  label: string
  loading?: string
  height: string
  scrollRef: RefObject<HTMLDivElement | null>
  measure: (el: Element | null) => void
  baseId: string
}

/**
 * Narrow screens: each row is a card in a list (a table whose columns are squeezed to 0 px
 * helps nobody). Every card is an article named by its title; values are a description list,
 * so a screen reader hears "Webhook, https://…". aria-setsize/posinset say where a card sits
 * in the whole list, as aria-rowindex does for the table. Sorting, which the column headers
 * offer in the table, is one select above the list.
 */
export function CardList<TData extends RowData>({
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
            onChange={(e) => {
              onSortingChange(
                parseSort(
                  e.target.value,
                  sortable.map((h) => h.column.id),
                ),
              )
            }}
          >
            <option value="">Default order</option>
            {sortable.flatMap((h) => {
              const name = cardLabel(h.column.columnDef)
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
      <ScrollRegion ref={scrollRef} label={label} height={height}>
        {loading && total === 0 ? <TableSkeleton label={loading} /> : null}
        <ul aria-label={label} aria-busy={loading ? true : undefined}>
          {top > 0 && <li aria-hidden="true" style={{ height: top }} />}
          {rows.map((row, i) => {
            const index = first + i
            const cells = row.getVisibleCells()
            const role = (c: Cell<Features, TData>): CardRole => c.column.columnDef.meta?.card ?? 'field'
            const titleId = `${baseId}-card-${index}`
            const name = (c: Cell<Features, TData>) => cardLabel(c.column.columnDef)
            const details = cells.filter((c) => role(c) === 'details')
            const metas = cells.filter((c) => role(c) === 'meta')
            const fields = cells.filter((c) => role(c) === 'body' || role(c) === 'field')
            const cls = (c: Cell<Features, TData>) => `min-w-0 break-words ${c.column.columnDef.meta?.cellClass ?? ''}`
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
      </ScrollRegion>
    </div>
  )
}
