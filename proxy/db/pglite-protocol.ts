import type { PGliteOptions } from '@electric-sql/pglite'

/**
 * The messages between the server's thread and the worker thread that owns PGlite. Values cross
 * by structured clone, so rows keep their types (Date, bigint, Uint8Array, null, objects from
 * jsonb), or as the answer's bytes (see Rows); errors cross as plain fields, because a cloned
 * Error loses `code` and the rest.
 */

export type Request =
  /** `blob`: the bytes a COPY … FROM '/dev/blob' reads, UTF-8 encoded on the server's thread and transferred, not copied. */
  | { id: number; op: 'query'; sql: string; params?: unknown[]; blob?: Uint8Array<ArrayBuffer> }
  | { id: number; op: 'exec'; sql: string }
  /** Statements run in order in one transaction of their own; the reply's `results` has each one's rows. */
  | { id: number; op: 'batch'; statements: Array<{ sql: string; params?: unknown[] }> }
  /** Opens a transaction: every later statement runs in it until 'end'. */
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; commit: boolean }
  | { id: number; op: 'close' }
  /** The test seam (only where the worker was started with `diskFaults`): every write to the data directory fails with ENOSPC while `full`. */
  | { id: number; op: 'fault'; full: boolean }

export interface WireError {
  message: string
  name?: string
  code?: string
  detail?: string
  hint?: string
  severity?: string
  constraint?: string
  table?: string
  column?: string
  schema?: string
  position?: string
  where?: string
}

/**
 * A statement's rows: as objects (cloned), or as the backend's answer bytes (transferred, not
 * cloned), which the server's thread reads with pglite-rows.ts readRows. A profile of 50
 * concurrent searches on PGlite put half of the database thread's time in cloning row objects
 * for postMessage; a transfer costs nothing there, and reading the bytes costs the server's
 * thread less than taking the clone apart did.
 */
export type Rows = Array<Record<string, unknown>> | Uint8Array<ArrayBuffer>

export type Reply =
  | { id: number; ok: true; rows?: Rows; results?: Rows[] }
  /** `fatal`: PGlite's backend is gone (a PANIC); the worker runs nothing more (see pglite-disk.ts). */
  | { id: number; ok: false; error: WireError; fatal?: boolean }

/** The worker's first message: PGlite is open, or why it could not be. */
/** `fastCopy`: the worker reads COPY's bytes with its own block copy (pglite-worker.ts fastBlobReads). */
/** `abortGuard`: the worker could guard PGlite's entries after an abort (pglite-disk.ts guardAborted). */
/** `arrays`: each array type's element type, [element oid, array oid], as PGlite's own parsers know them. */
export type Ready =
  { ready: true; fastCopy: boolean; abortGuard: boolean; arrays: Array<[number, number]> } | { ready: false; error: WireError }

/** WebAssembly.Module, named through PGlite's own options (the server's lib has no WebAssembly types). */
export type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>

/** The PGlite thread's nice value on Linux (the server's thread keeps 0): see pglite-worker.ts. */
export const DB_THREAD_NICE = 10

export interface WorkerInit {
  dataDir: string
  /** Compiled once by the server's thread and shared (see pglite-client.ts). */
  pgliteWasmModule: WasmModule
  initdbWasmModule: WasmModule
  /** The test seam: the worker obeys 'fault' messages. Never set by the server's own configuration. */
  diskFaults?: boolean
  /** With diskFaults: writes fail from the start (a worker started again while a test holds the disk full). */
  diskFull?: boolean
}

/** PostgreSQL's SQLSTATE disk_full: a PostgreSQL server raises it, and the PGlite worker gives it to every full-disk failure. */
export const DISK_FULL_CODE = '53100'

/** The reason the PGlite worker gives for a full disk. */
export const DISK_FULL_MESSAGE = 'No space left on the disk that holds DATA_DIR: nothing can be written until space is freed.'

const FIELDS = ['name', 'code', 'detail', 'hint', 'severity', 'constraint', 'table', 'column', 'schema', 'position', 'where'] as const

export function toWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { message: String(err) }
  const out: WireError = { message: err.message }
  const src = err as unknown as Record<string, unknown>
  for (const k of FIELDS) if (typeof src[k] === 'string') out[k] = src[k]
  return out
}

/** An Error carrying the database's fields again (callers read `code`: 23505, 57014, …). */
export function fromWire(w: WireError): Error {
  const err = new Error(w.message) as Error & Record<string, unknown>
  for (const k of FIELDS) if (w[k] !== undefined && k !== 'name') err[k] = w[k]
  if (w.name && w.name !== 'Error') err.name = w.name
  return err
}
