/**
 * `npm run bench`: every group in one run. The browser and server groups (bench/run.mts) and the
 * message index group (bench/index.mts, both engines) and the support desk group
 * (bench/desk-queries.mts, both engines, and bench/desk.mts: the opt-out classifier's precision
 * and recall on the labelled corpus, segment counts against the reference corpus) run one after
 * the other in their own processes, so none's memory or JIT state colours another's figures.
 * BENCH_ONLY=numbers,numbers-throttled,history,layout,pages,proxy,simulator,export,index,desk,desk-rules picks groups.
 * BENCH_ONLY=scale runs the ten-million-message PostgreSQL run (bench/scale.mts); it takes a
 * quarter of an hour or more and about 9 GiB of disk, so only when asked for.
 */
import { spawnSync } from 'node:child_process'

const all = ['numbers', 'numbers-throttled', 'history', 'layout', 'pages', 'proxy', 'simulator', 'export', 'index', 'desk', 'desk-rules']
const asked = ['scale']
const only = (process.env.BENCH_ONLY ?? all.join(',')).split(',').map((s) => s.trim())
const unknown = only.filter((g) => !all.includes(g) && !asked.includes(g))
if (unknown.length) {
  console.error(`BENCH_ONLY: unknown group(s) ${unknown.join(', ')}; choose from ${[...all, ...asked].join(', ')}`)
  process.exit(2)
}
const ui = only.filter((g) => !['index', 'desk', 'desk-rules', 'scale'].includes(g))
let failed = false
const run = (file: string, env: Record<string, string>) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit', env: { ...process.env, ...env } })
  if (r.status !== 0) failed = true
}
if (ui.length) run('bench/run.mts', { BENCH_ONLY: ui.join(',') })
if (only.includes('index')) run('bench/index.mts', {})
if (only.includes('desk')) run('bench/desk-queries.mts', {})
if (only.includes('desk-rules')) run('bench/desk.mts', {})
if (only.includes('scale')) run('bench/scale.mts', {})
process.exit(failed ? 1 : 0)
