import { setFlagsFromString } from 'node:v8'

/**
 * The server's thread runs with a small young generation (`--max-semi-space-size=2`,
 * scripts/server-flags.mjs), so that each scavenge, which stops every request in flight, stays
 * short. A worker thread (PGlite, the sync's pages, the callback probes) parses and copies in
 * bulk, where a small young generation only means more collections. V8 reads the flag when an
 * isolate's heap is set up, and a process flag overrides a Worker's `resourceLimits`; so, before
 * the first worker starts, the flag goes back to V8's own default (0), and the server's thread
 * keeps the heap it was started with. Without the flag on the command line (tests, scripts)
 * nothing changes.
 */
let done = false

export function workerHeapDefaults(): void {
  if (done) return
  done = true
  if (process.execArgv.some((a) => a.startsWith('--max-semi-space-size'))) setFlagsFromString('--max-semi-space-size=0')
}
