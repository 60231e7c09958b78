// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, test } from 'vitest'
import { indexKeys, parseStatus } from '../../api/index-status'
import { numbersQuery } from '../../api/numbers'
import { TestRouter } from '../../lib/test-router'
import { ChartsPage, notWhole, PartialNotice } from './charts-page'

/** The charts page's states before anything is indexed, from a seeded query cache (no request is made). */

afterEach(cleanup)

const NUMBER = '15129474129'
const OTHER = '13105550101'

function renderWith(ui: ReactNode, seed: (qc: QueryClient) => void) {
  const qc = new QueryClient({
    defaultOptions: { queries: { retry: false, retryOnMount: false, staleTime: Infinity, refetchInterval: false } },
  })
  seed(qc)
  return render(<QueryClientProvider client={qc}>{ui}</QueryClientProvider>, { wrapper: TestRouter })
}

const status = (indexed: number) =>
  parseStatus({
    enabled: true,
    engine: 'pglite',
    numbers: [{ number: NUMBER, tid: 'TID1', state: 'idle', indexed, upstreamTotal: indexed }],
    freshness: { numbersKnown: 1, numbersComplete: indexed > 0 ? 1 : 0, syncing: [], incomplete: [], indexedUpTo: null },
  })
const listed = (number: string, tid: string) => ({ number, tid, type: 'local', country: 'US', webhook: null, dlr: null })

describe('Charts before anything is indexed', () => {
  test('says nothing is indexed, instead of drawing zero lines', () => {
    renderWith(<ChartsPage search={{ number: '', range: '90d', tz: 'utc' }} admin={false} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(0))
    })
    expect(screen.getByText('Nothing is indexed yet')).toBeTruthy()
    expect(screen.queryByRole('table')).toBeNull()
  })

  test('a number indexed whole with no messages is charted, not called "not indexed yet"', () => {
    renderWith(<ChartsPage search={{ number: OTHER, range: '90d', tz: 'utc' }} admin />, (qc) => {
      qc.setQueryData(
        indexKeys.status(),
        parseStatus({
          enabled: true,
          engine: 'pglite',
          numbers: [
            { number: NUMBER, tid: 'TID1', state: 'idle', indexed: 10, upstreamTotal: 10 },
            { number: OTHER, tid: 'TID2', state: 'idle', indexed: 0, upstreamTotal: 0 },
          ],
          freshness: { numbersKnown: 2, numbersComplete: 2, syncing: [], incomplete: [], indexedUpTo: null },
        }),
      )
      qc.setQueryData(numbersQuery('all').queryKey, [listed(NUMBER, 'TID1'), listed(OTHER, 'TID2')])
    })
    expect(screen.queryByText(/not indexed yet/)).toBeNull()
    expect(screen.queryByRole('button', { name: 'Index this number' })).toBeNull()
  })

  test("a link's number the account lists but the index has not got to: said so, and the picker shows it", () => {
    renderWith(<ChartsPage search={{ number: OTHER, range: '90d', tz: 'utc' }} admin />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(numbersQuery('all').queryKey, [listed(NUMBER, 'TID1'), listed(OTHER, 'TID2')])
    })
    expect(screen.getByText('(310) 555-0101 is not indexed yet')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Index this number' })).toBeTruthy()
    // The picker shows the page's number, though the list (the indexed numbers) does not hold it.
    expect(screen.getByRole<HTMLInputElement>('combobox', { name: 'Number' }).value).toBe('(310) 555-0101')
  })
})

describe('Charts over part of the account', () => {
  const fresh = (known: number, incomplete: string[]) => ({
    numbersKnown: known,
    numbersComplete: known - incomplete.length,
    syncing: [],
    incomplete,
    indexedUpTo: null,
  })
  test('says when the account was never listed: the figures are the opened numbers alone', () => {
    render(<PartialNotice freshness={fresh(1, [])} short={0} unlisted />)
    expect(screen.getByRole('status').textContent).toMatch(/^Only the 1 number someone opened is indexed, not the whole account/)
  })
  test('says how many numbers count short, and nothing when every number is whole', () => {
    render(<PartialNotice freshness={fresh(60, [NUMBER])} short={1} unlisted={false} />)
    expect(screen.getByRole('status').textContent).toBe('1 number is not fully indexed: its figures may be short.')
    cleanup()
    const { container } = render(<PartialNotice freshness={fresh(60, [])} short={0} unlisted={false} />)
    expect(container.textContent).toBe('')
  })
})

test('counts the numbers not held whole, leaving out those that left the account or were forgotten', () => {
  const n = (number: string, state: string, extra: Record<string, unknown> = {}) =>
    ({
      number,
      tid: 'T',
      state,
      indexed: 10,
      upstreamTotal: 10,
      removed: false,
      otherTids: [],
      forgottenAt: null,
      finding: null,
      ...extra,
    }) as never
  const numbers = [
    n('1', 'idle'),
    n('2', 'error'),
    n('3', 'queued'),
    n('4', 'idle', { removed: true, state: 'paused' }),
    n('5', 'never', { forgottenAt: '2026-11-29T00:00:00Z', indexed: 0 }),
    n('6', 'idle', { indexed: 9 }),
  ]
  expect(notWhole(numbers, null)).toBe(3)
  expect(notWhole(numbers, '1')).toBe(0)
  expect(notWhole(numbers, '2')).toBe(1)
})
