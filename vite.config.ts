import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'

/**
 * `npm run dev`: the same composition as `npm start` (the upstream or simulator, the index and
 * team access, from the same variables and .env) answers /api behind Vite's hot reload. It opens
 * no control socket: `npm run users` waits for the data directory while it runs.
 */
function switchboardApi(): Plugin {
  return {
    name: 'switchboard-api',
    apply: 'serve',
    async configureServer(server) {
      const { parseConfig, readDotEnv } = await import('./proxy/config.ts')
      const { composeApp, resolveUpstream } = await import('./proxy/server.ts')
      const { openRooms, roomsConfigIssues } = await import('./proxy/rooms.ts')
      const { createForwarder } = await import('./proxy/forward.ts')
      // As `npm start` reads them: .env first, the environment over it (the index's and team
      // access's variables too: they came from the environment only, and a .env's were ignored).
      const env = { ...readDotEnv(`${process.cwd()}/.env`), ...process.env }
      const config = parseConfig(env)
      const roomsCfg = roomsConfigIssues(env, config)
      if (!roomsCfg.config) throw new Error(roomsCfg.issues.join('\n'))
      // Beside the index's data, as `npm start` keeps them: the history a restart finds is the one it indexed.
      const kept = roomsCfg.config.index.databaseUrl ? null : `${roomsCfg.config.index.dataDir}/simulator-port`
      const resolved = await resolveUpstream(config, kept, Date.now)
      const forwarder = createForwarder(resolved.upstream, config.timeoutMs)
      const rooms = await openRooms(roomsCfg.config, { forwarder })
      const app = composeApp(config, forwarder, resolved.upstream.baseUrl, rooms, {}, resolved.simulator)
      server.middlewares.use((req, res, next) => {
        if (req.url?.startsWith('/api')) app(req, res, next)
        else next()
      })
      server.httpServer?.once('close', () => void Promise.all([rooms.close(), forwarder.close(), resolved.close()]))
      server.config.logger.info(`  /api → ${resolved.label}`)
    },
  }
}

/**
 * V8's explicit compile hint on the entry chunk: every function in it is compiled while the
 * script streams in, on a background thread, instead of on the main thread the first time it
 * runs. Without it, the code that first runs when the numbers arrive (the table's rows, the
 * reconciler paths for them) was compiled inside that window: 3–8 ms of lazy compilation.
 * Lazily loaded chunks (history page, CSV) stay lazy.
 */
const COMPILE_HINT = '//# allFunctionsCalledOnLoad'

function eagerEntryCompile(): Plugin {
  return {
    name: 'switchboard-eager-entry-compile',
    apply: 'build',
    // After minification, which would drop the comment, and after Vite's own generateBundle, which
    // puts its preload map (`const __vite__mapDeps=…`) first: V8 reads the hint only on the first
    // line, and below that line it was ignored. scripts/build.mjs fails a build without it.
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const file of Object.values(bundle)) if (file.type === 'chunk' && file.isEntry) file.code = `${COMPILE_HINT}\n${file.code}`
      },
    },
  }
}

export default defineConfig({
  plugins: [react(), tailwindcss(), switchboardApi(), eagerEntryCompile()],
  server: { host: '127.0.0.1', port: 5173, strictPort: false },
  resolve: {
    alias: {
      // TanStack's store reads useSyncExternalStoreWithSelector from the shim, which also carries a
      // fallback for React before 18; React 19 has the hook, and this entry uses it (0.19 KiB gzip less in the entry chunk).
      'use-sync-external-store/shim/with-selector': 'use-sync-external-store/with-selector',
    },
  },
  build: {
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    // dist/.vite/manifest.json: the server names the first page's chunks from it (proxy/static.ts).
    manifest: true,
    rolldownOptions: {
      output: {
        // Everything the entry imports statically, in the entry chunk itself. Left to itself Rolldown
        // cut that code into a dozen shared chunks (the router, TanStack Query with zod, the table…)
        // because lazy pages import them too; the HTML then preloaded them all anyway, each
        // compressed on its own and joined by long import/export lists, several KiB more gzip than
        // one file. Lazy pages import what they share with the first page from the entry.
        codeSplitting: { groups: [{ name: 'index', tags: ['$initial'] }] },
      },
    },
  },
})
