import type { RefObject } from 'react'
import { useFixedRows } from './use-fixed-rows'
import { useMeasuredRows } from './use-measured-rows'

const OVERSCAN = 8

const INITIAL_RECT =
  typeof window === 'undefined' ? { width: 0, height: 0 } : { width: window.innerWidth, height: Math.round(window.innerHeight * 0.7) }

/**
 * Which rows of the whole set are rendered, and the spacer heights above and below them. Rows
 * of one known height (the numbers table) need only arithmetic; rows that grow with their content
 * (message bodies, thumbnails, cards) are measured by TanStack Virtual. Printing renders every
 * row: a transcript has no window.
 */
export function useRowWindow<T>({
  rows,
  getRowId,
  measured,
  printing,
  estimateSize,
  rowHeight,
  scrollRef,
}: {
  rows: readonly T[]
  getRowId: (row: T) => string
  measured: boolean
  printing: boolean
  /** The estimate for a measured row (a card's on narrow screens). */
  estimateSize: number
  rowHeight: number
  scrollRef: RefObject<HTMLElement | null>
}) {
  const fixed = useFixedRows({
    enabled: !measured && !printing,
    count: rows.length,
    rowHeight,
    overscan: OVERSCAN,
    scrollRef,
    initialHeight: INITIAL_RECT.height,
  })
  const measuredRows = useMeasuredRows({
    enabled: measured && !printing,
    count: rows.length,
    estimateSize,
    // Measured rows are cached by row id, so a page swap does not reuse another row's height.
    getItemKey: (i) => {
      const r = rows[i]
      return r === undefined ? i : getRowId(r)
    },
    overscan: OVERSCAN,
    scrollRef,
    initialRect: INITIAL_RECT,
  })
  const view = measured ? measuredRows : fixed
  return {
    first: printing ? 0 : view.first,
    last: printing ? rows.length - 1 : view.last,
    top: printing ? 0 : view.top,
    bottom: printing ? 0 : view.bottom,
    measure: measuredRows.measure,
  }
}
