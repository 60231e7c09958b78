import { useQueryClient, type QueryClient } from '@tanstack/react-query'
import { useRouter } from '@tanstack/react-router'
import { useCallback, useEffect, useSyncExternalStore } from 'react'

/**
 * Whether the first page has been shown: no query fetching and the router idle (the page has its
 * data, or its error), and a frame painted after that; or `capMs` after the shell's first render,
 * whichever comes first. Once true it stays true for the life of the tab. The cap is long: a
 * page waiting on a slow upstream would otherwise have the extras arrive just as its data does
 * (2 s, the first choice, was when the bench's held listing lands on a throttled phone).
 *
 * The shell's secondary parts (the indexing indicator, the needs-reply count, the saved views)
 * wait for it. Loaded and asked for beside the first page, their chunks, their answers and their
 * renders landed in the middle of the page's own data: on the numbers page, with 10,000 rows
 * arriving, 28–30 ms from the rows' arrival to their paint with the wait, 35–53 ms without (bench,
 * medians of 11 loads, interleaved).
 */
export const FIRST_PAGE_CAP_MS = 10_000

/** Per query client (the app has one; each test its own): whether it happened, and who waits. */
interface Shown {
  shown: boolean
  listeners: Set<() => void>
}
const states = new WeakMap<QueryClient, Shown>()
function stateOf(client: QueryClient): Shown {
  let s = states.get(client)
  if (!s) states.set(client, (s = { shown: false, listeners: new Set() }))
  return s
}

export function useFirstPageShown(capMs = FIRST_PAGE_CAP_MS): boolean {
  const client = useQueryClient()
  const router = useRouter()
  const state = stateOf(client)
  const subscribe = useCallback(
    (l: () => void) => {
      state.listeners.add(l)
      return () => void state.listeners.delete(l)
    },
    [state],
  )
  const read = useCallback(() => state.shown, [state])
  const isShown = useSyncExternalStore(subscribe, read, read)
  useEffect(() => {
    if (state.shown) return
    const markShown = () => {
      if (state.shown) return
      state.shown = true
      for (const l of state.listeners) l()
    }
    let settled = false
    let frame = 0
    let timer: ReturnType<typeof setTimeout> | undefined
    const settle = () => {
      if (settled) return
      settled = true
      unsubscribe()
      unsubscribeRouter()
      clearTimeout(cap)
      // After the frame that paints the page: rAF runs just before that paint, the timeout after it.
      frame = requestAnimationFrame(() => {
        timer = setTimeout(markShown, 0)
      })
    }
    const check = () => {
      if (client.isFetching() === 0 && router.state.status === 'idle' && !router.state.isLoading) settle()
    }
    const unsubscribe = client.getQueryCache().subscribe(check)
    // A page whose queries ended while its route was still loading is shown when the route resolves.
    const unsubscribeRouter = router.subscribe('onResolved', check)
    const cap = setTimeout(settle, capMs)
    // The page's own queries started in its effects, which ran before this (children first).
    check()
    return () => {
      unsubscribe()
      unsubscribeRouter()
      clearTimeout(cap)
      cancelAnimationFrame(frame)
      clearTimeout(timer)
    }
  }, [client, router, state, capMs])
  return isShown
}
