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
