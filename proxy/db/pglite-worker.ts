import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite, type Transaction } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { DB_THREAD_NICE, toWire, type Ready, type Reply, type Request, type WorkerInit } from './pglite-protocol.ts'

/**
 * The thread that owns PGlite. PGlite's work is synchronous WebAssembly: here it holds this
 * thread, never the server's. The server's side (pglite-client.ts) sends one statement at a
 * time and decides the order; this side runs what it gets, in a transaction while one is open.
 */

const port = parentPort
if (!port) throw new Error('pglite-worker.ts runs as a worker thread (see pglite-client.ts).')
const { dataDir, pgliteWasmModule, initdbWasmModule } = workerData as WorkerInit

/*
 * This thread runs at a lower CPU priority than the server's (nice 10 against 0). On two cores an
 * export's or a search's statements here and the HTTP thread's answers compete; the HTTP thread's
 * work is short and someone waits on it (a page, a probe), so the kernel runs it first, and this
 * thread still takes every cycle the server's thread leaves. On Linux a nice value is per thread
 * (setpriority with pid 0 sets the calling thread's); elsewhere it would slow the whole process.
 */
if (process.platform === 'linux') {
  try {
    setPriority(0, DB_THREAD_NICE)
  } catch {
    // Not allowed here (a sandbox): the thread keeps the server's priority, which is only slower under load.
  }
}

/** The open transaction's handle and how to end it (PGlite's transaction() owns BEGIN/COMMIT). */
let tx: { handle: Transaction; end: (commit: boolean) => void; done: Promise<void> } | null = null
/** Thrown inside transaction() to make PGlite roll back. */
const ROLLBACK = Symbol('rollback')

async function handle(lite: PGlite, m: Request): Promise<Reply> {
  switch (m.op) {
    case 'query': {
      const q = tx?.handle ?? lite
      copyBytes = m.blob ?? null
      try {
        const r = await q.query<Record<string, unknown>>(m.sql, m.params, m.blob !== undefined ? { blob: blobOf(m.blob) } : undefined)
        return { id: m.id, ok: true, rows: r.rows }
      } finally {
        copyBytes = null
      }
    }
    case 'batch': {
      if (tx) throw new Error('A batch runs in a transaction of its own, not inside an open one.')
      const results = await lite.transaction(async (t) => {
        const out: Array<Array<Record<string, unknown>>> = []
        for (const st of m.statements) out.push((await t.query<Record<string, unknown>>(st.sql, st.params)).rows)
        return out
      })
      return { id: m.id, ok: true, results }
    }
    case 'exec':
      await (tx?.handle ?? lite).exec(m.sql)
      return { id: m.id, ok: true }
    case 'begin': {
      if (tx) throw new Error('A transaction is already open on this connection.')
      let opened!: (t: Transaction) => void
      const started = new Promise<Transaction>((resolve) => (opened = resolve))
      let end!: (commit: boolean) => void
      const ended = new Promise<boolean>((resolve) => (end = resolve))
      const done = lite
        .transaction(async (t) => {
          opened(t)
          if (!(await ended)) throw ROLLBACK
        })
        .then(
          () => {},
          (err: unknown) => {
            if (err !== ROLLBACK) throw err
          },
        )
      // BEGIN itself may fail (closed database): then `started` never settles, `done` rejects.
      const opening = await Promise.race([started, done.then(() => null)])
      if (!opening) throw new Error('The transaction could not start.')
      tx = { handle: opening, end, done }
      return { id: m.id, ok: true }
    }
    case 'end': {
      const open = tx
      if (!open) throw new Error('No transaction is open.')
      tx = null
      open.end(m.commit)
      await open.done
      return { id: m.id, ok: true }
    }
    case 'close':
      await lite.close()
      return { id: m.id, ok: true }
  }
}

/**
 * The COPY's bytes as the Blob PGlite asks for. PGlite only calls arrayBuffer() on it (and with
 * the fast reads below uses that only for the data's length): a real Blob would copy the bytes
 * into native memory and back out again for every batch.
 */
function blobOf(bytes: Uint8Array<ArrayBuffer>): Blob {
  if (!fastCopy) return new Blob([bytes])
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer
  return { arrayBuffer: () => Promise.resolve(whole), size: whole.byteLength } as unknown as Blob
}

/** The bytes of the COPY being run, for the /dev/blob reads below. */
let copyBytes: Uint8Array | null = null
/** Whether fastBlobReads took over the device's reads. */
let fastCopy = false

/** Emscripten's device read: `buffer` is the module's heap (an Int8Array), `offset` where to write. */
type BlobRead = (stream: unknown, buffer: Int8Array | Uint8Array, offset: number, length: number, position: number) => number
interface EmscriptenFs {
  lookupPath: (path: string) => { node?: { rdev?: number } }
  getDevice: (dev: number) => { stream_ops?: { read?: BlobRead } } | undefined
}

/**
 * PGlite serves COPY … FROM '/dev/blob' from a device whose read copies the data into
 * PostgreSQL's buffer one byte at a time in JavaScript: about a second of this thread's time per
 * million-message sync. Its read is swapped for a block copy of the same bytes (the query's blob,
 * kept in copyBytes), found through the device node /dev/blob of PGlite's module file system
 * (PGlite 0.5). When a later PGlite is built otherwise, nothing is changed and the server logs
 * that COPY is slower.
 */
function fastBlobReads(lite: PGlite): boolean {
  const fs = (lite as unknown as { mod?: { FS?: Partial<EmscriptenFs> } }).mod?.FS
  if (typeof fs?.lookupPath !== 'function' || typeof fs.getDevice !== 'function') return false
  let rdev: number | undefined
  try {
    rdev = fs.lookupPath('/dev/blob').node?.rdev
  } catch {
    return false
  }
  if (typeof rdev !== 'number') return false
  const ops = fs.getDevice(rdev)?.stream_ops
  if (!ops || typeof ops.read !== 'function') return false
  ops.read = (_stream, buffer, offset, length, position) => {
    const src = copyBytes
    if (!src) throw new Error('No data was given for /dev/blob.')
    if (position >= src.length) return 0
    const n = Math.min(src.length - position, length)
    // Through a byte view of the heap: a set() between arrays of one type is a plain copy.
    new Uint8Array(buffer.buffer, buffer.byteOffset + offset, n).set(src.subarray(position, position + n))
    return n
  }
  return true
}

async function main() {
  let lite: PGlite
  try {
    lite = await PGlite.create({ dataDir, extensions: { pg_trgm }, pgliteWasmModule, initdbWasmModule })
  } catch (err) {
    port!.postMessage({ ready: false, error: toWire(err) } satisfies Ready)
    return
  }
  port!.on('message', (m: Request) => {
    handle(lite, m).then(
      (reply) => port!.postMessage(reply),
      (err: unknown) => port!.postMessage({ id: m.id, ok: false, error: toWire(err) } satisfies Reply),
    )
  })
  fastCopy = fastBlobReads(lite)
  port!.postMessage({ ready: true, fastCopy } satisfies Ready)
}

void main()
