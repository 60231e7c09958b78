import { useRef, useState, type KeyboardEvent } from 'react'

/** Apple's systems open a select's list on the arrow keys too (a choice in it comes with its own Enter or click). */
const APPLE = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform)

/** The keys that open a select's list rather than move its value. */
const opensList = (e: KeyboardEvent) =>
  e.key === ' ' ||
  e.key === 'F4' ||
  ((e.altKey || APPLE) && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) ||
  ['Shift', 'Control', 'Alt', 'Meta', 'Tab', 'Escape', 'Enter'].includes(e.key)

/**
 * A select whose choice loads (and logs) another number's messages. A pick with the pointer, a
 * phone's picker or the open list commits at once. The arrow keys and typed letters on a closed
 * select change its value at every key, and each change loaded that number and wrote an access-log
 * entry for it (forty numbers passed on the way to the one wanted): those only move the select
 * until Enter, or leaving it, commits the one it shows; Escape goes back to what is shown.
 *
 * A change counts as the keys' only when it comes in the same task as their keydown (the browser
 * moves a closed select's value as the key's default action): a key that moved nothing (the last
 * option, a letter matching none) leaves no mark on the next change. What the select was browsed
 * from is kept with it: the page moving on from elsewhere (Back, a link) drops the browsing.
 */
export function useKeyedChoice<T>(
  shown: T,
  commit: (next: T) => void,
  same: (a: T, b: T) => boolean = Object.is,
): {
  value: T
  change: (next: T) => void
  props: {
    onKeyDown: (e: KeyboardEvent<HTMLSelectElement>) => void
    onBlur: () => void
  }
} {
  const [browsing, setBrowsing] = useState<{ value: T; from: T } | null>(null)
  const fromKeys = useRef(false)
  // Browsed from what is shown now; a move of the page's own value since drops it.
  const live = browsing && same(browsing.from, shown) ? browsing : null
  const settle = () => {
    setBrowsing(null)
    if (live && !same(live.value, shown)) commit(live.value)
  }
  return {
    value: live ? live.value : shown,
    change: (next) => {
      if (fromKeys.current) {
        setBrowsing({ value: next, from: shown })
        return
      }
      setBrowsing(null)
      commit(next)
    },
    props: {
      onKeyDown: (e) => {
        if (e.key === 'Enter' && live) {
          e.preventDefault()
          settle()
          return
        }
        if (e.key === 'Escape' && live) {
          e.preventDefault()
          setBrowsing(null)
          return
        }
        if (opensList(e)) return
        fromKeys.current = true
        setTimeout(() => {
          fromKeys.current = false
        }, 0)
      },
      onBlur: settle,
    },
  }
}
