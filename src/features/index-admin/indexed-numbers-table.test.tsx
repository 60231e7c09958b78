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

const ignore = () => undefined

function renderTable(numbers: unknown[], isAdmin = true) {
  const status = parseStatus({ enabled: true, numbers })
  render(
    <IndexedNumbersTable
      numbers={status.numbers}
      matched={numbers.length}
      known={numbers.length}
      typed=""
      onTyped={ignore}
      onMore={ignore}
      isAdmin={isAdmin}
      actions={actions}
    />,
  )
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

test('an account of 10,000 numbers shows the page the server sent, how many match, a box that asks for digits, and more on request', () => {
  const page = Array.from({ length: ROWS_STEP }, (_, i) => ({ number: String(13_105_000_000 + i * 7), tid: `T${i}`, ...base }))
  const typedSeen: string[] = []
  let more = 0
  const draw = (typed: string, numbers: unknown[], matched: number, finding = false) => {
    cleanup()
    render(
      <IndexedNumbersTable
        numbers={parseStatus({ enabled: true, numbers }).numbers}
        matched={matched}
        known={10_000}
        typed={typed}
        finding={finding}
        onTyped={(t) => typedSeen.push(t)}
        onMore={() => (more += 1)}
        isAdmin
        actions={actions}
      />,
    )
  }
  draw('', page, 10_000)
  const table = screen.getByRole('table', { name: 'Indexed numbers' })
  expect(within(table).getAllByRole('row')).toHaveLength(ROWS_STEP + 1)
  // The count is the server's, not the length of the page.
  expect(screen.getByText(`Showing ${ROWS_STEP} of 10,000 numbers.`)).toBeTruthy()
  fireEvent.click(screen.getByRole('button', { name: `Show ${ROWS_STEP} more` }))
  expect(more).toBe(1)
  fireEvent.change(screen.getByRole('searchbox', { name: 'Find a number' }), { target: { value: '(310) 50' } })
  expect(typedSeen).toEqual(['(310) 50'])

  // While the server finds them, the last rows stay, and the line does not count them as matches.
  draw('(310) 50', page, 10_000, true)
  expect(within(screen.getByRole('table', { name: 'Indexed numbers' })).getAllByRole('row')).toHaveLength(ROWS_STEP + 1)
  expect(screen.getByRole('status').textContent).toBe('Finding the numbers that hold “31050”…')
  expect(screen.queryByRole('button', { name: /^Show \d+ more$/ })).toBeNull()

  // What the server found for the digits typed: the count line names the digits, and nothing more is offered.
  draw('(310) 50', [page[3]], 1)
  expect(
    within(screen.getByRole('table', { name: 'Indexed numbers' }))
      .getAllByRole('row')
      .slice(1)
      .map((r) => r.querySelector('th')?.textContent),
  ).toEqual([formatPhone(page[3]!.number)])
  expect(screen.getByText('Showing 1 of 1 number matching “31050”.')).toBeTruthy()
  expect(screen.queryByRole('button', { name: /^Show \d+ more$/ })).toBeNull()

  // Nothing matches: said in words, with no empty table.
  draw('999', [], 0)
  expect(screen.queryByRole('table', { name: 'Indexed numbers' })).toBeNull()
  expect(screen.getByRole('status').textContent).toBe('No number holds the digits “999”.')
  // Letters find nothing by digits: the box says what it wants.
  draw('abc', page, 10_000)
  expect(screen.getByRole('status').textContent).toBe('Type the digits of a number to find it.')
})

test('a small account shows every number, with no find box and no count line', () => {
  renderTable([{ number: FINE, tid: 'A1', ...base }])
  expect(screen.queryByRole('searchbox', { name: 'Find a number' })).toBeNull()
  expect(screen.queryByText(/^Showing/)).toBeNull()
})

test('a second tid that serves a history of its own is a line beside its number: the finding says where its messages are', () => {
  renderTable([
    { number: `${TWICE}~2`, tid: 'XTRA77', ...base, indexed: 700, upstreamTotal: 700, lineOf: TWICE },
    { number: FINE, tid: 'A1', ...base },
    { number: TWICE, tid: 'PUHMGWS98301', ...base, otherTids: ['XTRA77'], lineTids: ['XTRA77'] },
  ])
  // The line right after its number, whatever order the answer had.
  const table = screen.getByRole('table', { name: 'Indexed numbers' })
  const [own, line] = within(table).getAllByRole('row', { name: new RegExp(formatPhone(TWICE).replace(/[()+]/g, '\\$&')) })
  expect(within(own!).getAllByRole('cell')[0]!.textContent).toContain(
    'Worth a look: listed twice. Indexed under tid PUHMGWS98301; the account also lists it with tid XTRA77. That tid serves a history of its own, indexed beside it as line 2 (tid XTRA77): search and threads show those messages under that line.',
  )
  // The line's row names its number, written as people read it, and says what it holds.
  expect(line!.textContent).toContain(`${formatPhone(TWICE)} · line 2`)
  expect(within(line!).getAllByRole('cell')[0]!.textContent).toContain(
    `A second history of ${formatPhone(TWICE)}: the account lists that number under tid XTRA77 too, and that tid serves messages of its own. Forgetting ${formatPhone(TWICE)} forgets this line with it.`,
  )
})
