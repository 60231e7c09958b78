import { describe, expect, it } from 'vitest'
import { isoOf } from './queries.ts'

/** isoOf writes a date field by field; toISOString is the reference it must agree with. */
describe('isoOf', () => {
  const reference = (ms: number) => `${new Date(ms).toISOString().slice(0, -5)}Z`

  it('writes every date as toISOString does, to the second, from a Date or a database text', () => {
    // Spread over 1970–2100, with every field at one or two digits somewhere among them.
    for (let i = 0; i < 5000; i++) {
      const ms = Math.round(((i * 2_654_435_761) % 4_102_444_800) * 1000 + (i % 1000))
      expect(isoOf(new Date(ms))).toBe(reference(ms))
      const text = new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, '+00')
      expect(isoOf(text)).toBe(reference(Math.floor(ms / 1000) * 1000))
    }
    expect(isoOf(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 999)))).toBe('2026-01-02T03:04:05Z')
  })

  it('keeps years beyond four digits whole, and says nothing for no date', () => {
    expect(isoOf(new Date(Date.UTC(12345, 6, 7, 8, 9, 10)))).toBe('+012345-07-07T08:09:10Z')
    expect(isoOf(new Date(Date.UTC(999, 0, 1)))).toBe('0999-01-01T00:00:00Z')
    expect(isoOf('not a date')).toBeNull()
    expect(isoOf(new Date(Number.NaN))).toBeNull()
    expect(isoOf(null)).toBeNull()
    expect(isoOf(undefined)).toBeNull()
  })
})
