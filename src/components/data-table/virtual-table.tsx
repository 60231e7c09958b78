import type { ColumnVisibilityState, RowData } from '@tanstack/react-table'
import { useRef } from 'react'
import { useMedia, usePrinting } from './layout'
import { useMeasuredEngine } from './measured-engine'
import { INITIAL_RECT, OVERSCAN } from './row-window'
import { TableView, type EngineProps, type VirtualTableProps } from './table-view'
import { useFixedRows } from './use-fixed-rows'

export type { VirtualTableProps } from './table-view'

/** Below this width each row is a card (see ColumnLayout in ./features). A media query: known at the first render, so the layout never switches after paint. */
export const CARDS_QUERY = '(max-width: 899.98px)'
/** Below this width `details` columns fold into a disclosure in their cell, so the body gets the room. */
export const COMPACT_QUERY = '(max-width: 1279.98px)'

/**
 * A semantic, virtualised table. The caller hands over every row, already filtered and sorted;
 * only the rows in view (plus overscan) reach TanStack Table and the DOM. Spacer rows keep the
 * scroll height honest, and aria-rowcount/aria-rowindex tell a screen reader where each rendered
 * row sits in the whole set (WAI-ARIA table pattern). The row engine and the table live here,
 * the lowest component, so scrolling re-renders nothing above it. Rows of one known height (the
 * numbers table) need only arithmetic (FixedTable); rows that grow with their content, and cards,
 * are measured (./measured-table, loaded apart from the entry chunk: see ./measured-engine).
 */
export function VirtualTable<TData extends RowData>({
  columnVisibility = NO_HIDDEN,
  height = '70vh',
  dynamic = false,
  estimateCardHeight = 180,
  ...rest
}: VirtualTableProps<TData>) {
  const printing = usePrinting()
  // Paper gets the table (a transcript), whatever the screen was showing.
  const cards = useMedia(CARDS_QUERY) && !printing
  const compact = useMedia(COMPACT_QUERY) && !printing
  // Cards grow with their content (URLs and bodies wrap), so they are measured like history rows.
  const measured = dynamic || cards
  const Measured = useMeasuredEngine(measured)
  const props: EngineProps<TData> = { ...rest, columnVisibility, height, dynamic, estimateCardHeight, printing, cards, compact }
  if (!measured) return <FixedTable {...props} />
  // One module-level component, registered once when its module is evaluated: not a new type per render.
  // eslint-disable-next-line react-hooks/static-components
  if (Measured) return <Measured {...props} />
  return <FirstRows {...props} />
}

/** Rows of one known height: the window is arithmetic over the scroll offset. */
function FixedTable<TData extends RowData>(props: EngineProps<TData>) {
  const scrollRef = useRef<HTMLDivElement>(null)
  const view = useFixedRows({
    enabled: !props.printing,
    count: props.rows.length,
    rowHeight: props.estimateRowHeight,
    overscan: OVERSCAN,
    scrollRef,
    initialHeight: INITIAL_RECT.height,
  })
  return <TableView {...props} window={view} measure={undefined} scrollRef={scrollRef} />
}

/** While the measuring engine is on its way: the first screenful of rows at their estimated height. */
function FirstRows<TData extends RowData>(props: EngineProps<TData>) {
  const scrollRef = useRef<HTMLDivElement>(null)
  const estimate = props.cards ? props.estimateCardHeight : props.estimateRowHeight
  const shown = Math.min(props.rows.length, Math.ceil(INITIAL_RECT.height / estimate) + OVERSCAN)
  const view = { first: 0, last: shown - 1, top: 0, bottom: (props.rows.length - shown) * estimate }
  return <TableView {...props} window={view} measure={undefined} scrollRef={scrollRef} />
}

const NO_HIDDEN: ColumnVisibilityState = {}
