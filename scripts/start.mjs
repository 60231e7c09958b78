// `npm start`: build what is missing or older than its sources (the SPA with Vite, the server
// with tsc — build tools, run before the server, never inside it), then run the compiled
// server with plain `node`. No TypeScript loader and no Vite in the serving process.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { buildServer, buildSpa } from './build.mjs'
import { SERVER_NODE_FLAGS } from './server-flags.mjs'

const root = process.cwd()
const newest = (...paths) => {
  let t = 0
  for (const p of paths) {
    if (!existsSync(p)) continue
    const st = statSync(p)
    if (!st.isDirectory()) t = Math.max(t, st.mtimeMs)
    else for (const entry of readdirSync(p)) t = Math.max(t, newest(join(p, entry)))
  }
  return t
}
const builtAt = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0)

try {
  const spa = join(root, 'dist', 'index.html')
  if (
    builtAt(spa) <
    newest(join(root, 'src'), join(root, 'contract'), join(root, 'index.html'), join(root, 'vite.config.ts'), join(root, 'public'))
  ) {
    console.log('Building the dashboard (vite build)…')
    buildSpa()
  }
  const server = join(root, 'build', 'server', 'proxy', 'server.js')
  if (builtAt(server) < newest(join(root, 'proxy'), join(root, 'contract'), join(root, 'tsconfig.server.json'))) {
    console.log('Building the server (tsc)…')
    buildServer()
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err)
  process.exit(1)
}

const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, join(root, 'build', 'server', 'proxy', 'server.js')], { stdio: 'inherit' })
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
child.on('exit', (code) => process.exit(code ?? 0))
