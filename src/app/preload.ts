import type { QueryClient } from '@tanstack/react-query'
import { pagesLoading } from './lazy-page'

/**
 * Runs `work` once the first page is quiet: the window has loaded, no query is fetching, no page
 * module is on its way (the first page's own chunk among them), and the
 * browser is idle. Checked every half second while queries fetch; after 20 s it runs regardless.
 */
export function whenQuiet(client: QueryClient, work: () => void): void {
  const idle = (f: () => void) => (window.requestIdleCallback ? window.requestIdleCallback(f, { timeout: 2000 }) : setTimeout(f, 200))
  const until = Date.now() + 20_000
  const attempt = () =>
    idle(() => {
      if ((client.isFetching() > 0 || pagesLoading() > 0) && Date.now() < until) setTimeout(attempt, 500)
      else work()
    })
  if (document.readyState === 'complete') attempt()
  else window.addEventListener('load', attempt, { once: true })
}
