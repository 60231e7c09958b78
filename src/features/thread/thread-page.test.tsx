// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen, within } from '@testing-library/react'
import { afterEach, expect, test } from 'vitest'
import { indexKeys, parseStatus } from '../../api/index-status'
import { formatPhone } from '../../lib/phone'
import { TestRouter } from '../../lib/test-router'
import { ThreadPage } from './thread-page'

afterEach(cleanup)

const NUMBER = '15129474129'
const PARTIES = ['15125550100', '15125550199']

test("the thread page's party list offers each party's customer page beside the link to their thread", () => {
  const status = parseStatus({ enabled: true, numbers: [{ number: NUMBER, tid: 'TID1', state: 'idle', indexed: 3, upstreamTotal: 3 }] })
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity, refetchInterval: false } } })
  qc.setQueryData(indexKeys.status(), status)
  qc.setQueryData(indexKeys.parties(NUMBER), {
    number: NUMBER,
    parties: PARTIES.map((party) => ({ party, count: 1, lastDate: null })),
    freshness: status.freshness,
  })
  render(
    <QueryClientProvider client={qc}>
      <ThreadPage number={NUMBER} search={{ tid: 'TID1', party: '', tz: 'utc', at: null, date: '' }} />
    </QueryClientProvider>,
    { wrapper: TestRouter },
  )
  const list = screen.getByRole('navigation', { name: /^Parties/ })
  const items = within(list).getAllByRole('listitem')
  expect(items).toHaveLength(2)
  items.forEach((item, i) => {
    const party = PARTIES[i]!
    const [thread, customer] = within(item).getAllByRole('link')
    // Two links side by side, neither inside the other.
    expect(thread!.contains(customer!)).toBe(false)
    expect(thread!.getAttribute('href')).toContain(`party=${party}`)
    expect(customer!.getAttribute('href')).toBe(`/desk/customer?party=${party}`)
    expect(customer!.getAttribute('aria-label')).toBe(`Customer ${formatPhone(party)}: everything across every number`)
  })
})

test('a thread offers its whole export, through the tray, over this number and this party', async () => {
  const { getJobs } = await import('../../api/export-store')
  const status = parseStatus({ enabled: true, numbers: [{ number: NUMBER, tid: 'TID1', state: 'idle', indexed: 3, upstreamTotal: 3 }] })
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity, refetchInterval: false } } })
  qc.setQueryData(indexKeys.status(), status)
  render(
    <QueryClientProvider client={qc}>
      <ThreadPage number={NUMBER} search={{ tid: 'TID1', party: PARTIES[0]!, tz: 'utc', at: null, date: '' }} />
    </QueryClientProvider>,
    { wrapper: TestRouter },
  )
  const before = getJobs().length
  screen.getByRole('button', { name: 'Export the whole thread as CSV' }).click()
  const job = getJobs()[before]
  expect(job?.label).toBe(`Thread of ${formatPhone(NUMBER)} with ${formatPhone(PARTIES[0])}`)
  expect(job?.fileName).toMatch(/^switchboard-search-15129474129-with-15125550100\.csv$/)
})
