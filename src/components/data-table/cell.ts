import type { Cell, RowData } from '@tanstack/react-table'
import type { ReactNode } from 'react'
import type { Features } from './features'

/**
 * A cell's renderer called as a plain function, not mounted through <FlexRender> as a component
 * of its own: two fibers fewer per cell, 260 on a screen of the numbers table. So renderers must
 * not call hooks; the elements they return may (the columns' renderers keep to this).
 */
export function renderCell<TData extends RowData>(cell: Cell<Features, TData>): ReactNode {
  const render = cell.column.columnDef.cell
  return typeof render === 'function' ? (render(cell.getContext()) as ReactNode) : (render ?? null)
}
