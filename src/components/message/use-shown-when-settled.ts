import { useCallback, useState, useSyncExternalStore } from 'react'

/**
 * How long a thumbnail stays in view before it is asked for. A table scrolled past at speed
 * brings a row into view and out again within a few frames: asking the server for every picture
 * it passed fetched each one from its host, logged each as a view of customer data (media.view)
 * and decoded it on the page's busiest frames (on the 1,000-message history, half of every
 * scroll step's time went to the pictures of rows only passing by).
 */
export const SETTLE_MS = 150

/** Rows just outside the view count as in it: they are a flick away. */
const MARGIN = '100px 0px'

interface Waiting {
  show: () => void
  timer: ReturnType<typeof setTimeout> | null
}
const waiting = new Map<Element, Waiting>()
let observer: IntersectionObserver | null = null

function forget(el: Element) {
  const w = waiting.get(el)
  if (!w) return
  if (w.timer !== null) clearTimeout(w.timer)
  waiting.delete(el)
  observer?.unobserve(el)
}

function onEntries(entries: IntersectionObserverEntry[]) {
  for (const e of entries) {
    const w = waiting.get(e.target)
    if (!w) continue
    if (e.isIntersecting)
      w.timer ??= setTimeout(() => {
        forget(e.target)
        w.show()
      }, SETTLE_MS)
    else if (w.timer !== null) {
      clearTimeout(w.timer)
      w.timer = null
    }
  }
}

/** Calls `show` once `el` has stayed in view for SETTLE_MS; returns the cancel. One observer serves every element. */
function whenSettled(el: Element, show: () => void): () => void {
  if (typeof IntersectionObserver === 'undefined') {
    show()
    return () => undefined
  }
  observer ??= new IntersectionObserver(onEntries, { rootMargin: MARGIN })
  waiting.set(el, { show, timer: null })
  observer.observe(el)
  return () => {
    forget(el)
  }
}

// A printed page shows every picture at once (a paper transcript cannot wait for a scroll to settle).
let printing = false
const printListeners = new Set<() => void>()
let watchingPrint = false
function subscribePrint(listener: () => void) {
  printListeners.add(listener)
  if (!watchingPrint && typeof matchMedia === 'function') {
    watchingPrint = true
    const mq = matchMedia('print')
    const set = (now: boolean) => {
      if (now === printing) return
      printing = now
      for (const l of printListeners) l()
    }
    printing = mq.matches
    window.addEventListener('beforeprint', () => {
      set(true)
    })
    window.addEventListener('afterprint', () => {
      set(mq.matches)
    })
    mq.addEventListener('change', () => {
      set(mq.matches)
    })
  }
  return () => {
    printListeners.delete(listener)
  }
}
const isPrinting = () => printing
const notPrinting = () => false

/**
 * Whether a thumbnail may load: once it has stayed in view (or nearly) for SETTLE_MS, and for
 * good after that; at once when printing, or where the browser has no IntersectionObserver.
 * `ref` goes on an element that stays while the picture is not yet shown (its button).
 */
export function useShownWhenSettled(): [ref: (el: Element | null) => (() => void) | undefined, shown: boolean] {
  const [settled, setSettled] = useState(false)
  const printed = useSyncExternalStore(subscribePrint, isPrinting, notPrinting)
  const ref = useCallback((el: Element | null) => {
    if (!el) return undefined
    return whenSettled(el, () => {
      setSettled(true)
    })
  }, [])
  return [ref, settled || printed]
}
