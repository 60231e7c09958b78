import { fsyncSync } from 'node:fs'
import { NodeFS } from '@electric-sql/pglite/nodefs'
import type { PGlite } from '@electric-sql/pglite'
import { DISK_FULL_CODE, DISK_FULL_MESSAGE, type WireError } from './pglite-protocol.ts'

/**
 * PGlite's files as the worker thread sees them: the data directory through Emscripten's NODEFS,
 * whose every file operation goes through NODEFS.tryFSOperation and whose writes go through
 * NODEFS.stream_ops.write. Watching there tells a full disk (ENOSPC, or EDQUOT: a quota is a
 * full disk for this directory) from any other failure, whatever PostgreSQL then makes of it:
 * an ERROR when a table cannot grow, a PANIC when its write-ahead log or a checkpoint cannot be
 * written (PostgreSQL's rule: a WAL write that fails cannot be taken back).
 *
 * The same place holds the test seam: with `injectable`, the server may tell the worker to fail
 * every write to the data directory with ENOSPC, exactly as NODEFS reports a real one.
 */

/** Node's codes for "no room for this write" (fs errors carry them as `code`). */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT'])

interface NodefsLike {
  tryFSOperation: <T>(f: () => T) => T
  stream_ops: {
    write: (stream: unknown, buffer: unknown, offset: number, length: number, position: number) => number
    fsync?: (stream: { nfd?: number }) => number
  }
}

export interface DiskWatch {
  /** How many full-disk failures the file layer has met so far. */
  readonly seen: () => number
  /** PostgreSQL aborted (a PANIC): its backend is gone, and nothing may enter its WebAssembly again. */
  readonly aborted: () => boolean
  /** The test seam: every write fails with ENOSPC while on. */
  inject: (full: boolean) => void
}

/**
 * A NodeFS whose file layer is watched (and, with `injectable`, can be made to fail). The patch is
 * made in Emscripten's preRun, before PostgreSQL opens a file: a failure while opening (crash
 * recovery on a full disk) is seen too.
 */
export function watchedNodeFS(dataDir: string, opts: { injectable: boolean; full: boolean }): { fs: NodeFS; watch: DiskWatch } {
  let seen = 0
  let aborted = false
  let injected = opts.injectable && opts.full
  const patch = (nodefs: NodefsLike) => {
    const tryOp = nodefs.tryFSOperation.bind(nodefs)
    nodefs.tryFSOperation = <T>(f: () => T): T =>
      tryOp(() => {
        try {
          return f()
        } catch (err) {
          if (FULL_CODES.has((err as NodeJS.ErrnoException).code ?? '')) seen++
          throw err
        }
      })
    // Emscripten's fsync() asks the stream's fsync, which NODEFS lacks: PostgreSQL's fsyncs (its
    // WAL at commit, its files at a checkpoint) would do nothing. Here they reach the disk.
    nodefs.stream_ops.fsync = (stream) =>
      nodefs.tryFSOperation(() => {
        if (typeof stream.nfd === 'number') fsyncSync(stream.nfd)
        return 0
      })
    if (!opts.injectable) return
    const write = nodefs.stream_ops.write
    nodefs.stream_ops.write = (stream, buffer, offset, length, position) => {
      if (!injected) return write(stream, buffer, offset, length, position)
      return nodefs.tryFSOperation(() => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write (injected by a test)'), { code: 'ENOSPC' })
      })
    }
  }
  class Watched extends NodeFS {
    override async init(pg: PGlite, emscriptenOpts: Parameters<NodeFS['init']>[1]) {
      const r = await super.init(pg, emscriptenOpts)
      const preRun = [...(r.emscriptenOpts.preRun ?? [])]
      preRun.push((mod: unknown) => {
        const m = mod as { NODEFS?: Partial<NodefsLike>; onAbort?: (what: unknown) => void }
        const nodefs = m.NODEFS
        if (typeof nodefs?.tryFSOperation === 'function' && typeof nodefs.stream_ops?.write === 'function') patch(nodefs as NodefsLike)
        // Emscripten's abort() calls Module.onAbort before it throws.
        const before = m.onAbort
        m.onAbort = (what) => {
          aborted = true
          before?.(what)
        }
      })
      return { emscriptenOpts: { ...r.emscriptenOpts, preRun } }
    }
  }
  return {
    fs: new Watched(dataDir),
    watch: {
      seen: () => seen,
      aborted: () => aborted,
      inject: (full) => {
        injected = opts.injectable && full
      },
    },
  }
}

/** `err` as the server should hear it when the disk was full: one code and one reason, the database's words kept as detail. */
export function diskFullError(err: WireError): WireError {
  return { ...err, code: DISK_FULL_CODE, message: DISK_FULL_MESSAGE, detail: err.detail ? `${err.message} (${err.detail})` : err.message }
}

/**
 * After a PANIC PGlite's backend is gone: Emscripten has aborted it, and the next statement sent
 * into it spins for ever inside its WebAssembly (a held lock nobody will release), taking a core
 * and never answering. Nothing more may be sent to it; the process must open the directory afresh.
 */
export const isFatal = (err: WireError): boolean => err.severity === 'PANIC' || err.severity === 'FATAL' || /\bAborted\(/.test(err.message)

/** The entries into PGlite's WebAssembly that its query loop uses (PGlite 0.5's Module). */
const ENTRIES = [
  '_PostgresMainLoopOnce',
  '_PostgresSendReadyForQueryIfNecessary',
  '_pgl_pq_flush',
  '_pq_buffer_remaining_data',
  'stackRestore',
]

/**
 * After an abort, every entry into the backend throws instead of running. PGlite's query loop
 * swallows what its step throws and steps again, and PGlite's transaction() sends a ROLLBACK
 * after a failed statement: into an aborted backend either spins for ever. With these guards the
 * loop's own error path (stackRestore) throws, the query rejects, and the worker answers.
 */
export function guardAborted(lite: PGlite, watch: DiskWatch): boolean {
  const mod = (lite as unknown as { mod?: Record<string, unknown> }).mod
  if (!mod || ENTRIES.some((k) => typeof mod[k] !== 'function')) return false
  for (const k of ENTRIES) {
    const entry = mod[k] as (...args: unknown[]) => unknown
    mod[k] = (...args: unknown[]) => {
      if (watch.aborted())
        throw Object.assign(new Error('The database stopped after a PANIC (PGlite aborted) and must be opened again.'), {
          severity: 'PANIC',
        })
      return entry(...args)
    }
  }
  return true
}
