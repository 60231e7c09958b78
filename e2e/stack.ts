import { spawn, type ChildProcess } from 'node:child_process'

/**
 * A separate simulator + proxy pair in their own processes, for tests that stop the upstream
 * or plant a sentinel token. Output is captured so tests can read the server's logs.
 */
export interface Proc {
  child: ChildProcess
  output: () => string
  stop: () => Promise<void>
}

export async function spawnProc(args: string[], env: Record<string, string>, ready: RegExp): Promise<Proc> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`process did not start: ${out}`)), 90_000) // opening PGlite can take half a minute on a busy 2-core machine
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

export const startProxy = (port: number, env: Record<string, string>) =>
  spawnProc(['proxy/server.ts'], { PORT: String(port), HOST: '127.0.0.1', INDEX_AUTO_SYNC: 'off', ...env }, /Switchboard on/)
