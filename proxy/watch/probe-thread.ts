import { Worker } from 'node:worker_threads'
import { tsWorker } from '../ts-worker.ts'
import { checkUrl, allowedHostsTest, type CheckResult } from './probe.ts'
import { workerHeapDefaults } from '../worker-heap.ts'

/**
 * The checks on a thread of their own. A round is a hundred connections at once, half of them TLS
 * handshakes: on the server's event loop they held it for tens of milliseconds at a time, and the
 * proxy's answers waited behind them. The thread starts with a round's first check and stops once
 * no check has used it for IDLE_MS; a check the thread cannot answer (it died) runs here instead,
 * so a round never loses a URL.
 */

/** One check, as the thread is asked it (all plain data: the allow-list as its entries). */
export interface CheckAsked {
  id: number
  url: string
  /** The check's time (the watch's clock, which tests move). */
  at: number
  timeoutMs: number
  allowedHosts: string[]
  ca?: Array<string | Buffer>
}

export interface ProbeThread {
  check: (url: string, opts: Omit<CheckAsked, 'id' | 'url'>) => Promise<CheckResult>
  /** Whether the thread is running (tests). */
  alive: () => boolean
  close: () => Promise<void>
}

const IDLE_MS = 30_000

export function openProbeThread(log: (line: string) => void): ProbeThread {
  let worker: Worker | null = null
  let idle: NodeJS.Timeout | null = null
  let nextId = 0
  const waiting = new Map<number, { asked: CheckAsked; resolve: (r: CheckResult) => void }>()

  /** Runs here what the thread was asked and will not answer. */
  const fallBack = () => {
    const left = [...waiting.values()]
    waiting.clear()
    for (const w of left) void inThread(w.asked).then(w.resolve)
  }
  const start = () => {
    workerHeapDefaults()
    const here = import.meta.url
    const w = here.endsWith('.ts') ? tsWorker(new URL('./probe-worker.ts', here)) : new Worker(new URL('./probe-worker.js', here))
    // It never keeps the process alive on its own; close() or the idle timer stops it.
    w.unref()
    w.on('message', (m: { id: number; result: CheckResult }) => {
      const one = waiting.get(m.id)
      waiting.delete(m.id)
      one?.resolve(m.result)
      if (waiting.size === 0) idleSoon()
    })
    const died = (why: string) => {
      if (worker !== w) return
      worker = null
      if (waiting.size > 0) log(`watch: the checks' thread stopped (${why}); its ${waiting.size} checks run on the main thread`)
      fallBack()
    }
    w.on('error', (e) => died(e.message))
    w.on('exit', (code) => died(`exit code ${code}`))
    return w
  }
  const stop = async () => {
    if (idle) clearTimeout(idle)
    idle = null
    const w = worker
    worker = null
    fallBack()
    if (w) await w.terminate()
  }
  const idleSoon = () => {
    if (idle) clearTimeout(idle)
    idle = setTimeout(() => {
      idle = null
      if (waiting.size === 0) void stop()
    }, IDLE_MS)
    idle.unref()
  }

  return {
    check: (url, opts) =>
      new Promise<CheckResult>((resolve) => {
        const asked: CheckAsked = { id: nextId++, url, ...opts }
        if (idle) clearTimeout(idle)
        idle = null
        waiting.set(asked.id, { asked, resolve })
        try {
          ;(worker ??= start()).postMessage(asked)
        } catch (err) {
          log(`watch: the checks' thread could not take a check (${err instanceof Error ? err.message : String(err)}); it runs here`)
          waiting.delete(asked.id)
          void inThread(asked).then(resolve)
        }
      }),
    alive: () => worker !== null,
    close: stop,
  }
}

function inThread(a: CheckAsked): Promise<CheckResult> {
  return checkUrl(a.url, {
    timeoutMs: a.timeoutMs,
    allowed: allowedHostsTest(a.allowedHosts),
    ...(a.ca ? { ca: a.ca } : {}),
    now: () => a.at,
  })
}
