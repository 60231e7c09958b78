import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freshPgliteDir } from '../proxy/testing/pglite-template.ts'
import { SERVER_NODE_FLAGS } from '../scripts/server-flags.mjs'

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
  viaTsx = true,
): Promise<Proc> {
  const argv = viaTsx ? ['--import', 'tsx', ...args] : args
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
 * The server as `npm start` runs it: the compiled build/server (made by `npm run build`, which
 * `npm test` runs before the browser tests), not the TypeScript through tsx, which costs each
 * start seconds of CPU. A build older than the server's sources is refused, naming the command.
 */
const SERVER_JS = join(process.cwd(), 'build', 'server', 'proxy', 'server.js')

function newest(path: string): number {
  const st = statSync(path)
  if (!st.isDirectory()) return st.mtimeMs
  let t = 0
  for (const entry of readdirSync(path)) t = Math.max(t, newest(join(path, entry)))
  return t
}

function compiledServer(): string {
  const sources = Math.max(newest(join(process.cwd(), 'proxy')), newest(join(process.cwd(), 'contract')))
  if (!existsSync(SERVER_JS) || statSync(SERVER_JS).mtimeMs < sources)
    throw new Error(`${SERVER_JS} is missing or older than proxy/: run \`npm run build\` before the browser tests.`)
  return SERVER_JS
}

/**
 * A new data directory holding a fresh, migrated PGlite database with no rows: nothing indexed,
 * no user, no log entry, as the server's first start leaves it. It is a copy of the tests'
 * template (proxy/db/pglite-template.ts), which saves each extra server PGlite's initdb (4–10 s
 * of CPU here). The e2e stacks (e2e/serve.ts) still start on an empty directory, as an install
 * does, and so does the test of the refusal to start on 0.0.0.0.
 */
export async function freshDataDir(prefix = 'switchboard-e2e-proc-'): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  rmSync(dir, { recursive: true })
  await freshPgliteDir(dir)
  return dir
}

/**
 * The compiled server (or a test composition of it in TypeScript, such as e2e/clock-server.ts,
 * which reads commands on stdin), on a fresh data directory (removed when it stops) unless the
 * test names one: the default directory is one process's at a time, and the two e2e stacks run
 * tests side by side.
 */
export async function startProxy(port: number, env: Record<string, string>, script?: string): Promise<Proc> {
  const own = env.DATA_DIR === undefined ? await freshDataDir() : null
  const proc = await spawnProc(
    [...SERVER_NODE_FLAGS, script ?? compiledServer()],
    { PORT: String(port), HOST: '127.0.0.1', INDEX_AUTO_SYNC: 'off', ...(own ? { DATA_DIR: own } : {}), ...env },
    /Switchboard on/,
    script ? 'pipe' : 'ignore',
    script !== undefined,
  ).catch((err: unknown) => {
    if (own) rmSync(own, { recursive: true, force: true })
    throw err
  })
  if (!own) return proc
  // A directory it made is removed when the server stops.
  return {
    ...proc,
    stop: async () => {
      await proc.stop()
      rmSync(own, { recursive: true, force: true })
    },
  }
}
