import { describe, expect, it } from 'vitest'
import { clampPage, pageCount, pageRange, rangeText, refitLink } from './range'

describe('pageRange', () => {
  it('maps page n of size s to (n-1)s+1 … ns', () => {
    expect(pageRange(1, 50)).toEqual({ start: 1, end: 50 })
    expect(pageRange(2, 50)).toEqual({ start: 51, end: 100 })
  })
  it('clamps the last page to the total', () => {
    expect(pageRange(47, 50, 2345)).toEqual({ start: 2301, end: 2345 })
  })
  it('does not clamp below start when the total shrank', () => {
    expect(pageRange(3, 50, 20)).toEqual({ start: 101, end: 150 })
  })
})

describe('pageCount and clampPage', () => {
  it('counts pages, at least one', () => {
    expect(pageCount(2345, 50)).toBe(47)
    expect(pageCount(0, 50)).toBe(1)
  })
  it('clamps pages to what exists', () => {
    expect(clampPage(99, 2345, 50)).toBe(47)
    expect(clampPage(-3, 2345, 50)).toBe(1)
    expect(clampPage(Number.NaN, null, 50)).toBe(1)
  })
})

describe('rangeText', () => {
  it('reads like the spec example', () => {
    expect(rangeText(51, 100, 2345)).toBe('51–100 of 2,345')
    expect(rangeText(2301, 2350, 2345)).toBe('2,301–2,345 of 2,345')
    expect(rangeText(1, 50, 0)).toBe('0 of 0')
  })
})

describe('page sizes under HISTORY_PAGE_CAP', () => {
  it('never offers more than the cap', async () => {
    const { pageSizesFor, fitSize } = await import('./range')
    expect(pageSizesFor(100)).toEqual([25, 50, 100])
    expect(pageSizesFor(1000)).toEqual([25, 50, 100, 250, 500, 1000])
    expect(pageSizesFor(300)).toEqual([25, 50, 100, 250, 300])
    expect(pageSizesFor(10)).toEqual([10])
    expect(fitSize(1000, 100)).toBe(100)
    expect(fitSize(50, 100)).toBe(50)
    expect(fitSize(50, 10)).toBe(10)
  })
})

describe('refitLink', () => {
  it('keeps the records a link named when the server allows smaller pages', () => {
    // size=500&page=3 names records 1,001–1,500: under a cap of 100 that is page 11, not page 3.
    const r = refitLink(3, 500, 100)
    expect(r).toEqual({ page: 11, size: 100, asked: { first: 1001, last: 1500 } })
    expect(pageRange(r.page, r.size).start).toBe(1001)
  })
  it('lands on the page that holds the first record when the sizes do not divide', () => {
    const r = refitLink(2, 250, 100)
    expect(r.size).toBe(100)
    const { start, end } = pageRange(r.page, r.size)
    expect(start <= 251 && 251 <= end).toBe(true)
  })
  it('opens at the marked record when the link marks one of its records', () => {
    const r = refitLink(3, 500, 100, 1234)
    expect(r.page).toBe(13)
    const { start, end } = pageRange(r.page, r.size)
    expect(start <= 1234 && 1234 <= end).toBe(true)
    // A mark outside the named records is ignored.
    expect(refitLink(3, 500, 100, 5).page).toBe(11)
  })
  it('leaves an allowed size alone', () => {
    expect(refitLink(3, 500, 1000)).toEqual({ page: 3, size: 500, asked: null })
    // A size past every cap: the page holding the first record the link named, and which it named.
    expect(refitLink(2, 2000, 1000)).toEqual({ page: 3, size: 1000, asked: { first: 2001, last: 4000 } })
    expect(refitLink(1, 50, 1000)).toEqual({ page: 1, size: 50, asked: null })
  })
})
