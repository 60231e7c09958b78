import { describe, expect, it } from 'vitest'
import { historySearch, isDay, parseSearch, searchSearch } from './route-params'

describe('route params', () => {
  it('falls back field by field', () => {
    const h = parseSearch(historySearch, new URLSearchParams('tid=ABC&page=abc&size=7000&view=nope&dir=inbound&mark=12'))
    expect(h).toMatchObject({ tid: 'ABC', page: 1, size: 1000, view: 'log', dir: 'inbound', mark: 12, tz: 'local' })
  })
  it('keeps a huge page for the page to clamp against the total', () => {
    expect(parseSearch(historySearch, new URLSearchParams('page=99999')).page).toBe(99999)
  })
  it('parses the search query', () => {
    const s = parseSearch(
      searchSearch,
      new URLSearchParams('q=hi&party=(917)%20555-0142&numbers=1832,x,15551234567&from=2026-02-30&to=2026-01-31&status=bad'),
    )
    expect(s).toMatchObject({ q: 'hi', party: '9175550142', numbers: ['1832', '15551234567'], from: '', to: '2026-01-31', status: null })
  })
  it('knows real days', () => {
    expect(isDay('2024-02-29')).toBe(true)
    expect(isDay('2023-02-29')).toBe(false)
  })
})
