import { useCallback, useState } from 'react'

/**
 * A notice the reader has put away, remembered in this browser (localStorage) so it stays put
 * away across reloads. Storage can be refused (private windows, a full quota): then the choice
 * lasts until the page is reloaded, which is better than a notice that cannot be closed.
 */
export function useDismissed(key: string): [boolean, (dismissed: boolean) => void] {
  const [dismissed, setState] = useState(() => {
    try {
      return localStorage.getItem(key) === '1'
    } catch {
      return false
    }
  })
  const set = useCallback(
    (next: boolean) => {
      setState(next)
      try {
        if (next) localStorage.setItem(key, '1')
        else localStorage.removeItem(key)
      } catch {
        /* kept for this page only */
      }
    },
    [key],
  )
  return [dismissed, set]
}
