import type { QueryClient } from '@tanstack/react-query'
import type { AppRouter } from './routes'

/** How long the user must have left the page alone (no scroll, wheel, key or touch) before the next task. */
export const STILL_MS = 1000
/** After this long the tasks run whatever the page is doing. */
export const QUIET_CAP_MS = 20_000
const INPUTS = ['scroll', 'wheel', 'keydown', 'pointerdown', 'touchstart'] as const

/**
 * Runs `tasks` once the first page is quiet, one task per idle period: the window has loaded, no
 * query is fetching, the router is not loading a page (the first page's own chunk among them),
 * the user has not scrolled, typed or touched for STILL_MS, and the browser is idle. Checked again
 * after half a second while queries fetch, and once the user has been still long enough; after
 * QUIET_CAP_MS they run regardless.
 *
 * The stillness and the one task per idle period are for scrolling: an idle period between two
 * frames is what is left of one frame, and all the preloads in one callback (one `<link>` per
 * chunk, and what that sets off) took 15 ms in one, which made that step of a scroll drop two
 * frames.
 */
export function whenQuiet(client: QueryClient, router: AppRouter, tasks: ReadonlyArray<() => void>): void {
  // Safari has no requestIdleCallback (its DOM types say every browser does).
  const idle = (f: () => void) => ('requestIdleCallback' in window ? window.requestIdleCallback(f, { timeout: 2000 }) : setTimeout(f, 200))
  const until = Date.now() + QUIET_CAP_MS
  const queue = [...tasks]
  let lastInput = Number.NEGATIVE_INFINITY
  const noteInput = () => {
    lastInput = performance.now()
  }
  // Capturing: scroll events do not bubble, and the pages scroll in their own regions.
  for (const type of INPUTS) document.addEventListener(type, noteInput, { capture: true, passive: true })
  const attempt = () =>
    idle(() => {
      const busy = client.isFetching() > 0 || router.state.isLoading || router.state.status === 'pending'
      const still = performance.now() - lastInput
      if ((busy || still < STILL_MS) && Date.now() < until) {
        setTimeout(attempt, busy ? 500 : STILL_MS - still)
        return
      }
      queue.shift()?.()
      if (queue.length > 0) attempt()
      else for (const type of INPUTS) document.removeEventListener(type, noteInput, { capture: true })
    })
  if (document.readyState === 'complete') attempt()
  else window.addEventListener('load', attempt, { once: true })
}
