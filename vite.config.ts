import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'

/** `npm run dev`: the same proxy app (and simulator) answers /api behind Vite's hot reload. */
function switchboardApi(): Plugin {
  return {
    name: 'switchboard-api',
    apply: 'serve',
    async configureServer(server) {
      const { loadConfig } = await import('./proxy/config.ts')
      const { resolveUpstream } = await import('./proxy/server.ts')
      const { createApp } = await import('./proxy/app.ts')
      const { createForwarder } = await import('./proxy/forward.ts')
      const config = loadConfig()
      const resolved = await resolveUpstream(config)
      const forwarder = createForwarder(resolved.upstream, config.timeoutMs)
      const app = createApp(config, { forwarder })
      server.middlewares.use((req, res, next) => {
        if (req.url?.startsWith('/api')) app(req, res, next)
        else next()
      })
      server.httpServer?.once('close', () => void Promise.all([forwarder.close(), resolved.close()]))
      server.config.logger.info(`  /api → ${resolved.label}`)
    },
  }
}

export default defineConfig({
  plugins: [react(), tailwindcss(), switchboardApi()],
  server: { host: '127.0.0.1', port: 5173, strictPort: false },
  build: {
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
})
