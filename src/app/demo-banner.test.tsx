// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { indexKeys } from '../api/index-status'
import { DEFAULT_META, type Meta } from '../api/meta'
import { FIRST_RUN_KEY, FirstRunGuide } from '../features/numbers/first-run-guide'
import { TestRouter } from '../lib/test-router'
import { DEMO_BANNER_KEY, DemoBanner } from './demo-banner'

afterEach(cleanup)
beforeEach(() => {
  localStorage.clear()
})

function withMeta(meta: Partial<Meta>, ui: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, enabled: false } } })
  client.setQueryData(['meta'], { ...DEFAULT_META, ...meta })
  // The index summary as the server gives it while 12 of 60 numbers are done.
  client.setQueryData(indexKeys.summary(), { enabled: true, progress: { running: true, numbersDone: 12, numbersTotal: 60 } })
  return render(
    <QueryClientProvider client={client}>
      <TestRouter>{ui}</TestRouter>
    </QueryClientProvider>,
  )
}

describe('the demo label', () => {
  it('says the data is the built-in simulator’s, and how to use a real account', () => {
    withMeta({ simulatorAccount: 'demo' }, <DemoBanner />)
    expect(screen.getByRole('heading', { name: 'Demo data from the built-in simulator' })).toBeTruthy()
    expect(screen.getByText(/API_BASE_URL/)).toBeTruthy()
  })

  it('is never shown for a configured account', () => {
    withMeta({ simulatorAccount: null }, <DemoBanner />)
    expect(screen.queryByText(/simulator/)).toBeNull()
  })

  it('hides to a short label that stays, is remembered, and opens again', () => {
    const { unmount } = withMeta({ simulatorAccount: 'large' }, <DemoBanner />)
    expect(screen.getByText(/10,000 numbers/)).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Hide this notice' }))
    expect(screen.queryByRole('heading', { name: /Demo data/ })).toBeNull()
    expect(screen.getByText('Demo data (built-in simulator)')).toBeTruthy()
    expect(localStorage.getItem(DEMO_BANNER_KEY)).toBe('1')
    unmount()
    withMeta({ simulatorAccount: 'large' }, <DemoBanner />)
    expect(screen.getByText('Demo data (built-in simulator)')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'What is this?' }))
    expect(screen.getByRole('heading', { name: 'Demo data from the built-in simulator' })).toBeTruthy()
  })
})

describe('the first-run guide', () => {
  it('says what the app is, how far indexing is, and links to things to try', () => {
    withMeta({ simulatorAccount: 'demo', indexEnabled: true }, <FirstRunGuide />)
    expect(screen.getByRole('heading', { name: 'Welcome to Switchboard' })).toBeTruthy()
    expect(screen.getByText('12 of 60 numbers')).toBeTruthy()
    for (const name of ['Search every message', 'Read a number’s messages', 'See the callback audit’s problems', 'Open the desk'])
      expect(screen.getByRole('link', { name })).toBeTruthy()
  })

  it('stays hidden once hidden', () => {
    const { unmount } = withMeta({ simulatorAccount: 'demo' }, <FirstRunGuide />)
    fireEvent.click(screen.getByRole('button', { name: 'Hide this guide' }))
    expect(screen.queryByRole('heading', { name: 'Welcome to Switchboard' })).toBeNull()
    expect(localStorage.getItem(FIRST_RUN_KEY)).toBe('1')
    unmount()
    withMeta({ simulatorAccount: 'demo' }, <FirstRunGuide />)
    expect(screen.queryByRole('heading', { name: 'Welcome to Switchboard' })).toBeNull()
  })
})
