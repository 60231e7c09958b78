import { describe, expect, it } from 'vitest'
import { FILE_NAME_MAX } from '../../contract/file-name.ts'
import { fileStem, subjectOf } from '../../contract/vocabulary.ts'
import { exportActionOf, exportFileName } from './export.ts'
import { parseFilters } from '../kernel/params.ts'

describe("an index export's file name", () => {
  it('names a busy search within FILE_NAME_MAX (64) characters, its days as days', () => {
    const p = new Map([
      ['q', 'where is my refund for the order I placed last week'],
      ['party', '15551234567'],
      ['direction', 'outbound'],
      ['status', 'error'],
      ['from', '2026-11-17T05:00:00.000Z'],
      ['to', '2026-11-24T04:59:59.999Z'],
      ['numbers', '18323232323'],
    ])
    const name = exportFileName(parseFilters(p), p, 123_456, 'csv', new Date('2026-11-24T12:00:00Z'))
    expect(name.length).toBeLessThanOrEqual(FILE_NAME_MAX)
    expect(name).toMatch(/^switchboard-search-18323232323-.+-123456-rows(-2026-11-24)?\.csv$/)
    expect(name).not.toContain('t05-00')
  })

  it('keeps the span before the day of the export', () => {
    const p = new Map([
      ['from', '2026-11-17'],
      ['to', '2026-11-18'],
    ])
    expect(exportFileName(parseFilters(p), p, 5, 'csv', new Date('2026-11-24T12:00:00Z'))).toBe(
      'switchboard-search-all-2026-11-17-to-2026-11-18-5-rows.csv',
    )
    expect(exportFileName(parseFilters(new Map()), new Map(), 5, 'csv', new Date('2026-11-24T12:00:00Z'))).toBe(
      'switchboard-search-all-5-rows-2026-11-24.csv',
    )
  })

  it('starts with the subject the access log records the export under', () => {
    const one = new Map([['numbers', '18323232323']])
    const filtered = new Map([...one, ['q', 'refund']])
    for (const p of [one, filtered, new Map<string, string>()]) {
      const f = parseFilters(p)
      expect(exportFileName(f, p, 5, 'csv').startsWith(`${fileStem(subjectOf(exportActionOf(f)))}-`)).toBe(true)
    }
    expect(exportActionOf(parseFilters(one))).toBe('history.export')
    expect(exportActionOf(parseFilters(filtered))).toBe('search.export')
  })
})
