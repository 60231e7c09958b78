// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen, within } from '@testing-library/react'
import { afterEach, expect, test } from 'vitest'
import { accessLogQuery, accessLogVerifyQuery, type AccessLogEntry } from '../../api/access'
import { formatPhone } from '../../lib/phone'
import { TestRouter } from '../../lib/test-router'
import { AccessLogPage } from './access-log-page'

afterEach(cleanup)

const PARTY = '15125550100'

const entry = (id: string, party: string | null): AccessLogEntry => ({
  id,
  at: '2026-11-24T12:00:00.000Z',
  actor: 'ada',
  via: 'session',
  address: '127.0.0.1',
  action: 'thread.view',
  number: '15129474129',
  party,
  details: {},
})

test("the access log's party column keeps the recorded party and links it to the customer page", () => {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } })
  qc.setQueryData(accessLogQuery({}).queryKey, {
    pages: [{ entries: [entry('2', PARTY), entry('1', null)], nextCursor: null }],
    pageParams: [null],
  })
  qc.setQueryData(accessLogVerifyQuery().queryKey, { intact: true, first: '1', last: '2', checked: 2, problem: null, message: 'Intact' })
  render(
    <QueryClientProvider client={qc}>
      <AccessLogPage search={{ user: '', number: '', party: '', action: '', from: '', to: '' }} />
    </QueryClientProvider>,
    { wrapper: TestRouter },
  )
  const [, withParty, without] = within(screen.getByRole('table')).getAllByRole('row')
  const partyCell = (row: HTMLElement) => within(row).getAllByRole('cell')[6]!
  expect(partyCell(withParty!).textContent).toBe(PARTY)
  const link = within(partyCell(withParty!)).getByRole('link', { name: `Customer ${formatPhone(PARTY)}: everything across every number` })
  expect(link.getAttribute('href')).toBe(`/desk/customer?party=${PARTY}`)
  // An entry without a party has nothing to link.
  expect(within(partyCell(without!)).queryByRole('link')).toBeNull()
})

test('a read that showed many customers names the first three and opens the whole list, wrapped, not one line of thousands of pixels', () => {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } })
  const parties = Array.from({ length: 120 }, (_, i) => String(16_462_689_032 + i * 7))
  qc.setQueryData(accessLogQuery({}).queryKey, {
    pages: [
      {
        entries: [
          {
            ...entry('3', parties.join(',')),
            action: 'search.view',
            number: '15129474129,18323232323',
            details: { q: 'store', rows: 200, parties, filters: { dir: 'inbound', numbers: ['15129474129', '18323232323'] } },
          },
        ],
        nextCursor: null,
      },
    ],
    pageParams: [null],
  })
  qc.setQueryData(accessLogVerifyQuery().queryKey, { intact: true, first: '3', last: '3', checked: 1, problem: null, message: 'Intact' })
  render(
    <QueryClientProvider client={qc}>
      <AccessLogPage search={{ user: '', number: '', party: '', action: '', from: '', to: '' }} />
    </QueryClientProvider>,
    { wrapper: TestRouter },
  )
  const [, row] = within(screen.getByRole('table')).getAllByRole('row')
  const cells = within(row!).getAllByRole('cell')
  // Two numbers: both named, spaced.
  expect(cells[5]!.textContent).toBe('15129474129, 18323232323')
  const summary = cells[6]!.querySelector('summary')!
  expect(summary.textContent).toBe(`120 customers: ${parties.slice(0, 3).join(', ')}…`)
  // Every one recorded is there, separated so the line can wrap; no single customer's link for a list.
  expect(cells[6]!.querySelector('details p')!.textContent).toBe(parties.join(', '))
  // Paper cannot open the disclosure: a print-only copy holds the whole list.
  expect(cells[6]!.querySelector('p.print\\:block')!.textContent).toBe(`120 customers: ${parties.join(', ')}`)
  expect(within(cells[6]!).queryByRole('link')).toBeNull()
  // Details leave out the list the Party column holds, and space what they keep so it wraps.
  expect(cells[7]!.textContent).toBe('q: store; rows: 200; filters: {dir: "inbound", numbers: ["15129474129", "18323232323"]}')
})

test('a count of numbers stays in Details, since no column can show it; a list beside a number stays too', () => {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } })
  qc.setQueryData(accessLogQuery({}).queryKey, {
    pages: [
      {
        entries: [
          { ...entry('5', null), action: 'index.sync', number: null, details: { all: true, numbers: 60 } },
          { ...entry('4', PARTY), action: 'customer.view', number: null, details: { party: PARTY, numbers: 2 } },
        ],
        nextCursor: null,
      },
    ],
    pageParams: [null],
  })
  qc.setQueryData(accessLogVerifyQuery().queryKey, { intact: true, first: '4', last: '5', checked: 2, problem: null, message: 'Intact' })
  render(
    <QueryClientProvider client={qc}>
      <AccessLogPage search={{ user: '', number: '', party: '', action: '', from: '', to: '' }} />
    </QueryClientProvider>,
    { wrapper: TestRouter },
  )
  const [, sync, customer] = within(screen.getByRole('table')).getAllByRole('row')
  expect(within(sync!).getAllByRole('cell')[7]!.textContent).toBe('all: true; numbers: 60')
  expect(within(customer!).getAllByRole('cell')[7]!.textContent).toBe('numbers: 2')
})
