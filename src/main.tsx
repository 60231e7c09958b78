import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App, preloadPages } from './app/app'
import { whenQuiet } from './app/preload'
import { matchRoute } from './app/routes'
import { numbersQuery, readNumberTab } from './api/numbers'
import { Providers, createQueryClient } from './app/providers'
import './index.css'

const client = createQueryClient()
// The numbers page is in this chunk: on a first visit its list leaves now, while React builds the
// first render (on a phone-speed CPU ~0.3 s the request no longer waits behind); the page's own
// query picks up the request in flight.
if (matchRoute(window.location.pathname).name === 'numbers')
  void client.prefetchQuery(numbersQuery(readNumberTab(new URLSearchParams(window.location.search).get('tab'))))
whenQuiet(client, preloadPages)
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Providers client={client}>
      <App />
    </Providers>
  </StrictMode>,
)
