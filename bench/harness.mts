/**
 * What the bench groups that drive a server in a process of its own share: starting and stopping
 * node processes, reading a JSON answer, /api/meta probed from a thread of its own while work
 * runs, the route handlers' own time (server time), settings read from the environment, and the
 * figures a group records and prints as it goes.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { RouteSpec } from '../proxy/http-types.ts'
import { figure, type Budget, type Figure } from './stats.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** BENCH_PROF=dir: the servers and simulators started here write V8 CPU profiles (every thread, PGlite's too) there. */
const PROF = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []

/** A whole-number setting from the environment, or `fallback`; out of range, the run stops naming it. */
export function whole(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`${name} must be a whole number from ${min} to ${max}`)
    process.exit(2)
  }
  return n
}

/** The engines a group runs on, from `variable` (pglite, postgres or both; both by default); an unknown one stops the run. */
export function engines(variable: string): Array<'pglite' | 'postgres'> {
  const out = (process.env[variable] ?? 'pglite,postgres').split(',').map((e) => e.trim())
  for (const e of out)
    if (e !== 'pglite' && e !== 'postgres') {
      console.error(`${variable}: unknown engine ${e}; choose pglite, postgres or both`)
      process.exit(2)
    }
  return out as Array<'pglite' | 'postgres'>
}

/** Node with `args` (a TypeScript file's under tsx: pass ['--import', 'tsx', file]) until `ready` is printed. */
export function startProc(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray; ms: number }> {
  const t0 = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...PROF, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start`)), 120_000)
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
      const m = ready.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve({ child, match: m, ms: performance.now() - t0 })
      }
    })
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code})`)))
  })
}

export async function stopProc(p: ChildProcess) {
  if (p.exitCode !== null) return
  const gone = new Promise<void>((ok) => p.once('exit', () => ok()))
  p.kill('SIGTERM')
  const t = setTimeout(() => p.kill('SIGKILL'), 30_000)
  await gone
  clearTimeout(t)
}

export async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url)
  if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`)
  return (await r.json()) as T
}

export interface LoopDelay {
  maxMs: number
  p99Ms: number
}

/**
 * The prober: /api/meta every 50 ms, in a thread of its own. In this process's event loop it
 * measured this process too: behind the 50 searching clients' answers (1,757 a second) and the
 * export's million rows, read here, its p99 took 43 ms while the server's own event loop stayed
 * under 20 ms.
 */
const PROBER = `
const { parentPort, workerData } = require('node:worker_threads')
let done = false
parentPort.on('message', () => (done = true))
const probe = async () => {
  const t0 = performance.now()
  const r = await fetch(workerData.url + '/api/meta')
  await r.arrayBuffer()
  if (!r.ok) throw new Error('/api/meta answered ' + r.status)
  return performance.now() - t0
}
;(async () => {
  // Not counted: a new thread's first fetch loads and compiles its HTTP client.
  await probe()
  await probe()
  parentPort.postMessage('ready')
  const probes = []
  while (!done) {
    probes.push(await probe())
    await new Promise((ok) => setTimeout(ok, 50))
  }
  parentPort.postMessage(probes)
})()
`

/**
 * Runs `work` while /api/meta (no database) is asked every 50 ms: the probes' round trips and
 * the server's event-loop delay over the same stretch, which is what every other request feels.
 * The delay is read from `${benchUrl}/__bench/loop` (read and restarted): the server's own
 * address where it answers the bench's paths itself, else the bench's door beside it.
 */
export async function probeDuring<T>(
  url: string,
  work: () => Promise<T>,
  benchUrl = url,
): Promise<{ result: T; probes: number[]; loop: LoopDelay }> {
  await getJson(`${benchUrl}/__bench/loop`) // restarts the server's histogram
  const prober = new Worker(PROBER, { eval: true, workerData: { url } })
  const answer = () =>
    new Promise<unknown>((resolve, reject) => {
      prober.once('message', resolve)
      prober.once('error', reject)
    })
  await answer() // 'ready'
  const probed = answer() as Promise<number[]>
  let result: T
  try {
    result = await work()
  } finally {
    prober.postMessage('stop')
  }
  const probes = await probed
  await prober.terminate()
  return { result, probes, loop: await getJson<LoopDelay>(`${benchUrl}/__bench/loop`) }
}

/**
 * `routes` with the handlers of those `timed` picks wrapped: each call's time, from the handler
 * being called to its answer being written (access-log entry included), kept under its path.
 */
export function timeRoutes(routes: RouteSpec[], timed: (r: RouteSpec) => boolean, times: Map<string, number[]>): RouteSpec[] {
  return routes.map((r) =>
    timed(r)
      ? {
          ...r,
          handle: async (...args: Parameters<typeof r.handle>) => {
            const t0 = performance.now()
            await r.handle(...args)
            const list = times.get(r.path) ?? []
            list.push(performance.now() - t0)
            times.set(r.path, list)
          },
        }
      : r,
  )
}

/** One figure as measured: one value, or each run's (`samples`, the median quoted). */
export type Row = {
  engine: string
  name: string
  unit: string
  budget?: Budget
  family?: string
  note?: string
  /** The group the summary files it under, where a group's file holds more than one ('watch', 'alerts'). */
  group?: string
} & ({ value: number; samples?: undefined } | { samples: number[]; value?: undefined })

/** A group's figures, and `push`, which makes one from a row, keeps it and prints its line. */
export function recorder(group: string): { figures: Figure[]; push: (r: Row) => void } {
  const figures: Figure[] = []
  const push = (r: Row) => {
    const { engine, name, unit, budget, family, note } = r
    const f = figure(r.group ?? group, name, unit, r.samples ?? [r.value], {
      engine,
      ...(budget ? { budget } : {}),
      ...(family ? { family } : {}),
      ...(note ? { note } : {}),
    })
    figures.push(f)
    const v = f.value
    const b = budget
      ? `${budget.on === 'max' ? 'worst ' : ''}${budget.op} ${budget.limit.toLocaleString('en-US')}${f.pass ? '' : ' MISSED'}`
      : ''
    console.log(
      `  ${engine.padEnd(8)} ${name.padEnd(58)} ${(Number.isFinite(v) ? v.toFixed(v < 10 ? 2 : 0) : 'n/a').padStart(10)} ${unit.padEnd(6)} ${b} ${note ?? ''}`,
    )
  }
  return { figures, push }
}
