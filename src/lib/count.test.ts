import { describe, expect, it } from 'vitest'
import { formatCount } from './count'

describe('formatCount', () => {
  it('matches en-US grouping for the counts the app shows', () => {
    for (const n of [0, 1, 12, 999, 1000, 1001, 12_345, 100_000, 999_999, 1_000_000, 2_345, 10_000, 123_456_789, -1234, -12]) {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'))
    }
  })
  it('keeps fractions and non-finite values readable', () => {
    expect(formatCount(1234.5)).toBe('1,234.5')
    expect(formatCount(Number.NaN)).toBe('NaN')
    expect(formatCount(Number.POSITIVE_INFINITY)).toBe('Infinity')
  })
})
