import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A separate simulator + proxy pair in their own processes, for tests that stop the upstream
 * or plant a sentinel token. Output is captured so tests can read the server's logs.
 */
export interface Proc {
  child: ChildProcess
  output: () => string
  stop: () => Promise<void>
}

/** Every process a test started, stopped when the worker exits: a test that fails between starting
 * a simulator and its server (or while one starts) would otherwise leave it holding its port. */
const started = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL')
})

export async function spawnProc(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  stdin: 'ignore' | 'pipe' = 'ignore',
): Promise<Proc> {
  const argv = ['--import', 'tsx', ...args]
  const spawnEnv = { ...process.env, ...env }
  const child =
    stdin === 'pipe'
      ? spawn(process.execPath, argv, { env: spawnEnv, stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(process.execPath, argv, { env: spawnEnv, stdio: ['ignore', 'pipe', 'pipe'] })
  started.add(child)
  child.once('exit', () => started.delete(child))
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`process did not start: ${out}`))
    }, 90_000) // opening PGlite can take half a minute on a busy 2-core machine
    const check = () => {
      if (ready.test(out)) {
        clearTimeout(t)
        resolve()
      }
    }
    child.stdout.on('data', check)
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
  return {
    child,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
        setTimeout(() => child.kill('SIGKILL'), 3000).unref()
      }),
  }
}

// Control doors open (SIMULATOR_CONTROL=1): specs switch faults on through /__sim/*.
export const startSimulator = (port: number, env: Record<string, string> = {}) =>
  spawnProc(['proxy/simulator/main.ts', String(port)], { SIMULATOR_CONTROL: '1', ...env }, /simulator listening/)

/**
 * The server (or a test composition of it, such as e2e/clock-server.ts, which reads commands on stdin),
 * on a fresh data directory unless the test names one: the default directory is one process's at a
 * time, and the two e2e stacks run tests side by side.
 */
export const startProxy = (port: number, env: Record<string, string>, script = 'proxy/server.ts') =>
  spawnProc(
    [script],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      INDEX_AUTO_SYNC: 'off',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'switchboard-e2e-proc-')),
      ...env,
    },
    /Switchboard on/,
    script === 'proxy/server.ts' ? 'ignore' : 'pipe',
  )
