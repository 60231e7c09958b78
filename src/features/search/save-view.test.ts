import { describe, expect, it } from 'vitest'
import { viewHref } from '../../api/views'
import { parseSearch, searchSearch } from '../../lib/route-params'
import { viewQuery } from './save-view'

/** A saved view opens the Search page on the search it was saved from (its range's days worked out then). */
describe('a saved view round-trips the Search page query', () => {
  const at = Date.parse('2026-11-26T18:00:00Z')
  const page = (qs: string) => parseSearch(searchSearch, new URLSearchParams(qs))
  const opened = (href: string) => page(href.slice(href.indexOf('?') + 1))

  it('keeps every filter and the fixed days as the page wrote them', () => {
    const search = page(
      'q=refund&party=9172079778&dir=inbound&status=error&media=yes&from=2026-10-01&to=2026-10-31&numbers=18323232323,18552009444&tz=utc',
    )
    const query = viewQuery(search, null)
    expect(opened(viewHref({ query, range: null }, at))).toEqual(search)
  })

  it('leaves the days out of a relative range and works them out when opened, in the zone the page shows', () => {
    const search = page('dir=outbound&from=2026-01-01&to=2026-01-02&tz=utc')
    const query = viewQuery(search, 'last-7-days')
    expect(query).toBe('dir=outbound&tz=utc')
    expect(viewHref({ query, range: 'last-7-days' }, at)).toBe('/search?dir=outbound&tz=utc&from=2026-11-20&to=2026-11-26')
    expect(opened(viewHref({ query, range: 'today' }, at))).toEqual({ ...search, from: '2026-11-26', to: '2026-11-26' })
  })

  it('writes nothing for what the page leaves at its default', () => {
    expect(viewQuery(page(''), null)).toBe('')
    expect(viewQuery(page('q=%20%20&tz=local'), 'today')).toBe('')
    expect(viewHref({ query: '', range: null }, at)).toBe('/search')
  })
})
