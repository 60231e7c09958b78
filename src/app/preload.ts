import type { QueryClient } from '@tanstack/react-query'
import type { AppRouter } from './routes'

/**
 * Runs `work` once the first page is quiet: the window has loaded, no query is fetching, the
 * router is not loading a page (the first page's own chunk among them), and the browser is idle.
 * Checked every half second while queries fetch; after 20 s it runs regardless.
 */
export function whenQuiet(client: QueryClient, router: AppRouter, work: () => void): void {
  // Safari has no requestIdleCallback (its DOM types say every browser does).
  const idle = (f: () => void) => ('requestIdleCallback' in window ? window.requestIdleCallback(f, { timeout: 2000 }) : setTimeout(f, 200))
  const until = Date.now() + 20_000
  const attempt = () =>
    idle(() => {
      const busy = client.isFetching() > 0 || router.state.isLoading || router.state.status === 'pending'
      if (busy && Date.now() < until) setTimeout(attempt, 500)
      else work()
    })
  if (document.readyState === 'complete') attempt()
  else window.addEventListener('load', attempt, { once: true })
}
