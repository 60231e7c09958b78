// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createMemoryHistory, RouterProvider } from '@tanstack/react-router'
import { cleanup, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Role } from '../../contract/roles'
import { deskKeys, needsReplyCountQuery, needsReplyQuery, type NeedsReply } from '../api/desk'
import { indexKeys, indexSummaryQuery, parseStatus } from '../api/index-status'
import { viewsQuery } from '../api/views'
import { ME_KEY, type Me } from '../api/me'
import { createAppRouter } from './routes'

/**
 * What each role is offered, through the app's real route tree and shell: the role comes from
 * "who am I" in the query cache, filled as its answer would fill it (nothing is fetched).
 */

afterEach(cleanup)

const NUMBER = '15129474129'
const status = parseStatus({
  enabled: true,
  engine: 'pglite',
  numbers: [{ number: NUMBER, tid: 'TID1', state: 'idle', indexed: 10, upstreamTotal: 10 }],
  freshness: { numbersKnown: 1, numbersComplete: 1, syncing: [], incomplete: [], indexedUpTo: null },
})
const queue: NeedsReply = {
  at: '2026-11-24T12:00:00.000Z',
  thresholdMinutes: 15,
  total: 1,
  rows: [
    {
      number: NUMBER,
      party: '14695550104',
      since: '2026-11-21T12:00:00.000Z',
      waitedMs: 3_600_000,
      unanswered: 1,
      lastInbound: { ordinal: 7, date: '2026-11-21T12:00:00.000Z', body: 'Any news?' },
      handled: null,
      optedOut: false,
    },
  ],
}

async function openAs(role: Role, url: string) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false, enabled: false, staleTime: Infinity } } })
  qc.setQueryData<Me>(ME_KEY, { mode: 'password', user: { name: `${role}-user`, role } })
  qc.setQueryData(indexKeys.status(), status)
  qc.setQueryData(deskKeys.settings(), { thresholdMinutes: 15, updatedAt: null, updatedBy: null })
  qc.setQueryData(needsReplyQuery(NUMBER).queryKey, queue)
  // What the shell asks on every page (the header's indexing, the saved views), answered fresh.
  qc.setQueryData(indexSummaryQuery().queryKey, status)
  qc.setQueryData(viewsQuery().queryKey, [])
  qc.setQueryData(needsReplyCountQuery().queryKey, { at: queue.at, thresholdMinutes: 15, total: 1 })
  const router = createAppRouter({ history: createMemoryHistory({ initialEntries: [url] }) })
  await router.load()
  render(
    <QueryClientProvider client={qc}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  )
  return within(await screen.findByRole('navigation', { name: 'Main' }))
}

describe('what a role is offered', () => {
  it('an agent: Mark handled and the export on the desk, no Users or Access log, and no admin controls', async () => {
    const nav = await openAs('agent', `/desk/needs-reply?number=${NUMBER}&tz=utc`)
    expect(await screen.findByRole('button', { name: /^Mark handled: / })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeTruthy()
    expect(nav.queryByRole('link', { name: 'Users' })).toBeNull()
    expect(nav.queryByRole('link', { name: 'Access log' })).toBeNull()
    // The threshold is the team's setting, an admin's route: not offered to an agent.
    expect(screen.queryByRole('button', { name: 'Change threshold' })).toBeNull()
  })

  it('an admin: the same desk, and Users, the Access log and the threshold', async () => {
    const nav = await openAs('admin', `/desk/needs-reply?number=${NUMBER}&tz=utc`)
    expect(await screen.findByRole('button', { name: /^Mark handled: / })).toBeTruthy()
    expect(nav.getByRole('link', { name: 'Users' })).toBeTruthy()
    expect(nav.getByRole('link', { name: 'Access log' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Change threshold' })).toBeTruthy()
  })

  it.each([
    ['/admin/users', 'Users is for admins'],
    ['/admin/access-log', 'The access log is for admins'],
  ])('an agent who opens %s is told it is for admins, and as what they are signed in', async (url, heading) => {
    await openAs('agent', url)
    expect(await screen.findByRole('heading', { name: heading })).toBeTruthy()
    expect(screen.getByText(/You are signed in as an agent, so this page is not open to you/)).toBeTruthy()
  })
})
