import { useRef, useState, type KeyboardEvent } from 'react'

/** The keys that open a select's list: a choice made in the open list comes with its own Enter or click. */
const opensList = (e: KeyboardEvent) => e.key === ' ' || e.key === 'F4' || (e.altKey && (e.key === 'ArrowDown' || e.key === 'ArrowUp'))

/**
 * A select whose choice loads (and logs) another number's messages. A pick with the pointer, a
 * phone's picker or the open list commits at once. The arrow keys and typed letters on a closed
 * select change its value at every key, and each change loaded that number and wrote an access-log
 * entry for it (forty numbers passed on the way to the one wanted): those only move the select
 * until Enter, or leaving it, commits the one it shows; Escape goes back to what is shown.
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
    onPointerDown: () => void
    onBlur: () => void
  }
} {
  const [browsing, setBrowsing] = useState<{ value: T } | null>(null)
  const fromKeys = useRef(false)
  const settle = () => {
    if (!browsing) return
    setBrowsing(null)
    if (!same(browsing.value, shown)) commit(browsing.value)
  }
  return {
    value: browsing ? browsing.value : shown,
    change: (next) => {
      if (fromKeys.current) {
        fromKeys.current = false
        setBrowsing({ value: next })
        return
      }
      setBrowsing(null)
      commit(next)
    },
    props: {
      onKeyDown: (e) => {
        if (e.key === 'Enter') {
          fromKeys.current = false
          if (browsing) {
            e.preventDefault()
            settle()
          }
          return
        }
        if (e.key === 'Escape' && browsing) {
          e.preventDefault()
          setBrowsing(null)
          return
        }
        if (e.key === 'Tab' || e.key === 'Shift') return
        fromKeys.current = !opensList(e)
      },
      onPointerDown: () => {
        fromKeys.current = false
      },
      onBlur: settle,
    },
  }
}
