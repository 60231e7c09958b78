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

  it("names each filter in the search's order, the numbers as the scope", () => {
    const at = new Date('2026-11-24T12:00:00Z')
    const name = (given: Record<string, string>) => {
      const p = new Map(Object.entries(given))
      return exportFileName(parseFilters(p), p, 5, 'csv', at)
    }
    expect(name({ q: 'Refund!', party: '+1 415 555 0123' })).toBe('switchboard-search-all-text-refund-party-14155550123-5-rows.csv')
    expect(name({ direction: 'inbound', status: '503', media: 'no' })).toBe('switchboard-search-all-inbound-status-503-no-media-5-rows.csv')
    expect(name({ status: 'other', media: 'yes', numbers: '18323232323,18552009444' })).toBe(
      'switchboard-search-2-numbers-other-with-media-5-rows.csv',
    )
    expect(name({ to: '2026-11-20T12:00:00Z', direction: 'outbound' })).toBe(
      'switchboard-search-all-outbound-start-to-2026-11-20-5-rows.csv',
    )
  })

  it('is a whole history only for one number and no other filter', () => {
    const one = { numbers: '18323232323' }
    for (const extra of [
      { q: 'x' },
      { party: '1415' },
      { direction: 'inbound' },
      { status: 'error' },
      { media: 'no' },
      { from: '2026-11-01' },
      { to: '2026-11-01' },
    ])
      expect(exportActionOf(parseFilters(new Map(Object.entries({ ...one, ...extra })))), JSON.stringify(extra)).toBe('search.export')
    expect(exportActionOf(parseFilters(new Map([['numbers', '18323232323,18552009444']])))).toBe('search.export')
    expect(exportActionOf(parseFilters(new Map()))).toBe('search.export')
    expect(exportActionOf(parseFilters(new Map(Object.entries(one))))).toBe('history.export')
  })
})
