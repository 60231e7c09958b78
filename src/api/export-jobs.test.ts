import { describe, expect, it } from 'vitest'
import { timeLeft } from './export-jobs'

describe("an export's time left", () => {
  it('goes by the rate rows have come in so far', () => {
    // 12,000 rows in 4 s: 3,000 a second, 48,000 to go.
    expect(timeLeft(12_000, 48_000, 4_000)).toBe(16)
    expect(timeLeft(60_000, 0, 20_000)).toBe(0)
  })
  it('claims nothing before there is a rate', () => {
    expect(timeLeft(0, 60_000, 5_000)).toBeNull()
    expect(timeLeft(500, 60_000, 200)).toBeNull()
  })
})
