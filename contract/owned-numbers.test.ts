import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { listedNumbers, listingHolds } from './owned-numbers.ts'

describe('listedNumbers', () => {
  it('reads the published example and the quirks: numeric ids, a plus, padding, a number listed twice', () => {
    const listing = listedNumbers({
      success: '1',
      data: [
        { number: '18323232323', tid: 'PUHMGWS98301', type: 'local', country: 'US', webhook: '', dlr: '' },
        { number: 18005550100, tid: 42 },
        { number: ' +1 (917) 555-0142 ', tid: ' T1 ' },
        { number: '18323232323', tid: 'SECOND' },
        { number: '123', tid: 'short' },
        { number: '18005550101' },
        null,
        'nonsense',
      ],
    })
    expect(listing).toEqual([
      { number: '18323232323', tid: 'PUHMGWS98301' },
      { number: '18005550100', tid: '42' },
      { number: '19175550142', tid: 'T1' },
      { number: '18323232323', tid: 'SECOND' },
    ])
    expect(listingHolds(listing, '+18323232323', 'SECOND')).toBe(true)
    expect(listingHolds(listing, '18323232323', 'OTHER')).toBe(false)
  })

  it('never throws and lists nothing it cannot read', () => {
    fc.assert(
      fc.property(fc.anything(), (json) => {
        for (const l of listedNumbers(json)) {
          expect(l.number).toMatch(/^\d{6,15}$/)
          expect(l.tid).not.toBe('')
        }
      }),
      { seed: 20261123, numRuns: 500 },
    )
    expect(listedNumbers({ data: 'x' })).toEqual([])
    expect(listedNumbers(null)).toEqual([])
  })
})
