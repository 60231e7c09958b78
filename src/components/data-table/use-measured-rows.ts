import { elementScroll, useVirtualizer, type Virtualizer, type VirtualizerOptions } from '@tanstack/react-virtual'
import type { RefObject } from 'react'
import type { RowWindow } from './use-fixed-rows'

/**
 * Which rows of a list whose rows grow with their content (message bodies, thumbnails, cards)
 * are in view: TanStack Virtual measures each rendered row (`measure` goes on the row element)
 * and keeps the measurements by row id, so a page swap does not reuse another row's height.
 * The same window shape as useFixedRows, so the table does not care which engine it runs on.
 */
export interface MeasuredRows extends RowWindow {
  /** The ref callback each rendered row (or card) gets, so its real height replaces the estimate. */
  measure: (el: Element | null) => void
}

export function useMeasuredRows({
  enabled,
  count,
  estimateSize,
  getItemKey,
  overscan,
  scrollRef,
  initialRect,
}: {
  enabled: boolean
  count: number
  estimateSize: number
  getItemKey: (index: number) => string | number
  overscan: number
  scrollRef: RefObject<HTMLElement | null>
  initialRect: { width: number; height: number }
}): MeasuredRows {
  const virtualizer = useVirtualizer({
    enabled,
    count: enabled ? count : 0,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => estimateSize,
    getItemKey,
    overscan,
    // The scroll element does not exist during the first render; without a size guess the first
    // commit holds no rows and a second render is needed before anything is painted.
    initialRect,
    observeElementRect: observeRectWithoutLayout,
    scrollToFn: scrollWithoutMountLayout,
  })
  if (!enabled) return { first: 0, last: -1, top: 0, bottom: 0, measure: virtualizer.measureElement }
  const items = virtualizer.getVirtualItems()
  return {
    first: items[0]?.index ?? 0,
    last: items.at(-1)?.index ?? -1,
    top: items[0]?.start ?? 0,
    bottom: virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0),
    measure: virtualizer.measureElement,
  }
}

/**
 * The scroll element's size from ResizeObserver alone. The library's default also reads
 * getBoundingClientRect() in the layout effect that mounts the table, which forced a full
 * synchronous layout (10–13 ms, measured on the 10,000-row numbers table) in the middle of the
 * commit that shows the first rows. Until the observer's first report (after the browser's own
 * layout, same frame), the initialRect guess stands.
 */
function observeRectWithoutLayout(instance: Virtualizer<HTMLElement, Element>, cb: (rect: { width: number; height: number }) => void) {
  const el = instance.scrollElement
  if (!el || typeof ResizeObserver === 'undefined') return undefined
  const observer = new ResizeObserver(([entry]) => {
    // The DOM types say every browser has borderBoxSize; Safari before 15.4 has not (contentRect below).
    const box = entry && 'borderBoxSize' in entry ? entry.borderBoxSize[0] : undefined
    if (box) cb({ width: Math.round(box.inlineSize), height: Math.round(box.blockSize) })
    else if (entry) cb({ width: Math.round(entry.contentRect.width), height: Math.round(entry.contentRect.height) })
  })
  observer.observe(el)
  return () => {
    observer.disconnect()
  }
}

const mounted = new WeakSet<Element>()

/**
 * On mount the virtualizer writes the offset it starts from (0) to the fresh element. That
 * no-op scrollTo() forced another synchronous layout (~10 ms at 10,000 rows) in the commit of
 * the first rows; it is skipped. Every later write, and a non-zero first one, goes through.
 */
const scrollWithoutMountLayout: VirtualizerOptions<HTMLElement, Element>['scrollToFn'] = (offset, options, instance) => {
  const el = instance.scrollElement
  if (el && !mounted.has(el)) {
    mounted.add(el)
    if (offset + (options.adjustments ?? 0) === 0 && options.behavior !== 'smooth') return
  }
  elementScroll(offset, options, instance)
}
