// @vitest-environment happy-dom
import { focusManager, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { indexKeys, parseStatus } from '../api/index-status'
import { NeedsReplyCount } from './needs-reply-count'

/**
 * The navigation's count of waiting customers stays current on a page left open: it is asked
 * again every minute while the window is visible, and not while it is hidden (each ask is a
 * logged read).
 */

const status = parseStatus({
  enabled: true,
  engine: 'pglite',
  numbers: [{ number: '15129474129', tid: 'TID1', state: 'idle', indexed: 10, upstreamTotal: 10 }],
  freshness: { numbersKnown: 1, numbersComplete: 1, syncing: [], incomplete: [], indexedUpTo: null },
})

let total = 3
let asked = 0

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true })
  total = 3
  asked = 0
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string) => {
      if (!url.startsWith('/api/desk/needs-reply')) return Promise.reject(new Error(`unexpected request ${url}`))
      asked++
      const body = { at: '2026-11-24T12:00:00.000Z', thresholdMinutes: 15, total, rows: [] }
      return Promise.resolve(new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }))
    }),
  )
})

afterEach(() => {
  cleanup()
  focusManager.setFocused(undefined)
  vi.unstubAllGlobals()
  vi.useRealTimers()
})

function renderCount() {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  // The index is known to be on: the count may be asked for.
  qc.setQueryData(indexKeys.status(), status)
  qc.setQueryDefaults(indexKeys.status(), { staleTime: Infinity })
  return render(
    <QueryClientProvider client={qc}>
      <NeedsReplyCount signedIn />
    </QueryClientProvider>,
  )
}

describe('the navigation count of customers waiting', () => {
  test('is asked again every minute while the page is open', async () => {
    renderCount()
    await screen.findByText('3')
    expect(asked).toBe(1)
    total = 5
    await act(() => vi.advanceTimersByTimeAsync(59_000))
    expect(asked).toBe(1)
    await act(() => vi.advanceTimersByTimeAsync(1_500))
    expect(asked).toBe(2)
    expect((await screen.findByText('5')).textContent).toBe(': 5 waiting')
  })

  test('is not asked while the window is hidden', async () => {
    renderCount()
    await screen.findByText('3')
    act(() => {
      focusManager.setFocused(false)
    })
    await act(() => vi.advanceTimersByTimeAsync(5 * 60_000))
    expect(asked).toBe(1)
  })
})
