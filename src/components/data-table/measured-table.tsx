import { useRef } from 'react'
import type { RowData } from '@tanstack/react-table'
import { registerMeasuredTable } from './measured-engine'
import { INITIAL_RECT, OVERSCAN } from './row-window'
import { TableView, type EngineProps } from './table-view'
import { useMeasuredRows } from './use-measured-rows'

/**
 * Rows that grow with their content (message bodies, thumbnails, cards) measured by TanStack
 * Virtual. Evaluating this module makes it VirtualTable's engine for such rows: a page that has
 * them imports it, so the engine comes with the page.
 */
export function MeasuredTable<TData extends RowData>(props: EngineProps<TData>) {
  const { rows, getRowId, printing, cards, estimateCardHeight, estimateRowHeight } = props
  const scrollRef = useRef<HTMLDivElement>(null)
  const view = useMeasuredRows({
    enabled: !printing,
    count: rows.length,
    estimateSize: cards ? estimateCardHeight : estimateRowHeight,
    // Measured rows are cached by row id, so a page swap does not reuse another row's height.
    getItemKey: (i) => {
      const r = rows[i]
      return r === undefined ? i : getRowId(r)
    },
    overscan: OVERSCAN,
    scrollRef,
    initialRect: INITIAL_RECT,
  })
  return <TableView {...props} window={view} measure={view.measure} scrollRef={scrollRef} />
}

registerMeasuredTable(MeasuredTable)
