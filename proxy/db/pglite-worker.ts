import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite, protocol, type Transaction } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { diskFullError, guardAborted, isFatal, watchedNodeFS, type DiskWatch } from './pglite-disk.ts'
import {
  DB_THREAD_NICE,
  DISK_FULL_CODE,
  toWire,
  type Ready,
  type Reply,
  type Request,
  type Rows,
  type WireError,
  type WorkerInit,
} from './pglite-protocol.ts'
import { answerHasError, joined } from './pglite-rows.ts'

/**
 * The thread that owns PGlite. PGlite's work is synchronous WebAssembly: here it holds this
 * thread, never the server's. The server's side (pglite-client.ts) sends one statement at a
 * time and decides the order; this side runs what it gets, in a transaction while one is open.
 */

const port = parentPort
if (!port) throw new Error('pglite-worker.ts runs as a worker thread (see pglite-client.ts).')
const { dataDir, pgliteWasmModule, initdbWasmModule, diskFaults, diskFull } = workerData as WorkerInit

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
      if (m.blob === undefined && CACHEABLE.test(m.sql)) return { id: m.id, ok: true, rows: await preparedQuery(lite, m.sql, m.params) }
      const q = tx?.handle ?? lite
      copyBytes = m.blob ?? null
      try {
        const r = await q.query<Record<string, unknown>>(m.sql, m.params, m.blob !== undefined ? { blob: blobOf(m.blob) } : undefined)
        return { id: m.id, ok: true, rows: r.rows }
      } finally {
        copyBytes = null
        if (SCHEMA_CHANGE.test(m.sql)) await forgetPrepared(lite)
      }
    }
    case 'batch': {
      if (tx) throw new Error('A batch runs in a transaction of its own, not inside an open one.')
      const results = await lite.transaction(async (t) => {
        const out: Rows[] = []
        for (const st of m.statements)
          out.push(
            CACHEABLE.test(st.sql)
              ? await preparedQuery(lite, st.sql, st.params)
              : (await t.query<Record<string, unknown>>(st.sql, st.params)).rows,
          )
        return out
      })
      return { id: m.id, ok: true, results }
    }
    case 'exec':
      try {
        await (tx?.handle ?? lite).exec(m.sql)
      } finally {
        // Scripts are migrations and DDL: see forgetPrepared.
        await forgetPrepared(lite)
      }
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
    case 'fault':
      return { id: m.id, ok: true }
  }
}

/**
 * PGlite starts PostgreSQL with -F (fsync off), and its Node file system had no fsync: a commit
 * survived kill -9 but not a power cut. Without -F, with the WAL synced by fsync() (Emscripten's
 * fdatasync does nothing; its fsync reaches the disk through pglite-disk.ts), a commit is on disk
 * before it returns, as on a PostgreSQL server. Measured here: see docs/operations.md.
 *
 * wal_level=minimal (max_wal_senders=0, which it needs): one process, no replica and no archive
 * ever read this log, and at this level an index built in a transaction is not copied into the
 * WAL but its file is synced when the transaction commits, as safe after a crash and written
 * once instead of twice. A million's sync builds six indexes at its end (sync/indexes.ts): on
 * this 2-core VM, three interleaved pairs of syncs, they took 9.6–10.0 s against 10.0–10.6 s.
 */
function durable(): { startParams?: string[] } {
  const defaults = (PGlite as unknown as { defaultStartParams?: unknown }).defaultStartParams
  if (!Array.isArray(defaults) || !defaults.includes('-F')) return {}
  return {
    startParams: [
      ...defaults.filter((p) => p !== '-F'),
      ...['-c', 'wal_sync_method=fsync', '-c', 'wal_level=minimal', '-c', 'max_wal_senders=0'],
    ],
  }
}

/** Why PGlite's backend is gone (see isFatal): every later message is answered with it, untouched. */
let dead: WireError | null = null

