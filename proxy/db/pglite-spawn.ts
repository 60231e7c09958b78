import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { threadId, Worker } from 'node:worker_threads'
import type { WasmModule, WorkerInit } from './pglite-protocol.ts'
import { tsWorker } from '../ts-worker.ts'
import { workerHeapDefaults } from '../worker-heap.ts'

/** Starting PGlite's worker thread: its WebAssembly compiled once per process, and its code. */

/**
 * PGlite's WebAssembly, compiled once per process: a worker is a fresh isolate and would compile
 * its 9 MB again on every open (seconds); a compiled Module posted to it shares the code.
 */
const wasm = (globalThis as unknown as { WebAssembly: { compile: (bytes: Uint8Array) => Promise<WasmModule> } }).WebAssembly
let compiled: Promise<Pick<WorkerInit, 'pgliteWasmModule' | 'initdbWasmModule'>> | null = null
export function wasmModules() {
  compiled ??= (async () => {
    const req = createRequire(import.meta.url)
    const [pglite, initdb] = await Promise.all(
      ['@electric-sql/pglite/pglite.wasm', '@electric-sql/pglite/initdb.wasm'].map(async (m) =>
        wasm.compile(await readFile(req.resolve(m))),
      ),
    )
    return { pgliteWasmModule: pglite!, initdbWasmModule: initdb! }
  })()
  compiled.catch(() => (compiled = null))
  return compiled
}

/**
 * For a process that opens PGlite for a moment (`npm run users`): V8 runs PGlite's WebAssembly
 * with its baseline compiler only (Liftoff) instead of also optimising its hot functions on
 * background threads, work a short run never gets back. Opening a database and reading one count
 * took 1.3 to 1.9 CPU-s and 1.6 to 2.3 s that way against 3.0 to 3.9 CPU-s and 3.3 to 4.0 s
 * (three runs each). The server, which runs for hours, keeps the optimiser. Call it before the
 * process's first open; it holds for the whole process.
 */
export function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only')
}

/**
 * The worker's file beside this one: .js once compiled (npm run build). Run from TypeScript
 * (tsx, vitest), the worker and the one module it imports are transpiled once into
 * node_modules/.cache, keyed by their text, and the worker runs that JavaScript. Registering
 * tsx's loader inside every worker instead (on Node 20 the process's own `--import tsx` does not
 * reach a worker's entry module) started a loader thread per open: an open cost 1.8 CPU-s that
 * way and 1.2 to 1.3 this way, and the tests open PGlite some eighty times.
 */
/**
 * V8 flags the server may be started with (scripts/server-flags.mjs): a Worker refuses a V8 flag in
 * its execArgv, and they hold for the whole process already.
 */
const PROCESS_WIDE = ['--single-threaded-gc', '--no-allocation-site-pretenuring', '--max-semi-space-size']
const processWide = (a: string) => PROCESS_WIDE.some((f) => a === f || a.startsWith(`${f}=`))

export function spawnWorker(init: WorkerInit): Worker {
  workerHeapDefaults()
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./pglite-worker.js', import.meta.url), { workerData: init })
  let entry: URL
  try {
    entry = transpiledWorker()
  } catch {
    // node_modules not writable (`npm run users` as another user than the one who installed):
    // register tsx's loader in the worker, as before, at its cost.
    return tsWorker(new URL('./pglite-worker.ts', import.meta.url), { workerData: init })
  }
  // A worker takes the process's flags; --input-type (a script run with -e) refuses a file entry,
  // and a V8 flag that holds for the whole process (the server's --single-threaded-gc,
  // scripts/server-flags.mjs) is refused in a worker's execArgv: it holds there already.
  const execArgv = process.execArgv.filter((a, i, all) => !a.startsWith('--input-type') && all[i - 1] !== '--input-type' && !processWide(a))
  return new Worker(entry, { workerData: init, execArgv })
}

/** The files the worker is made of, in this directory: the worker and the modules it imports. */
const WORKER_SOURCES = ['pglite-worker.ts', 'pglite-protocol.ts', 'pglite-rows.ts', 'pglite-disk.ts']
let transpiled: URL | null = null

function transpiledWorker(): URL {
  if (transpiled) return transpiled
  const here = dirname(fileURLToPath(import.meta.url))
  const sources = WORKER_SOURCES.map((name) => ({ name, text: readFileSync(join(here, name), 'utf8') }))
  const hash = createHash('sha256')
  for (const f of sources) hash.update(`${f.name}\0${f.text}\0`)
  // Under the project's node_modules, so the worker's bare imports (@electric-sql/pglite) resolve.
  const dir = join(here, '..', '..', 'node_modules', '.cache', 'switchboard-pglite-worker', hash.digest('hex').slice(0, 16))
  const entry = join(dir, 'pglite-worker.js')
  if (!existsSync(entry)) {
    const ts = createRequire(import.meta.url)('typescript') as typeof import('typescript')
    // Written beside, then renamed into place whole: two processes may do this at once.
    const tmp = `${dir}.${process.pid}.${threadId}.tmp`
    mkdirSync(tmp, { recursive: true })
    for (const f of sources) {
      const out = ts.transpileModule(f.text, {
        fileName: f.name,
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2023,
          rewriteRelativeImportExtensions: true,
          sourceMap: false,
        },
      })
      writeFileSync(join(tmp, f.name.replace(/\.ts$/, '.js')), out.outputText)
    }
    // The .js files are ES modules: a package.json beside them says so (none above them does).
    writeFileSync(join(tmp, 'package.json'), '{"type":"module"}\n')
    try {
      renameSync(tmp, dir)
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true })
      if (!existsSync(entry)) throw err
    }
  }
  transpiled = pathToFileURL(entry)
  return transpiled
}
