import { useCallback, useRef, useState } from 'react'

/**
 * The value a control shows when its state lives in the URL (a checkbox, a radio group, a select,
 * a toggle, a sort): the one just picked, at once, then the URL's.
 *
 * The router commits a URL change in a React transition, after the page under it has rendered
 * again; until then a controlled input shows its old state, and on a busy machine a click, a
 * Space or an arrow key looks unanswered. Here the pick is held, in this control only, while
 * `commit` (the navigation) is under way. When the navigation settles the URL's value shows
 * again: the new one if it committed (it has by then, so nothing flickers), the old one if another
 * navigation overtook it. A later pick takes over from an earlier one still on its way.
 *
 * Not React's useOptimistic: its hold is an async action, and while any action is pending React
 * makes every transition wait for it, the router's included; one navigation that never settles
 * (a blocked one: its promise does not settle in this router) would stall them all. Here such a
 * hold stays in its own control.
 *
 * `commit` should return the navigation's promise; one that returns nothing ends the hold at once.
 */
export function useUrlBound<T>(committed: T, commit: (next: T) => unknown): readonly [T, (next: T) => void] {
  const [pick, setPick] = useState<{ value: T } | null>(null)
  const latest = useRef(0)
  const set = useCallback(
    (next: T) => {
      const id = ++latest.current
      setPick({ value: next })
      const release = () => {
        if (latest.current === id) setPick(null)
      }
      // A navigation that failed leaves the URL as it was, and the router shows the failure: the control shows the URL's value again.
      Promise.resolve(commit(next)).then(release, release)
    },
    [commit],
  )
  return [pick ? pick.value : committed, set] as const
}