/**
 * One message, its failure told as the server needs it: a full disk (the file layer met ENOSPC
 * or EDQUOT while it ran, or PostgreSQL said disk_full) as one code and reason, and a backend
 * that PANICked as fatal, after which nothing reaches PGlite again.
 */
async function guarded(lite: PGlite, disk: DiskWatch, m: Request): Promise<Reply> {
  if (m.op === 'fault') disk.inject(m.full)
  if (dead) return m.op === 'close' || m.op === 'fault' ? { id: m.id, ok: true } : { id: m.id, ok: false, error: dead, fatal: true }
  const seen = disk.seen()
  try {
    return await handle(lite, m)
  } catch (err) {
    let error = toWire(err)
    if (disk.seen() !== seen || error.code === DISK_FULL_CODE) error = diskFullError(error)
    if (!isFatal(error) && !disk.aborted()) return { id: m.id, ok: false, error }
    dead = error
    tx = null
    return { id: m.id, ok: false, error, fatal: true }
  }
}

/*
 * Named prepared statements. PGlite's query() sends every statement as Parse, Describe, Bind,
 * Describe, Execute and Sync, each a separate call into the WebAssembly backend, and parses and
 * analyses the text every time: on a statement over a few rows that fixed cost is most of the
 * time (a scratch measurement here: SELECT 1 at 1.3-3.4 ms through query(), 0.7 ms prepared). A
 * statement seen before is run here as one Bind, Describe, Execute and Sync message against the
 * statement the backend already parsed. Plans are still made for each execution's values
 * (plan_cache_mode = force_custom_plan, set when the database opens): a generic plan chosen once
 * for a search would ignore how selective this search's text or dates are. Only plain data
 * statements are kept; DDL, transaction control, SET, VACUUM and COPY go through query().
 */
const CACHEABLE = /^\s*(?:select|with|insert|update|delete)\b/i
/** Statements kept parsed at once; past it the least recently used is closed (Map order is use order). */
const PREPARED_MAX = 256
const prepared = new Map<string, { name: string; types: number[] }>()
let preparedSeq = 0
const wire = protocol.serialize
/** Statements that may change what a kept statement reads or returns. */
const SCHEMA_CHANGE = /^\s*(?:create|alter|drop|truncate|comment)\b/i

/**
 * Closes every kept statement after a schema change. PostgreSQL re-plans a kept statement when
 * a table it reads changes, but refuses to run one whose result columns changed ("cached plan
 * must not change result type"), which query() never meets. DEALLOCATE is not transactional and
 * runs inside an open transaction too; it goes straight to the backend, as the kept statements do.
 */
async function forgetPrepared(lite: PGlite): Promise<void> {
  if (prepared.size === 0) return
  prepared.clear()
  await lite.execProtocol(wire.query('DEALLOCATE ALL'))
}

/** As query() would serialise a parameter of type `oid` (PGlite's own serializers, else toString). */
function serialised(lite: PGlite, value: unknown, oid: number | undefined): string | null {
  if (value === null || value === undefined) return null
  const serialise = oid === undefined ? undefined : lite.serializers[oid]
  return serialise ? serialise(value) : String(value as string)
}

