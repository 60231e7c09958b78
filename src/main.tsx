import { RouterProvider, type AnyRoute } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { preloadTray } from './app/layout'
import { whenQuiet } from './app/preload'
import { Providers, createQueryClient } from './app/providers'
import { createAppRouter, onDemandRoutes } from './app/routes'
import { loadMeasuredRows } from './components/data-table/measured-engine'
import { CARDS_QUERY } from './components/data-table/virtual-table'
import { noteOpenedLink } from './lib/opened-link'
import { phoneFormatting } from './lib/phone'
import './index.css'

// A narrow screen shows the numbers as cards, which are measured: that engine is fetched now,
// beside the numbers themselves, rather than when the first card is about to render.
if (matchMedia(CARDS_QUERY).matches) loadMeasuredRows().catch(() => undefined)

const client = createQueryClient()
// The address as opened, before the router leaves out what it cannot read: a page says what that was.
noteOpenedLink(window.location)
const router = createAppRouter()

/**
 * The other pages' code, the export tray, the measuring row engine and libphonenumber, fetched
 * once the first page has its data, the browser is idle and the user is not scrolling or typing
 * (./app/preload.ts): a first visit to a page then renders with no loading round, without
 * competing with the first page.
 */
whenQuiet(client, router, [
  () => void phoneFormatting(),
  () => void preloadTray().catch(() => undefined),
  () => void loadMeasuredRows().catch(() => undefined),
  ...onDemandRoutes.map((route) => () => void router.loadRouteChunk(route)?.catch(() => undefined)),
])

const render = () =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <Providers client={client}>
        <RouterProvider router={router} />
      </Providers>
    </StrictMode>,
  )

// The first page's code is awaited (at most 2 s; a failed load is the page's error component's to
// show) so that React's first render is the page, not its pending state. The server's Link header
// has usually fetched it beside the entry (proxy/page-hints.ts).
const routes: Record<string, AnyRoute> = router.routesById
const first = router.matchRoutes(router.latestLocation).flatMap((m: { routeId: string }) => {
  const route = routes[m.routeId]
  const loading = route && router.loadRouteChunk(route)
  return loading ? [loading] : []
})
void Promise.race([Promise.all(first).catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]).then(render)
