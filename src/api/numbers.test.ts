import { describe, expect, it } from 'vitest'
import { ApiError } from './errors'
import { normaliseNumbers, previewNumbers } from './numbers'

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

describe('previewNumbers', () => {
  const record = (i: number, extra: Record<string, unknown> = {}) => ({
    number: `1832555${String(i).padStart(4, '0')}`,
    tid: `T${i}`,
    type: 'local',
    country: 'US',
    webhook: 'https://hooks.example.com/in',
    dlr: 'https://hooks.example.com/dlr',
    ...extra,
  })
  const listing = (data: unknown[]) => JSON.stringify({ success: '1', data })

  it('parses the first records alone, equal to the whole answer’s first records', () => {
    const data = Array.from({ length: 200 }, (_, i) => record(i))
    const text = listing(data)
    const preview = previewNumbers(text, 60)
    expect(preview).toHaveLength(60)
    expect(preview).toEqual(normaliseNumbers(JSON.parse(text)).slice(0, 60))
  })
  it('takes a listing shorter than the preview whole', () => {
    const text = listing([record(1), record(2)])
    expect(previewNumbers(text, 60)).toEqual(normaliseNumbers(JSON.parse(text)))
  })
  it('reads braces, brackets, quotes and backslashes inside strings as text', () => {
    const odd = record(1, { webhook: 'https://h.example/{x}]"[\\"},{', dlr: '\\' })
    const text = listing([odd, record(2), record(3)])
    expect(previewNumbers(text, 2)).toEqual(normaliseNumbers(JSON.parse(text)).slice(0, 2))
  })
  it('normalises as the whole answer does: numeric ids become text, missing fields null', () => {
    const text = listing([{ number: 18323232323, tid: 42 }, record(2)])
    expect(previewNumbers(text, 5)?.[0]).toEqual({ number: '18323232323', tid: '42', type: null, country: null, webhook: null, dlr: null })
  })
  it('gives nothing (the whole answer is awaited) for what it does not recognise', () => {
    // Another envelope order, a failed answer, spaces, a nested value, a bad record, a cut-off text, no records.
    expect(previewNumbers(JSON.stringify({ data: [record(1)], success: '1' }))).toBeNull()
    expect(previewNumbers(JSON.stringify({ success: '0', data: [record(1)] }))).toBeNull()
    expect(previewNumbers(JSON.stringify({ success: '1', data: [record(1)] }, null, 1))).toBeNull()
    expect(previewNumbers(listing([record(1, { webhook: { url: 'x' } })]))).toBeNull()
    expect(previewNumbers(listing([record(1, { tid: true })]))).toBeNull()
    expect(previewNumbers(listing([record(1, { type: [1] })]))).toBeNull()
    expect(previewNumbers(listing([record(1), record(2)]).slice(0, 60), 5)).toBeNull()
    expect(previewNumbers(listing([]))).toBeNull()
    expect(previewNumbers(listing([record(1)]).replace('[{', '[ {'))).toBeNull()
  })
  it('stops at the records asked for: what follows is not read', () => {
    const text = `${listing([record(1), record(2)]).slice(0, -2)},{"number":}]}`
    expect(() => JSON.parse(text) as unknown).toThrow()
    expect(previewNumbers(text, 2)).toHaveLength(2)
  })
})
