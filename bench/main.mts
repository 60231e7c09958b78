/**
 * `npm run bench`: every group in one run. The browser and server groups (bench/run.mts) and the
 * message index group (bench/index.mts, both engines) and the support desk group
 * (bench/desk-queries.mts, both engines, and bench/desk.mts: the opt-out classifier's precision
 * and recall on the labelled corpus, segment counts against the reference corpus) and the callback
 * watch and alerts group (bench/watch-alerts.mts, both engines) run one after the other in their
 * own processes, so none's memory or JIT state colours another's figures.
 * BENCH_ONLY=numbers,numbers-throttled,history,layout,pages,proxy,simulator,export,index,desk,desk-rules,watch-alerts picks groups.
 * BENCH_ONLY=scale runs the ten-million-message PostgreSQL run (bench/scale.mts); it takes a
 * quarter of an hour or more and about 9 GiB of disk, so only when asked for.
 *
 * Each group writes its figures to .bench/<group>.json (budgets as data, pass or fail computed
 * from them); after the last, this reads them and prints one screen: the commit, every budget,
 * its figure, spread and ✓ or ✗ (also written to .bench/summary.txt). Exits 1 when a budget was
 * missed or a group did not finish.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { groupFile, type GroupResult } from './stats.ts'
import { summarise, type GroupRun } from './summary.mts'
import { machineLines, readMachine, type MachineReading } from './machine.mts'

const ROOT = process.cwd()
const all = [
  'numbers',
  'numbers-throttled',
  'history',
  'layout',
  'pages',
  'proxy',
  'simulator',
  'export',
  'index',
  'desk',
  'desk-rules',
  'watch-alerts',
]
const asked = ['scale']
const only = (process.env.BENCH_ONLY ?? all.join(',')).split(',').map((s) => s.trim())
const unknown = only.filter((g) => !all.includes(g) && !asked.includes(g))
if (unknown.length) {
  console.error(`BENCH_ONLY: unknown group(s) ${unknown.join(', ')}; choose from ${[...all, ...asked].join(', ')}`)
  process.exit(2)
}
const ui = only.filter((g) => !['index', 'desk', 'desk-rules', 'watch-alerts', 'scale'].includes(g))
const runs: GroupRun[] = []
// The machine's speed and others' CPU before the first group and after each (bench/machine.mts).
const machine: MachineReading[] = [await readMachine('start')]
const run = async (file: string, script: string, env: Record<string, string>) => {
  // A file left by an earlier run must never stand for this one's.
  rmSync(groupFile(ROOT, file), { force: true })
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit', env: { ...process.env, ...env } })
  let result: GroupResult | null = null
  if (existsSync(groupFile(ROOT, file))) result = JSON.parse(readFileSync(groupFile(ROOT, file), 'utf8')) as GroupResult
  runs.push({ file, exitCode: r.status, result })
  machine.push(await readMachine(file))
}
const git = (...args: string[]) => {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return ''
  }
}
const commit = git('rev-parse', '--short', 'HEAD') || 'unknown commit'
// Taken before the groups run, which load the code then: tracked files changed means what was
// measured is not the commit alone.
const dirty = git('status', '--porcelain', '--untracked-files=no') ? ' dirty' : ''
if (ui.length) await run('ui', 'bench/run.mts', { BENCH_ONLY: ui.join(',') })
if (only.includes('index')) await run('index', 'bench/index.mts', {})
if (only.includes('desk')) await run('desk', 'bench/desk-queries.mts', {})
if (only.includes('desk-rules')) await run('desk-rules', 'bench/desk.mts', {})
if (only.includes('watch-alerts')) await run('watch-alerts', 'bench/watch-alerts.mts', {})
if (only.includes('scale')) await run('scale', 'bench/scale.mts', {})

const settings = Object.entries(process.env)
  .filter(([k]) => k.startsWith('BENCH_'))
  .map(([k, v]) => `${k}=${v}`)
  .join(' ')
const head = `bench at ${commit}${dirty}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC${settings ? `; ${settings}` : ''}`
const { lines: machineText } = machineLines(machine)
// The index group's fetch-and-parse baseline, beside it: the fixed work above missed a slow stretch it saw.
const baselines = runs
  .flatMap((r) => r.result?.figures ?? [])
  .filter((f) => f.name === 'baseline: fetch + parse the same pages')
  .map((f) => `${f.engine === 'postgres' ? 'PostgreSQL' : 'PGlite'} ${f.value.toFixed(1)} s (${f.min.toFixed(1)}–${f.max.toFixed(1)})`)
if (baselines.length)
  machineText.push(
    `machine: the index group's baseline (the simulator's million fetched and parsed, nothing stored) took ${baselines.join(', ')}; docs/performance.md gives it on a quiet machine`,
  )
const { text, failed } = summarise(runs, head, machineText)
mkdirSync(join(ROOT, '.bench'), { recursive: true })
writeFileSync(join(ROOT, '.bench', 'summary.txt'), `${text}\n`)
console.log(`\n${text}`)
process.exit(failed ? 1 : 0)
