// `npm run build`: what ships. The SPA (Vite → dist/) and the server (TypeScript 7's tsc → build/server/,
// plain JavaScript, SQL migrations copied beside it). Nothing here runs in the server process.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'

const root = process.cwd()

function run(label, args) {
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' })
  if (r.status !== 0) throw new Error(`${label} failed`)
}

/** Files the server reads at run time that tsc does not emit (SQL migrations, the common-password list). */
function copyAssets(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    if (entry.isDirectory()) copyAssets(p)
    else if (entry.name.endsWith('.sql') || entry.name.endsWith('.txt')) cpSync(p, join(root, 'build', 'server', relative(root, p)))
  }
}

export function buildSpa() {
  run('vite build', [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'])
  checkCompileHint()
}

/**
 * The entry chunk must open with V8's compile hint (vite.config.ts, eagerEntryCompile): V8 reads
 * it only on the first line. Vite's preload map once landed above it, and the numbers page's
 * first rows paid for the lazy compilation again without any check noticing.
 */
function checkCompileHint() {
  const manifest = JSON.parse(readFileSync(join(root, 'dist', '.vite', 'manifest.json'), 'utf8'))
  const entries = Object.values(manifest).filter((c) => c.isEntry)
  if (entries.length === 0) throw new Error('vite build: no entry chunk in dist/.vite/manifest.json')
  for (const { file } of entries) {
    const head = readFileSync(join(root, 'dist', file), 'utf8').slice(0, 64)
    if (!head.startsWith('//# allFunctionsCalledOnLoad\n'))
      throw new Error(`vite build: ${file} does not open with V8's compile hint (its first line: ${head.split('\n')[0]})`)
  }
}

/**
 * TypeScript 7's compiler (native, npm alias typescript-7) checks and emits: the same checker as
 * 6.0, in a quarter of the CPU. TypeScript 6.0 stays for what needs its JavaScript API
 * (typescript-eslint's typed rules, the PGlite worker's transpile, scripts/function-lengths.mjs).
 */
export const TSC = join(root, 'node_modules', 'typescript-7', 'bin', 'tsc')

export function buildServer() {
  rmSync(join(root, 'build', 'server'), { recursive: true, force: true })
  run('tsc (server)', [TSC, '-p', 'tsconfig.server.json'])
  copyAssets(join(root, 'proxy'))
  if (!existsSync(join(root, 'build', 'server', 'proxy', 'server.js'))) throw new Error('tsc did not emit build/server/proxy/server.js')
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const only = process.argv[2]
  try {
    if (only !== 'server') buildSpa()
    if (only !== 'spa') buildServer()
  } catch (err) {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  }
}
