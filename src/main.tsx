import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App, firstPageModule, preloadPages } from './app/app'
import { whenQuiet } from './app/preload'
import { Providers, createQueryClient } from './app/providers'
import './index.css'

const client = createQueryClient()
whenQuiet(client, preloadPages)
const render = () =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <Providers client={client}>
        <App />
      </Providers>
    </StrictMode>,
  )
// A page loaded on demand is awaited (at most 2 s; a failed load is the page's error boundary's
// to show) so that React's first render is the page, not "Loading…".
const first = firstPageModule(window.location.pathname)
if (first) void Promise.race([first.catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]).then(render)
else render()
