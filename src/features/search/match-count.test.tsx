// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { indexKeys, parseStatus } from '../../api/index-status'
import { toRow } from '../../api/index-api'
import { parseSearch, searchSearch } from '../../lib/route-params'
import { TestRouter } from '../../lib/test-router'
import { matchesLine } from './match-count'
import { SearchPage, toSearchParams } from './search-page'

/**
 * The Search page's count, from a query cache filled the way the server's answer fills it (the
 * seeded answers are fresh: no request is made). A count the server stopped is never written as
 * exact: not in the heading line, the table's name, "Show more" or the export button.
 */

afterEach(cleanup)

const NUMBER = '15129474129'
const freshness = { numbersKnown: 1, numbersComplete: 1, syncing: [], incomplete: [], indexedUpTo: '2026-11-21T12:04:00Z' }

const row = (ordinal: number) =>
  toRow({
    number: NUMBER,
    tid: 'TID1',
    ordinal,
    position: ordinal,
    systemId: String(ordinal),
    messageId: `m${ordinal}`,
    date: '2026-11-21T12:04:00Z',
    phone: '+1 (917) 555-0142',
    direction: 'outbound',
    body: 'See you then',
    mms: true,
    mediaUrl: null,
    status: '200',
    statusCode: 200,
  })

function renderSearch(qs: string, total: number, totalCapped: boolean) {
  const search = parseSearch(searchSearch, new URLSearchParams(qs))
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity, refetchInterval: false } } })
  qc.setQueryData(
    indexKeys.status(),
    parseStatus({
      enabled: true,
      engine: 'postgres',
      numbers: [{ number: NUMBER, tid: 'TID1', state: 'idle', indexed: 2_000_000, upstreamTotal: 2_000_000 }],
      freshness,
    }),
  )
  qc.setQueryData(indexKeys.search(toSearchParams(search)), {
    pages: [{ total, totalCapped, rows: [row(9), row(8)], nextCursor: 'next', freshness, tookMs: 40 }],
    pageParams: [undefined],
  })
  render(
    <QueryClientProvider client={qc}>
      <SearchPage search={search} canExport />
    </QueryClientProvider>,
    { wrapper: TestRouter },
  )
}

describe("the Search page's count", () => {
  it('says "more than" wherever the server stopped counting', () => {
    renderSearch('media=yes', 100_000, true)
    expect(screen.getByText('More than 100,000 matches', { selector: 'p' })).toBeTruthy()
    expect(screen.getByRole('table', { name: 'Search results, 2 of more than 100,000 shown' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Show more results (2 of more than 100,000 shown)' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Export all matches as CSV (more than 100,000)' })).toBeTruthy()
    expect(screen.queryByText(/^100,000 matches/)).toBeNull()
  })

  it('gives an exact count as it is', () => {
    renderSearch('status=success&from=2026-10-01&to=2026-10-31', 108_342, false)
    expect(screen.getByText('108,342 matches', { selector: 'p' })).toBeTruthy()
    expect(screen.getByRole('table', { name: 'Search results, 2 of 108,342 shown' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Show more results (2 of 108,342 shown)' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Export all 108,342 matches as CSV' })).toBeTruthy()
  })

  it('words one match, many and a stopped count', () => {
    expect(matchesLine(1, false)).toBe('1 match')
    expect(matchesLine(0, false)).toBe('0 matches')
    expect(matchesLine(100_000, true)).toBe('More than 100,000 matches')
  })
})

describe("the Search page's filters in the index's words and its own", () => {
  const every =
    'q=%20refund%20&party=9172079778&dir=inbound&status=error&media=yes&from=2026-10-01&to=2026-10-31&numbers=15129474129,18323232323&tz=utc'

  it('sends each filter under the index parameter, the days as typed in UTC', () => {
    expect(toSearchParams(parseSearch(searchSearch, new URLSearchParams(every)))).toEqual({
      q: 'refund',
      party: '9172079778',
      direction: 'inbound',
      status: 'error',
      media: 'yes',
      from: '2026-10-01',
      to: '2026-10-31',
      numbers: '15129474129,18323232323',
    })
    expect(Object.keys(toSearchParams(parseSearch(searchSearch, new URLSearchParams(every))))).toEqual([
      'q',
      'party',
      'direction',
      'status',
      'media',
      'from',
      'to',
      'numbers',
    ])
    expect(toSearchParams(parseSearch(searchSearch, new URLSearchParams('q=%20%20&media=no&numbers=x')))).toEqual({ media: 'no' })
  })

  it('names the filters in words on paper', () => {
    renderSearch(every, 2, false)
    expect(
      screen.getByText(
        'Search results: text "refund", party 9172079778, inbound, status error, with media, numbers 15129474129, 18323232323',
      ),
    ).toBeTruthy()
    cleanup()
    renderSearch('media=no&dir=outbound', 2, false)
    expect(screen.getByText('Search results: outbound, without media')).toBeTruthy()
  })
})