async function preparedQuery(lite: PGlite, sql: string, params: unknown[] | undefined): Promise<Uint8Array<ArrayBuffer>> {
  let st = prepared.get(sql)
  if (st) {
    prepared.delete(sql)
    prepared.set(sql, st)
  } else {
    const name = `sb${++preparedSeq}`
    // A Parse that fails (a syntax error, an aborted transaction) throws here and keeps nothing.
    const r = await lite.execProtocol(joined([wire.parse({ name, text: sql, types: [] }), wire.describe({ type: 'S', name }), wire.sync()]))
    const described = r.messages.find((msg) => msg.name === 'parameterDescription') as { dataTypeIDs?: number[] } | undefined
    st = { name, types: described?.dataTypeIDs ?? [] }
    prepared.set(sql, st)
    if (prepared.size > PREPARED_MAX) {
      const [oldSql, old] = prepared.entries().next().value as [string, { name: string }]
      prepared.delete(oldSql)
      await lite.execProtocol(joined([wire.close({ type: 'S', name: old.name }), wire.sync()]))
    }
  }
  const { name, types } = st
  const values = (params ?? []).map((v, i) => serialised(lite, v, types[i]))
  // The answer's bytes as the backend writes them (views of its memory, so copied): they go to the
  // server's thread as they are (transferred), which reads them in place (pglite-rows.ts readRows,
  // with PGlite's default parsers; this PGlite is opened with no others).
  const chunks: Uint8Array<ArrayBuffer>[] = []
  await lite.execProtocolRawStream(
    joined([wire.bind({ statement: name, values }), wire.describe({ type: 'P' }), wire.execute({}), wire.sync()]),
    { onRawData: (bytes) => chunks.push(bytes.slice()) },
  )
  const data = chunks.length === 1 ? chunks[0]! : joined(chunks)
  if (!answerHasError(data)) return data
  throw databaseError(data)
}

/** The buffers of the answers in a reply, to transfer rather than clone. */
function transferable(reply: Reply): ArrayBuffer[] {
  if (!reply.ok) return []
  const all = reply.results ?? (reply.rows ? [reply.rows] : [])
  return all.flatMap((r) => (r instanceof Uint8Array ? [r.buffer] : []))
}

/** The error PGlite's execProtocol would have thrown for this answer: its own parser's DatabaseError. */
function databaseError(data: Uint8Array): Error {
  let found: Error | null = null
  new protocol.Parser().parse(data, (msg) => {
    if (!found && msg instanceof Error && msg.name === 'error') found = msg
  })
  return found ?? new Error('The database answered with an error it did not describe.')
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
  const { fs, watch } = watchedNodeFS(dataDir, { injectable: diskFaults === true, full: diskFull === true })
  try {
    lite = await PGlite.create({ fs, extensions: { pg_trgm }, pgliteWasmModule, initdbWasmModule, ...durable() })
  } catch (err) {
    // Opening replays the write-ahead log and ends with a checkpoint: on a full disk it fails, and says so.
    const error = watch.seen() > 0 ? diskFullError(toWire(err)) : toWire(err)
    port!.postMessage({ ready: false, error } satisfies Ready)
    return
  }
  const abortGuard = guardAborted(lite, watch)
  await lite.exec('SET plan_cache_mode = force_custom_plan')
  // One message at a time, in the order sent: the server pipelines statements, and the prepared
  // path above talks to the backend directly, without the lock query() takes.
  let turn: Promise<unknown> = Promise.resolve()
  port!.on('message', (m: Request) => {
    const run = turn.then(() => guarded(lite, watch, m))
    turn = run.catch(() => {})
    run.then(
      (reply) => port!.postMessage(reply, transferable(reply)),
      (err: unknown) => port!.postMessage({ id: m.id, ok: false, error: toWire(err) } satisfies Reply),
    )
  })
  fastCopy = fastBlobReads(lite)
  port!.postMessage({ ready: true, fastCopy, abortGuard, arrays: await arrayTypes(lite) } satisfies Ready)
}

/**
 * The array types and their elements, as PGlite's query() learned them when it opened (its
 * _initArrayTypes runs this statement): the server's thread reads answers with the same parsers.
 */
async function arrayTypes(lite: PGlite): Promise<Array<[number, number]>> {
  const r = await lite.query<{ oid: number; typarray: number }>(
    `SELECT b.oid, b.typarray FROM pg_catalog.pg_type a LEFT JOIN pg_catalog.pg_type b ON b.oid = a.typelem
     WHERE a.typcategory = 'A' GROUP BY b.oid, b.typarray ORDER BY b.oid`,
  )
  return r.rows.map((row) => [row.oid, row.typarray])
}

void main()
