import { describe, expect, it } from 'vitest'
import { ApiError } from './errors'
import { normaliseNumbers } from './numbers'

describe('normaliseNumbers', () => {
  it('keeps country absent as null and builds digit search text', () => {
    const rows = normaliseNumbers({ success: '1', data: [{ number: '18323232323', tid: 'AB1', type: 'local', webhook: '', dlr: null }] })
    expect(rows[0]).toMatchObject({ country: null, webhook: '', dlr: null })
  })
  it('reads numeric ids as strings and names a bad or missing field', () => {
    expect(normaliseNumbers({ success: '1', data: [{ number: 18323232323, tid: 42 }] })[0]).toMatchObject({
      number: '18323232323',
      tid: '42',
      type: null,
    })
    expect(() => normaliseNumbers({ success: '1', data: [{ tid: 'A' }] })).toThrow(/data\.0\.number/)
    expect(() =>
      normaliseNumbers({
        success: '1',
        data: [
          { number: '1', tid: 'A' },
          { number: '2', tid: 'B', webhook: { x: 1 } },
        ],
      }),
    ).toThrow(/data\.1\.webhook/)
    expect(() => normaliseNumbers({ success: '1', data: ['x'] })).toThrow(ApiError)
  })
  it('rejects success other than "1"', () => {
    expect(() => normaliseNumbers({ success: '0', data: [] })).toThrow(ApiError)
  })
})
