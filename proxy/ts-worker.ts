import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker, type WorkerOptions } from 'node:worker_threads'

/**
 * A worker thread on a TypeScript entry, run from TypeScript (tsx, vitest): on Node 20 the
 * process's own `--import tsx` does not reach a worker's entry module, so the worker registers
 * tsx's loader before importing it. That costs the worker a loader thread and about half a CPU
 * second to start; a built server (`npm run build`) starts the entry's .js directly.
 */
export function tsWorker(entry: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  // tsx's ESM entry (require.resolve would give its CommonJS one, which cannot register hooks here).
  const tsx = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href
  const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry.href)}) })`
  return new Worker(boot, { ...options, eval: true })
}
