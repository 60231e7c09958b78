// `npm run fuzz`: the server fuzzer as a longer soak before a release. The same generator and
// checks as proxy/fuzz.test.ts, bounded by FUZZ_RUNS batches (1–20 requests each, default
// 20,000) and FUZZ_SECONDS (default 240). FUZZ_SEED replays a run. Prints what it sent and saw.
import { runFuzz } from '../proxy/testing/fuzz.ts'

const runs = Number(process.env.FUZZ_RUNS ?? 20_000)
const seconds = Number(process.env.FUZZ_SECONDS ?? 240)
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined
console.log(`fuzzing the server: up to ${runs} batches or ${seconds} s${seed !== undefined ? `, seed ${seed}` : ''}`)
const t0 = Date.now()
const stats = await runFuzz({ runs, seconds, seed })
console.log(
  `${stats.requests} requests in ${stats.batches} batches, ${((Date.now() - t0) / 1000).toFixed(1)} s, seed ${stats.seed}; slowest answer ${Math.round(stats.slowestMs)} ms; ` +
    `closed without an answer: ${stats.closedWithoutAnswer}`,
)
console.log(
  `statuses: ${Object.entries(stats.statuses)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ')}`,
)
if (stats.failure) {
  console.error(stats.failure)
  process.exit(1)
}
console.log('no failures')
