import { describe, expect, it } from 'vitest'
import {
  droppedParams,
  historySearch,
  isDay,
  parseSearch,
  parseSearchString,
  searchSearch,
  searchValidator,
  stringifySearch,
} from './route-params'

describe('route params', () => {
  it('falls back field by field', () => {
    const h = parseSearch(historySearch, new URLSearchParams('tid=ABC&page=abc&size=7000&view=nope&dir=inbound&mark=12'))
    expect(h).toMatchObject({ tid: 'ABC', page: 1, size: 7000, view: 'log', dir: 'inbound', mark: 12, tz: 'local' })
  })
  it('keeps a huge page for the page to clamp against the total', () => {
    expect(parseSearch(historySearch, new URLSearchParams('page=99999')).page).toBe(99999)
  })
  it('parses the search query', () => {
    const s = parseSearch(
      searchSearch,
      new URLSearchParams('q=hi&party=(917)%20555-0142&numbers=1832,x,15551234567&from=2026-02-30&to=2026-01-31&status=bad'),
    )
    // One member that is no account number (1832, x) leaves the whole list out, for DroppedParams to say.
    expect(s).toMatchObject({ q: 'hi', party: '9175550142', numbers: [], from: '', to: '2026-01-31', status: null })
    expect(parseSearch(searchSearch, new URLSearchParams('numbers=+1 (832) 323-2323, 18552009444,')).numbers).toEqual([
      '18323232323',
      '18552009444',
    ])
  })
  it('knows real days', () => {
    expect(isDay('2024-02-29')).toBe(true)
    expect(isDay('2023-02-29')).toBe(false)
  })
  it('reads the URL as plain words and writes typed values back as the same words', () => {
    expect(parseSearchString('?tid=1&tid=2&numbers=1,2&q=a+b')).toEqual({ tid: '1', numbers: '1,2', q: 'a b' })
    expect(stringifySearch({ tid: 'ABC', page: 2, numbers: ['1832', '1555'], asked: { first: 1, last: 50 }, mark: null, q: '' })).toBe(
      '?tid=ABC&page=2&numbers=1832,1555&asked=1-50',
    )
    expect(stringifySearch({ mark: null, numbers: [] })).toBe('')
  })
  it("validates a link's typed values and an address bar's strings alike", () => {
    const validate = searchValidator(historySearch)
    const typed = validate({ tid: 'ABC', page: 3, asked: { first: 101, last: 150 }, dir: null } as never)
    const fromUrl = validate(parseSearchString('?tid=ABC&page=3&asked=101-150') as never)
    expect(typed).toEqual(fromUrl)
    expect(typed).toMatchObject({ page: 3, asked: { first: 101, last: 150 }, dir: null })
  })
})

describe('fields a link gave that could not be read', () => {
  const keys = ['from', 'to', 'party', 'dir', 'numbers'] as const
  it('names each one with its value as written, and only those', () => {
    expect(droppedParams(searchSearch, '?from=2026-13-45&to=2026-02-30&dir=sideways&q=x', keys)).toEqual([
      { key: 'from', value: '2026-13-45' },
      { key: 'to', value: '2026-02-30' },
      { key: 'dir', value: 'sideways' },
    ])
    expect(droppedParams(searchSearch, '?party=abc&numbers=,,x', keys)).toEqual([
      { key: 'party', value: 'abc' },
      { key: 'numbers', value: ',,x' },
    ])
    // A member too short to be a number reached the server, which refused the whole search (400).
    expect(droppedParams(searchSearch, '?numbers=123,abc', keys)).toEqual([{ key: 'numbers', value: '123,abc' }])
  })
  it('leaves alone a value read, one tidied, and one not given', () => {
    expect(droppedParams(searchSearch, '?from=2026-02-28&party=415.555.0123&dir=inbound&to=', keys)).toEqual([])
    expect(droppedParams(searchSearch, '', keys)).toEqual([])
  })
})
