import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app/app'
import { preloadFirstPage } from './app/preload'
import { Providers, createQueryClient } from './app/providers'
import './index.css'

const client = createQueryClient()
preloadFirstPage(client, window.location)
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Providers client={client}>
      <App />
    </Providers>
  </StrictMode>,
)
