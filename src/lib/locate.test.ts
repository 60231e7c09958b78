import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { firstPositionBefore } from './locate'

describe('firstPositionBefore', () => {
  it('finds the first record older than the limit in about log2(n) probes', async () => {
    const total = 1_000_000
    // Newest first, one record a minute.
    const dateOf = (p: number) => 2_000_000_000_000 - p * 60_000
    const limit = dateOf(123_456) + 1
    const r = await firstPositionBefore(total, limit, (p) => Promise.resolve(dateOf(p)))
    expect(r.position).toBe(123_456)
    expect(r.probes).toBeLessThanOrEqual(21)
  })
  it('agrees with a linear scan on any descending list', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 0, maxLength: 60 }),
        fc.integer({ min: -5, max: 60 }),
        async (steps, limit) => {
          // Dates descending with position (ties allowed).
          const dates: number[] = []
          let d = 1000
          for (const s of steps) dates.push((d -= s))
          const expected = dates.findIndex((x) => x < 1000 - limit * 10)
          const r = await firstPositionBefore(dates.length, 1000 - limit * 10, (p) => Promise.resolve(dates[p - 1] ?? null))
          expect(r.position).toBe(expected < 0 ? null : expected + 1)
        },
      ),
      { numRuns: 200 },
    )
  })
})
