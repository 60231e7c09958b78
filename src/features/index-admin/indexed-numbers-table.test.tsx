// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, expect, test } from 'vitest'
import { parseStatus } from '../../api/index-status'
import { formatDate } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import { IndexedNumbersTable, ROWS_STEP } from './indexed-numbers-table'
import { IDLE_ACTIONS } from './test-actions'

afterEach(cleanup)

const actions = IDLE_ACTIONS

const base = { state: 'idle', indexed: 36, upstreamTotal: 36, lastSyncedAt: '2026-11-22T07:10:51Z' }
const FINE = '18323232323'
const GONE = '18552009444'
const TWICE = '14158074499'

function renderTable(numbers: unknown[], isAdmin = true) {
  const status = parseStatus({ enabled: true, numbers })
  render(<IndexedNumbersTable numbers={status.numbers} isAdmin={isAdmin} actions={actions} />)
  const table = screen.getByRole('table', { name: 'Indexed numbers' })
  return (number: string) => within(table).getByRole('row', { name: new RegExp(formatPhone(number).replace(/[()+]/g, '\\$&')) })
}

test('a number the account no longer lists reads "Removed from the account", in words, not "Up to date"', () => {
  const row = renderTable([
    { number: FINE, tid: 'A1', ...base },
    { number: GONE, tid: 'B1', ...base, removed: true },
  ])
  expect(row(FINE).textContent).toContain('Up to date')
  const state = within(row(GONE)).getAllByRole('cell')[0]!
  expect(state.textContent).toContain('Removed from the account')
  expect(state.textContent).toContain('What is indexed stays here until forgotten.')
  expect(state.textContent).not.toContain('Up to date')
})

test('a number the account lists under two tids is a finding naming the tid it is indexed under and the other', () => {
  const row = renderTable([
    { number: FINE, tid: 'A1', ...base, otherTids: [] },
    { number: TWICE, tid: 'PUHMGWS98301', ...base, otherTids: ['XTRA77'] },
  ])
  expect(row(FINE).textContent).not.toContain('Worth a look')
  expect(within(row(TWICE)).getAllByRole('cell')[0]!.textContent).toContain(
    'Worth a look: listed twice. Indexed under tid PUHMGWS98301; the account also lists it with tid XTRA77.',
  )
})

test('three tids: counted, and both others named', () => {
  const row = renderTable([{ number: TWICE, tid: 'T1', ...base, otherTids: ['T2', 'T3'] }])
  expect(row(TWICE).textContent).toContain(
    'Worth a look: listed 3 times. Indexed under tid T1; the account also lists it with tids T2 and T3.',
  )
})

test('a forgotten number says when, and that the index leaves it alone until someone syncs it', () => {
  const never = { state: 'never', indexed: 0, upstreamTotal: null, lastSyncedAt: null }
  const row = renderTable([
    { number: FINE, tid: 'A1', ...never, forgottenAt: null },
    { number: GONE, tid: 'B1', ...never, forgottenAt: '2026-11-29T04:55:00Z' },
  ])
  expect(within(row(FINE)).getAllByRole('cell')[0]!.textContent).toBe('Not indexed')
  const state = within(row(GONE)).getAllByRole('cell')[0]!.textContent
  expect(state).toMatch(/^Forgotten/)
  expect(state).toContain(`Its messages were forgotten ${formatDate(Date.parse('2026-11-29T04:55:00Z'), 'local')}.`)
  expect(state).toContain('The index leaves it alone until an admin presses Sync now or Index all numbers.')
  expect(within(row(GONE)).getByRole('button', { name: /^Sync now/ })).toBeTruthy()
})

test('a viewer is not offered Sync now on a number an admin forgot (the server refuses it), and is on the others', () => {
  const never = { state: 'never', indexed: 0, upstreamTotal: null, lastSyncedAt: null }
  const row = renderTable(
    [
      { number: FINE, tid: 'A1', ...never, forgottenAt: null },
      { number: GONE, tid: 'B1', ...never, forgottenAt: '2026-11-29T04:55:00Z' },
    ],
    false,
  )
  expect(within(row(FINE)).getByRole('button', { name: /^Sync now/ })).toBeTruthy()
  expect(within(row(GONE)).queryByRole('button', { name: /^Sync now/ })).toBeNull()
})

test('a number never read says "not indexed yet", not 0; one read and empty says 0', () => {
  const EMPTY = '14155550100'
  const row = renderTable([
    { number: FINE, tid: 'A1', state: 'queued', indexed: 0, upstreamTotal: null, lastSyncedAt: null },
    { number: EMPTY, tid: 'B1', ...base, indexed: 0, upstreamTotal: 0 },
  ])
  expect(within(row(FINE)).getAllByRole('cell')[1]!.textContent).toBe('not indexed yet')
  expect(within(row(EMPTY)).getAllByRole('cell')[1]!.textContent).toBe('0')
})

test('an account of 10,000 numbers draws its first rows, finds a number by its digits, and shows more on request', () => {
  const numbers = Array.from({ length: 10_000 }, (_, i) => ({ number: String(13_105_000_000 + i * 7), tid: `T${i}`, ...base }))
  renderTable(numbers)
  const table = screen.getByRole('table', { name: 'Indexed numbers' })
  // A header row and the first rows only: 10,000 rows with their buttons took seconds to draw.
  expect(within(table).getAllByRole('row')).toHaveLength(ROWS_STEP + 1)
  expect(screen.getByText(`Showing ${ROWS_STEP} of 10,000 numbers.`)).toBeTruthy()
  fireEvent.click(screen.getByRole('button', { name: `Show ${ROWS_STEP} more` }))
  expect(within(table).getAllByRole('row')).toHaveLength(2 * ROWS_STEP + 1)
  const wanted = numbers[9_876]!.number
  fireEvent.change(screen.getByRole('searchbox', { name: 'Find a number' }), { target: { value: wanted.slice(1) } })
  expect(
    within(table)
      .getAllByRole('row')
      .slice(1)
      .map((r) => r.querySelector('th')?.textContent),
  ).toEqual([formatPhone(wanted)])
  expect(screen.getByText(`Showing 1 of 1 number matching “${wanted.slice(1)}”.`)).toBeTruthy()
  expect(screen.queryByRole('button', { name: /^Show \d+ more$/ })).toBeNull()
})

test('a small account shows every number, with no find box and no count line', () => {
  renderTable([{ number: FINE, tid: 'A1', ...base }])
  expect(screen.queryByRole('searchbox', { name: 'Find a number' })).toBeNull()
  expect(screen.queryByText(/^Showing/)).toBeNull()
})
