import { describe, expect, expectTypeOf, it } from 'vitest'
import { SEARCH_KEYS } from './saved-views.ts'
import {
  DROPPED_FIELDS,
  filterWords,
  pageWords,
  PARAM_OF_KEY,
  SEARCH_PAGE_KEYS,
  SEARCH_PARAM_NAMES,
  searchParamsOf,
  type FilterValues,
  type SearchPageValues,
  type SearchParams,
  type StatusFilter,
} from './search-filters.ts'

const none: SearchPageValues = { q: '', party: '', dir: null, status: null, media: null, from: '', to: '', numbers: [] }
const every: SearchPageValues = {
  q: ' refund ',
  party: '9172079778',
  dir: 'outbound',
  status: 'other',
  media: 'no',
  from: '2026-10-01',
  to: '2026-10-31',
  numbers: ['15129474129', '18323232323'],
}
/** The page's zone, as the page hands it in: here a fixed shift, so what the table does with it shows. */
const shifted = (from: string, to: string) => ({ ...(from ? { from: `${from}T05:00` } : {}), ...(to ? { to: `${to}T04:59` } : {}) })

describe("the search filters' table", () => {
  it('names the keys every stored link, saved view and API client already uses', () => {
    expect(SEARCH_PAGE_KEYS).toEqual(['q', 'party', 'dir', 'status', 'media', 'from', 'to', 'numbers'])
    expect(SEARCH_KEYS).toEqual(['q', 'party', 'dir', 'status', 'media', 'from', 'to', 'numbers', 'tz'])
    expect(SEARCH_PARAM_NAMES).toEqual(['q', 'party', 'direction', 'status', 'media', 'from', 'to', 'numbers'])
    expect(PARAM_OF_KEY.dir).toBe('direction')
    expect(Object.keys(DROPPED_FIELDS)).toEqual(['party', 'dir', 'status', 'media', 'from', 'to', 'numbers'])
  })

  it('types each filter as the server reads it and the index API as words', () => {
    expectTypeOf<FilterValues>().toEqualTypeOf<{
      q: string | null
      party: string | null
      direction: 'inbound' | 'outbound' | null
      status: StatusFilter | null
      media: boolean | null
      dates: { from: string | null; toExclusive: string | null; toInclusive: string | null } | null
      numbers: string[] | null
    }>()
    expectTypeOf<SearchParams>().toEqualTypeOf<{
      q?: string
      party?: string
      direction?: string
      status?: string
      media?: string
      from?: string
      to?: string
      numbers?: string
    }>()
    expectTypeOf<SearchPageValues['dir']>().toEqualTypeOf<'inbound' | 'outbound' | null>()
  })

  it("sends the page's values under the index's names, the days through the page's zone", () => {
    expect(searchParamsOf(every, shifted)).toEqual({
      q: 'refund',
      party: '9172079778',
      direction: 'outbound',
      status: 'other',
      media: 'no',
      from: '2026-10-01T05:00',
      to: '2026-10-31T04:59',
      numbers: '15129474129,18323232323',
    })
    expect(searchParamsOf({ ...none, q: '   ', to: '2026-10-31' }, shifted)).toEqual({ to: '2026-10-31T04:59' })
    expect(searchParamsOf(none, shifted)).toEqual({})
  })

  it("says the filters in words and writes them as the page's URL does", () => {
    expect(filterWords(every)).toEqual([
      'text "refund"',
      'party 9172079778',
      'outbound',
      'status other',
      'without media',
      'numbers 15129474129, 18323232323',
    ])
    expect(filterWords(none)).toEqual([])
    expect(pageWords(every)).toEqual([
      ['q', 'refund'],
      ['party', '9172079778'],
      ['dir', 'outbound'],
      ['status', 'other'],
      ['media', 'no'],
      ['from', '2026-10-01'],
      ['to', '2026-10-31'],
      ['numbers', '15129474129,18323232323'],
    ])
    expect(pageWords(none)).toEqual([])
  })
})
