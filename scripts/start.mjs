// `npm start`: build the SPA when the build is missing or older than its sources, then serve it.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const root = process.cwd()
const newest = (dir) => {
  let t = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return t
}
const built = join(root, 'dist', 'index.html')
const sources = Math.max(newest(join(root, 'src')), statSync(join(root, 'index.html')).mtimeMs, statSync(join(root, 'vite.config.ts')).mtimeMs)
if (!existsSync(built) || statSync(built).mtimeMs < sources) {
  console.log('Building the dashboard…')
  execFileSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], { stdio: 'inherit' })
}
const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'proxy', 'server.ts')], { stdio: 'inherit' })
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
child.on('exit', (code) => process.exit(code ?? 0))
