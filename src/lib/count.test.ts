import { describe, expect, it } from 'vitest'
import { formatBytes, formatCount, formatDuration, formatOrdinal, formatWait } from './count'

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

describe('formatDuration', () => {
  it('says a time left in minutes, hours or days, never as bare seconds', () => {
    expect(formatDuration(0)).toBe('under a minute')
    expect(formatDuration(59)).toBe('under a minute')
    expect(formatDuration(90)).toBe('about 2 min')
    expect(formatDuration(3600)).toBe('about 1 h')
    expect(formatDuration(3900)).toBe('about 1 h 5 min')
    expect(formatDuration(3 * 86_400)).toBe('about 3 days')
    expect(formatDuration(Number.NaN)).toBe('unknown')
  })
})

describe('formatWait', () => {
  it('says a short wait in seconds, to the nearest 5, and a longer one as a duration', () => {
    expect(formatWait(3)).toBe('a few seconds')
    expect(formatWait(12)).toBe('about 10 s')
    expect(formatWait(38)).toBe('about 40 s')
    expect(formatWait(57)).toBe('about 55 s')
    expect(formatWait(59)).toBe('about 1 min')
    expect(formatWait(150)).toBe('about 3 min')
    expect(formatWait(Number.NaN)).toBe('unknown')
  })
})

describe('formatOrdinal', () => {
  it('writes English ordinals, the teens included', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 1002].map(formatOrdinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '23rd',
      '101st',
      '111th',
      '1,002nd',
    ])
  })
})

describe('formatBytes', () => {
  it('writes sizes in decimal units with at most one decimal', () => {
    expect(formatBytes(999)).toBe('999 B')
    expect(formatBytes(1000)).toBe('1 KB')
    expect(formatBytes(12_400_000)).toBe('12.4 MB')
    expect(formatBytes(295_000_000)).toBe('295 MB')
    expect(formatBytes(2_500_000_000)).toBe('2.5 GB')
    expect(formatBytes(-1)).toBe('unknown size')
  })
})
