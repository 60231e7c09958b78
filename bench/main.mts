/**
 * `npm run bench`: every group in one run. The browser and server groups (bench/run.mts) and the
 * message index group (bench/index.mts, both engines) run one after the other in their own
 * processes, so neither's memory or JIT state colours the other's figures.
 * BENCH_ONLY=numbers,history,layout,pages,proxy,simulator,export,index picks groups.
 */
import { spawnSync } from 'node:child_process'

const all = ['numbers', 'history', 'layout', 'pages', 'proxy', 'simulator', 'export', 'index']
const only = (process.env.BENCH_ONLY ?? all.join(',')).split(',').map((s) => s.trim())
const unknown = only.filter((g) => !all.includes(g))
if (unknown.length) {
  console.error(`BENCH_ONLY: unknown group(s) ${unknown.join(', ')}; choose from ${all.join(', ')}`)
  process.exit(2)
}
const ui = only.filter((g) => g !== 'index')
let failed = false
const run = (file: string, env: Record<string, string>) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit', env: { ...process.env, ...env } })
  if (r.status !== 0) failed = true
}
if (ui.length) run('bench/run.mts', { BENCH_ONLY: ui.join(',') })
if (only.includes('index')) run('bench/index.mts', {})
process.exit(failed ? 1 : 0)
