import { useEffect, useState, type RefObject } from 'react'
import { useAfterPaint } from '../../lib/after-paint'

/**
 * Which rows of a fixed-row-height list are in view (plus `overscan` either side), from the
 * scroll element's scrollTop and height: two numbers of arithmetic, where a general virtualizer
 * keeps a measurement object per row (10,000 of them, built again each time the list changes).
 * Scroll and resize only re-render when the window actually moves. No layout is read during a
 * render or commit: the height starts from `initialHeight` and is corrected by ResizeObserver.
 * The overscan joins one frame after the first rows are painted (see below).
 */
export interface RowWindow {
  /** First and last row index to render (inclusive); last < first when there are none. */
  first: number
  last: number
  /** Space above and below the rendered rows, in pixels. */
  top: number
  bottom: number
}

export function rowWindow(count: number, rowHeight: number, overscan: number, scrollTop: number, height: number): RowWindow {
  if (count <= 0) return { first: 0, last: -1, top: 0, bottom: 0 }
  const first = Math.min(count - 1, Math.max(0, Math.floor(scrollTop / rowHeight) - overscan))
  const last = Math.min(count - 1, Math.max(first, Math.ceil((scrollTop + height) / rowHeight) - 1 + overscan))
  return { first, last, top: first * rowHeight, bottom: (count - 1 - last) * rowHeight }
}

export function useFixedRows({
  enabled,
  count,
  rowHeight,
  overscan,
  scrollRef,
  initialHeight,
}: {
  enabled: boolean
  count: number
  rowHeight: number
  overscan: number
  scrollRef: RefObject<HTMLElement | null>
  initialHeight: number
}): RowWindow {
  // Row-granular view: scrollTop rounded down to a row, so scrolling inside a row changes nothing.
  const [view, setView] = useState({ row: 0, height: initialHeight })
  useEffect(() => {
    const el = scrollRef.current
    if (!enabled || !el) return undefined
    const onScroll = () => {
      const row = Math.floor(el.scrollTop / rowHeight)
      setView((v) => (v.row === row ? v : { row, height: v.height }))
    }
    el.addEventListener('scroll', onScroll, { passive: true })
    const observer = new ResizeObserver(([entry]) => {
      // Only a scrolling element's height is the height rows can fill. Before the rows arrive
      // (a skeleton, or nothing) the element is as tall as that content, and taking that height
      // made the first rows fill only part of the view; with few rows all of them are shown anyway.
      // Layout is clean when the observer reports, so reading the sizes costs no extra layout.
      if (!entry || el.scrollHeight <= el.clientHeight) return
      const height = Math.round(entry.contentRect.height)
      setView((v) => (v.height === height ? v : { row: v.row, height }))
    })
    observer.observe(el)
    return () => {
      el.removeEventListener('scroll', onScroll)
      observer.disconnect()
    }
  }, [enabled, rowHeight, scrollRef])
  // The first frame with rows holds only the rows in view; the overscan (rows off screen, there
  // for smooth scrolling) follows in the task after that frame. Nobody can scroll in between.
  const overscanOn = useAfterPaint(enabled && count > 0) === true
  return rowWindow(enabled ? count : 0, rowHeight, overscanOn ? overscan : 0, view.row * rowHeight, view.height)
}
