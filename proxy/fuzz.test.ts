import { expect, it } from 'vitest'
import { runFuzz } from './test-fuzz.ts'

/**
 * The fuzzer in the suite, bounded: 450 batches of 1–20 raw requests (about 3,000 requests)
 * or 45 s, whichever comes first. FUZZ_SEED replays a failing run; `npm run fuzz` soaks longer.
 */
it('survives generated hostile requests: no 5xx of its own, no answer over 5 s, no credential, alive after every batch', async () => {
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined
  const stats = await runFuzz({ runs: Number(process.env.FUZZ_RUNS ?? 450), seconds: Number(process.env.FUZZ_SECONDS ?? 45), seed })
  if (stats.failure) console.error(stats.failure)
  expect(stats.failure).toBeUndefined()
  expect(stats.requests).toBeGreaterThan(100)
}, 90_000)
