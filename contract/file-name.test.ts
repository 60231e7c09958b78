import { describe, expect, it } from 'vitest'
import { fitFileName, FILE_NAME_MAX } from './file-name.ts'

describe('export file names', () => {
  it('keep the scope and the row count, and the filters that fit, within FILE_NAME_MAX (64) characters', () => {
    const date = new Date('2026-11-21T12:00:00Z')
    expect(fitFileName({ subject: 'search', scope: '18323232323', filters: ['text refund'], rows: 24, ext: 'csv', date })).toBe(
      'switchboard-search-18323232323-text-refund-24-rows.csv',
    )
    const long = fitFileName({
      subject: 'search',
      scope: 'all',
      filters: [
        'text "a very long search phrase about refunds"',
        'party 15551234567',
        'outbound',
        'status error',
        '2026-01-01 to 2026-03-31',
      ],
      rows: 123_456,
      ext: 'csv',
      date,
    })
    expect(long.length).toBeLessThanOrEqual(FILE_NAME_MAX)
    expect(long).toMatch(/^switchboard-search-all-.*-123456-rows(-2026-11-21)?\.csv$/)
    expect(long).toContain('party-15551234567')
  })

  it('stays within the limit whatever it is given', () => {
    const name = fitFileName({ subject: 'search', scope: 'x'.repeat(200), filters: ['y'.repeat(200)], rows: 1, ext: 'ndjson' })
    expect(name.length).toBeLessThanOrEqual(FILE_NAME_MAX)
    expect(name.endsWith('-1-rows.ndjson')).toBe(true)
  })
})
