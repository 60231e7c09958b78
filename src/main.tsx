import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App, preloadPages } from './app/app'
import { whenQuiet } from './app/preload'
import { Providers, createQueryClient } from './app/providers'
import './index.css'

const client = createQueryClient()
whenQuiet(client, preloadPages)
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Providers client={client}>
      <App />
    </Providers>
  </StrictMode>,
)
