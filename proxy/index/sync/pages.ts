import type { Worker } from 'node:worker_threads'
import { Worker as NodeWorker } from 'node:worker_threads'
import { tsWorker } from '../../ts-worker.ts'
import { workerHeapDefaults } from '../../worker-heap.ts'
import type { FromWorker, Parsed, ToWorker } from './page-protocol.ts'
import type { BatchOf, CopyPayload } from './prepare.ts'

/**
 * The server's side of the page worker (page-worker.ts): one thread for all of this server's
 * full walks, started with the first walk that uses it and stopped IDLE_MS after the last one
 * ends (its heap, tens of megabytes after a million-message walk, goes back to the system), or
 * with the syncer. A walk
 * hands it each page's bytes, tells it which records to keep, and asks it for each batch ready
 * to COPY. If the thread dies, what it held dies with it: the calls waiting on it fail, a later
 * call starts a new one, and a batch that comes back short fails its walk (build checks the count),
 * which then resumes from its last checkpoint.
 */
export interface PageWorker {
  /**
   * Hands the page's bytes to the thread: moved there when `owned` (forward.ts Bytes: the caller
   * must not touch them again; a page to judge comes back as `parsed.bytes`), else copied.
   */
  parse: (walk: string, start: number, bytes: Buffer, owned?: boolean) => Promise<{ id: number; parsed: Parsed }>
  take: (walk: string, id: number, ranges: Array<[number, number]>) => void
  drop: (walk: string, id: number) => void
  /** The rows taken since the last build, as a COPY payload; rejects unless it holds exactly `rows` of them. */
  build: (walk: string, of: BatchOf, rows: number) => Promise<CopyPayload>
  end: (walk: string) => void
  /** Whether the thread is running (tests). */
  alive: () => boolean
  close: () => Promise<void>
}

type Waiting = { resolve: (m: FromWorker) => void; reject: (e: Error) => void }

/** How long the thread outlives the last walk that used it (walks of several numbers follow one another). */
const IDLE_MS = 2_000

/** A thread running page-worker.ts (its compiled .js in production), its answers handed to `answered`; `died` hears its error or exit. */
function startThread(answered: (m: FromWorker) => void, died: (w: Worker, why: string) => void): Worker {
  workerHeapDefaults()
  const here = import.meta.url
  const w = here.endsWith('.ts') ? tsWorker(new URL('./page-worker.ts', here)) : new NodeWorker(new URL('./page-worker.js', here))
  // It never keeps the process alive on its own; the syncer's close stops it.
  w.unref()
  w.on('message', answered)
  w.on('error', (e) => died(w, e.message))
  w.on('exit', (code) => died(w, `exit code ${code}`))
  return w
}

/** A parse's answer, or the error the thread sent instead. */
function parsedOf(m: FromWorker): Parsed {
  if ('error' in m) throw new Error(m.error)
  if (!('parsed' in m)) throw new Error('The page worker answered a parse with something else.')
  return m.parsed
}

/** A build's answer, checked to hold exactly the `rows` taken (a thread that died and came back holds fewer). */
function payloadOf(m: FromWorker, rows: number): CopyPayload {
  if ('error' in m) throw new Error(`The page worker could not prepare a batch: ${m.error}`)
  if (!('payload' in m)) throw new Error('The page worker answered a build with something else.')
  if (m.payload.count !== rows) throw new Error(`The page worker prepared ${m.payload.count} rows where ${rows} were taken.`)
  return m.payload
}

export function pageWorker(): PageWorker {
  let worker: Worker | null = null
  let nextId = 1
  const waiting = new Map<number, Waiting>()
  /** Walks that used the thread and have not ended. */
  const walks = new Set<string>()
  let idle: NodeJS.Timeout | null = null

  const fail = (why: string) => {
    worker = null
    const err = new Error(`The sync's page worker stopped: ${why}`)
    for (const w of waiting.values()) w.reject(err)
    waiting.clear()
  }

  const start = (): Worker =>
    startThread(
      (m) => {
        const got = waiting.get(m.id)
        waiting.delete(m.id)
        got?.resolve(m)
      },
      (w, why) => worker === w && fail(why),
    )

  const send = (m: ToWorker, transfer: ArrayBuffer[] = []) => {
    walks.add(m.walk)
    if (idle) clearTimeout(idle)
    idle = null
    ;(worker ??= start()).postMessage(m, transfer)
  }
  // What waits on the thread fails at once, before it is terminated: a call made meanwhile goes to a new one.
  const stop = async () => {
    const w = worker
    fail('closed')
    if (w) await w.terminate()
  }
  const ask = (make: (id: number) => ToWorker, transfer: ArrayBuffer[] = []) =>
    new Promise<FromWorker>((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve, reject })
      try {
        send(make(id), transfer)
      } catch (e) {
        waiting.delete(id)
        reject(e instanceof Error ? e : new Error(String(e)))
      }
    })

  return {
    parse: async (walk, start, bytes, owned = false) => {
      let page = 0
      // A page of its own moves to the thread: no megabyte copied on this thread (and kept here
      // until a collection) for every page of a walk. Else it is copied, and the caller keeps its own.
      const move = owned && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
      const m = await ask((id) => ((page = id), { t: 'parse', walk, id, start, bytes }), move ? [bytes.buffer] : [])
      return { id: page, parsed: parsedOf(m) }
    },
    take: (walk, id, ranges) => send({ t: 'take', walk, id, ranges }),
    drop: (walk, id) => worker?.postMessage({ t: 'drop', walk, id } satisfies ToWorker),
    build: async (walk, of, rows) => payloadOf(await ask((id) => ({ t: 'build', walk, id, of })), rows),
    end: (walk) => {
      if (!walks.delete(walk)) return
      worker?.postMessage({ t: 'end', walk } satisfies ToWorker)
      if (walks.size > 0 || idle) return
      idle = setTimeout(() => {
        idle = null
        if (walks.size === 0) void stop()
      }, IDLE_MS)
      idle.unref()
    },
    alive: () => worker !== null,
    close: async () => {
      if (idle) clearTimeout(idle)
      idle = null
      walks.clear()
      await stop()
    },
  }
}
