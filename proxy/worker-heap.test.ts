import { spawnSync } from 'node:child_process'
import { expect, it } from 'vitest'
import { SERVER_NODE_FLAGS } from '../scripts/server-flags.mjs'

/**
 * Started with the server's flags, the server's thread has a small young generation, and a worker
 * started after workerHeapDefaults() has V8's default one: the process flag would otherwise hold
 * in every worker too (it overrides a Worker's resourceLimits).
 */
it('a worker gets V8’s default young generation while the server’s thread keeps its small one', () => {
  const child = `
    const v8 = await import('node:v8')
    const { Worker } = await import('node:worker_threads')
    const { workerHeapDefaults } = await import(${JSON.stringify(new URL('./worker-heap.ts', import.meta.url).href)})
    // Enough short-lived garbage for the young generation to grow to its limit.
    const churn = \`let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i }); if (keep.length > 1e5) keep = [] }\`
    eval(churn)
    const main = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
    workerHeapDefaults()
    // The worker's code runs as a module, as the process's does (--input-type=module).
    const inWorker = \`\${churn}
      const v8 = await import('node:v8')
      const { parentPort } = await import('node:worker_threads')
      parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)\`
    const w = new Worker(inWorker, { eval: true })
    const worker = await new Promise((resolve) => w.once('message', resolve))
    await w.terminate()
    process.stdout.write(JSON.stringify({ main, worker }))
  `
  const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', '--input-type=module', '-e', child], {
    encoding: 'utf8',
    timeout: 60_000,
  })
  expect(run.status, run.stderr).toBe(0)
  const { main, worker } = JSON.parse(run.stdout) as { main: number; worker: number }
  const MB = 1024 * 1024
  expect(SERVER_NODE_FLAGS).toContain('--max-semi-space-size=2')
  // Two semi-spaces of 2 MB on the server's thread; V8's default (16 MB semi-spaces on 64-bit) in the worker.
  expect(main).toBeLessThanOrEqual(4 * MB)
  expect(worker).toBeGreaterThanOrEqual(16 * MB)
})
