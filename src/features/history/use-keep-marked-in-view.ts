import { useEffect, useRef } from 'react'

/**
 * Bring the marked record into view: the rows are windowed, so scroll near its estimated offset
 * first, then centre the rendered row once it exists. Returns the ref for the box around the table.
 */
export function useKeepMarkedInView(markIndex: number, rowEstimate: number) {
  const tableBox = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (markIndex < 0) return
    const root = tableBox.current
    const box = root?.querySelector<HTMLElement>('[role="region"]')
    const estimate = () => {
      if (box) box.scrollTop = Math.max(0, markIndex * rowEstimate - box.clientHeight / 2)
    }
    estimate()
    // Measured rows change height as they render, which moves the marked row again: keep it
    // centred until it has held still for a few frames, and stop at once if the reader scrolls.
    // The window can also be moved back before the row is ever rendered (the virtualizer corrects
    // its offset for rows of the last page measured at the old place): while the row is not
    // there, its estimated offset is asked for again.
    let frames = 0
    let still = 0
    let raf = 0
    let stopped = false
    const stop = () => {
      stopped = true
    }
    const tick = () => {
      if (stopped || frames++ > 90) return
      const el = root?.querySelector<HTMLElement>('[data-marked="true"]')
      const r = el?.getBoundingClientRect()
      const b = box?.getBoundingClientRect()
      const inView = !!r && !!b && r.top >= Math.max(0, b.top) && r.bottom <= Math.min(window.innerHeight, b.bottom)
      if (!el) estimate()
      else if (!inView) {
        el.scrollIntoView({ block: 'center' })
        still = 0
      } else if (++still > 5) {
        focusMarked(el)
        return
      }
      raf = requestAnimationFrame(tick)
    }
    raf = requestAnimationFrame(tick)
    const events = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const
    for (const e of events) window.addEventListener(e, stop, { passive: true, once: true })
    return () => {
      cancelAnimationFrame(raf)
      for (const e of events) window.removeEventListener(e, stop)
    }
  }, [markIndex, rowEstimate])
  return tableBox
}

/**
 * Once the marked row holds still, keyboard focus goes to its record link when it was left
 * behind: in the go-to-date form, now scrolled off above (the next Tab went back to the
 * filters), or nowhere (a link from a message's page). Focus anywhere else is the reader's own.
 */
function focusMarked(el: HTMLElement) {
  const active = document.activeElement
  if (active && active !== document.body && !active.closest('[data-go-to-date]')) return
  el.querySelector<HTMLElement>('a[href]')?.focus({ preventScroll: true })
}
