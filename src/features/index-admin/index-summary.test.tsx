// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, expect, test } from 'vitest'
import { parseStatus } from '../../api/index-status'
import { IndexSummary } from './index-summary'
import { IDLE_ACTIONS } from './test-actions'

afterEach(cleanup)

const actions = IDLE_ACTIONS

const line = (complete: number, syncing: number) => {
  const status = parseStatus({
    enabled: true,
    numbers: [],
    freshness: { numbersKnown: 60, numbersComplete: complete, syncing: Array.from({ length: syncing }, (_, i) => String(12125550100 + i)) },
  })
  render(<IndexSummary status={status} role="admin" actions={actions} />)
  const text = screen.getByText(/numbers fully indexed/).textContent
  cleanup()
  return text
}

test('the summary says why its two counts need not add up: whole numbers syncing again for their new messages', () => {
  // 49 whole and 12 syncing of 60: at least one of the twelve is whole, fetching new messages.
  expect(line(49, 12)).toContain(
    '49 of 60 numbers fully indexed; 12 syncing or waiting to sync, fully indexed ones among them, fetching new messages.',
  )
  // 40 whole and 12 syncing: the counts can be apart, nothing to explain.
  expect(line(40, 12)).toContain('40 of 60 numbers fully indexed; 12 syncing or waiting to sync. Engine:')
  expect(line(60, 0)).toContain('60 of 60 numbers fully indexed. Engine:')
})

test('with the numbers at hand, those syncing, those waiting and those stopped are told apart', () => {
  const row = (i: number, state: string) => ({ number: String(12125550100 + i), tid: `T${i}`, state, indexed: 0, upstreamTotal: null })
  const states = [...Array.from({ length: 2 }, () => 'syncing'), ...Array.from({ length: 34 }, () => 'queued'), 'error']
  const status = parseStatus({
    enabled: true,
    numbers: [...states.map((s, i) => row(i, s)), ...Array.from({ length: 23 }, (_, i) => row(100 + i, 'idle'))],
    freshness: { numbersKnown: 60, numbersComplete: 23, syncing: states.slice(0, 36).map((_, i) => String(12125550100 + i)) },
  })
  render(<IndexSummary status={status} role="admin" actions={actions} />)
  expect(screen.getByText(/numbers fully indexed/).textContent).toContain(
    '23 of 60 numbers fully indexed; 2 syncing now, 34 waiting to sync; 1 stopped by an error or a refusal (below). Engine:',
  )
})

test('with the numbers at hand, a whole number waiting for its new messages is said, so 23 + 2 + 35 of 60 is explained', () => {
  const row = (i: number, state: string) => ({ number: String(12125550100 + i), tid: `T${i}`, state, indexed: 0, upstreamTotal: null })
  const states = [...Array.from({ length: 2 }, () => 'syncing'), ...Array.from({ length: 35 }, () => 'queued')]
  const status = parseStatus({
    enabled: true,
    numbers: [...states.map((s, i) => row(i, s)), ...Array.from({ length: 23 }, (_, i) => row(100 + i, 'idle'))],
    freshness: { numbersKnown: 60, numbersComplete: 24, syncing: states.map((_, i) => String(12125550100 + i)) },
  })
  render(<IndexSummary status={status} role="admin" actions={actions} />)
  expect(screen.getByText(/numbers fully indexed/).textContent).toContain(
    '24 of 60 numbers fully indexed; 2 syncing now, 35 waiting to sync, fully indexed ones among them, fetching new messages. Engine:',
  )
})
