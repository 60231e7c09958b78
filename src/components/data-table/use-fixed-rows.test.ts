import { describe, expect, it } from 'vitest'
import { rowWindow } from './use-fixed-rows'

describe('rowWindow', () => {
  it('covers the rows in view plus overscan, with spacers that keep the full height', () => {
    // 10,000 rows of 58 px, 630 px tall, scrolled to row 100.
    const w = rowWindow(10_000, 58, 8, 100 * 58, 630)
    expect(w.first).toBe(92)
    expect(w.last).toBe(100 + Math.ceil(630 / 58) - 1 + 8)
    expect(w.top).toBe(92 * 58)
    expect(w.top + (w.last - w.first + 1) * 58 + w.bottom).toBe(10_000 * 58)
  })
  it('clamps at both ends', () => {
    expect(rowWindow(10_000, 58, 8, 0, 630)).toMatchObject({ first: 0, top: 0 })
    const end = rowWindow(10_000, 58, 8, 10_000 * 58, 630)
    expect(end.last).toBe(9_999)
    expect(end.bottom).toBe(0)
    expect(rowWindow(5, 58, 8, 0, 630)).toEqual({ first: 0, last: 4, top: 0, bottom: 0 })
  })
  it('has no rows for an empty list, or a scroll position left over from a longer one', () => {
    expect(rowWindow(0, 58, 8, 0, 630)).toEqual({ first: 0, last: -1, top: 0, bottom: 0 })
    const w = rowWindow(3, 58, 8, 50_000, 630)
    expect(w.first).toBeLessThanOrEqual(w.last)
    expect(w.last).toBe(2)
  })
})
