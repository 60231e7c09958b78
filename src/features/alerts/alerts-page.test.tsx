// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen, within } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, test } from 'vitest'
import { alertsQuery, type AlertsPageData } from '../../api/alerts'
import { ApiError } from '../../api/errors'
import { ME_KEY, type Me } from '../../api/me'
import type { Role } from '../../../contract/roles'
import { TestRouter } from '../../lib/test-router'
import { AlertsPage } from './alerts-page'

/**
 * The Alerts page's states, each from a query cache filled as its answers would fill it: the
 * page's own, and /api/auth/me's (who is signed in, as the layout reads it).
 */

afterEach(cleanup)

const NUMBER = '15129474129'

const page = (more: Partial<AlertsPageData> = {}): AlertsPageData => ({
  firing: [],
  history: [],
  rules: [],
  channels: [],
  silences: [],
  deliveries: [],
  emailReady: false,
  witness: { signing: true, lastDaily: null },
  ...more,
})

const firing = {
  id: '7',
  rule: 'customer-waiting',
  ruleTitle: 'Customer waiting',
  subject: NUMBER,
  number: NUMBER,
  state: 'firing' as const,
  title: 'Customer waiting',
  detail: '3 customers waiting longer than 120 min for a reply (longest 3 h 5 min).',
  count: 3,
  link: `/desk/needs-reply?number=${NUMBER}`,
  startedAt: '2026-06-01T09:00:00.000Z',
  updatedAt: '2026-06-01T09:00:00.000Z',
  resolvedAt: null,
  notifiedAt: '2026-06-01T09:00:00.000Z',
  ackedAt: null,
  ackedBy: null,
}

const channel = {
  id: 'env-webhook',
  kind: 'webhook' as const,
  name: 'Webhook (server configuration)',
  target: 'https://hooks.example.com/…',
  secret: 'set' as const,
  enabled: true,
  details: false,
  witness: false,
  quietStart: null,
  quietEnd: null,
  quietZone: 'UTC',
  source: 'env' as const,
}

const signedIn = (role: Role): Me => ({ mode: 'password', user: { name: 'sam', role } })

function renderWith(ui: ReactNode, seed: (qc: QueryClient) => void, role: Role = 'admin') {
  const qc = new QueryClient({
    defaultOptions: { queries: { retry: false, retryOnMount: false, staleTime: Infinity, refetchInterval: false } },
  })
  qc.setQueryData(ME_KEY, signedIn(role))
  seed(qc)
  return render(<QueryClientProvider client={qc}>{ui}</QueryClientProvider>, { wrapper: TestRouter })
}

describe('the Alerts page', () => {
  test('says nothing fires, and offers a viewer no change', () => {
    renderWith(<AlertsPage search={{ tab: 'now' }} />, (qc) => qc.setQueryData(alertsQuery().queryKey, page()), 'viewer')
    expect(screen.getByRole('tab', { name: 'Firing now (0)' }).getAttribute('aria-selected')).toBe('true')
    expect(screen.getByText('Nothing is firing')).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Check the rules now' })).toBeNull()
    expect(screen.getByText(/You are signed in as a viewer: an admin changes rules and channels\./)).toBeTruthy()
  })

  test('names the role of an agent, who changes no more than a viewer here', () => {
    renderWith(<AlertsPage search={{ tab: 'now' }} />, (qc) => qc.setQueryData(alertsQuery().queryKey, page()), 'agent')
    expect(screen.getByText(/You are signed in as an agent: an admin changes rules and channels\./)).toBeTruthy()
    expect(screen.queryByText(/signed in as a viewer/)).toBeNull()
    expect(screen.queryByRole('button', { name: 'Check the rules now' })).toBeNull()
  })

  test('tells an admin nothing about roles, and says nothing while who is signed in is not known', () => {
    renderWith(<AlertsPage search={{ tab: 'now' }} />, (qc) => qc.setQueryData(alertsQuery().queryKey, page()))
    expect(screen.getByRole('button', { name: 'Check the rules now' })).toBeTruthy()
    expect(screen.queryByText(/signed in as/)).toBeNull()
    cleanup()
    // /api/auth/me could not answer: the page neither guesses a role nor offers an admin's controls.
    renderWith(<AlertsPage search={{ tab: 'now' }} />, (qc) => {
      qc.setQueryData(alertsQuery().queryKey, page())
      qc.removeQueries({ queryKey: ME_KEY })
      qc.getQueryCache()
        .build(qc, { queryKey: [...ME_KEY] })
        .setState({
          status: 'error',
          error: new ApiError('unreachable', 'The Switchboard server could not be reached.', 0),
          fetchStatus: 'idle',
        })
    })
    expect(screen.queryByText(/signed in as/)).toBeNull()
    expect(screen.queryByRole('button', { name: 'Check the rules now' })).toBeNull()
  })

  test('lists a firing alert with a link to its rows, and an admin’s Acknowledge and Silence', () => {
    renderWith(<AlertsPage search={{ tab: 'now' }} />, (qc) => qc.setQueryData(alertsQuery().queryKey, page({ firing: [firing] })))
    const card = screen.getByRole('article', { name: `Customer waiting · ${NUMBER}` })
    expect(within(card).getByText('Firing')).toBeTruthy()
    expect(within(card).getByRole('link', { name: 'Show the rows behind Customer waiting' }).getAttribute('href')).toBe(
      `/desk/needs-reply?number=${NUMBER}`,
    )
    expect(within(card).getByRole('button', { name: `Acknowledge Customer waiting on ${NUMBER}` })).toBeTruthy()
    expect(within(card).getByRole('button', { name: `Silence Customer waiting on ${NUMBER}` })).toBeTruthy()
  })

  test('shows a channel set by the server’s configuration without its secret, and no remove', () => {
    renderWith(<AlertsPage search={{ tab: 'channels' }} />, (qc) => qc.setQueryData(alertsQuery().queryKey, page({ channels: [channel] })))
    const card = screen.getByRole('article', { name: channel.name })
    expect(within(card).getByText("the server's configuration")).toBeTruthy()
    expect(within(card).getByText('set (never shown again)')).toBeTruthy()
    expect(within(card).getByRole('button', { name: `Send a test to ${channel.name}` })).toBeTruthy()
    expect(within(card).queryByRole('button', { name: /^Remove/ })).toBeNull()
  })

  test('offers an admin the signed head now when a channel is a witness, and nobody else', () => {
    const witness = { ...channel, witness: true }
    const seed = (qc: QueryClient) => qc.setQueryData(alertsQuery().queryKey, page({ channels: [witness] }))
    renderWith(<AlertsPage search={{ tab: 'channels' }} />, seed)
    const section = screen.getByRole('region', { name: 'Witnesses of the access log' })
    expect(within(section).getByText(/Witnesses: Webhook \(server configuration\)\./)).toBeTruthy()
    expect(within(section).getByRole('button', { name: 'Send the signed head now' })).toHaveProperty('disabled', false)
    expect(within(screen.getByRole('article', { name: witness.name })).getByText(/\(ALERT_WITNESS\)/)).toBeTruthy()
    cleanup()
    renderWith(<AlertsPage search={{ tab: 'channels' }} />, seed, 'agent')
    expect(screen.getByRole('region', { name: 'Witnesses of the access log' })).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Send the signed head now' })).toBeNull()
  })

  test('says that nothing goes to witnesses without a signing key, and offers no send', () => {
    renderWith(<AlertsPage search={{ tab: 'channels' }} />, (qc) =>
      qc.setQueryData(
        alertsQuery().queryKey,
        page({ channels: [{ ...channel, witness: true }], witness: { signing: false, lastDaily: null } }),
      ),
    )
    const section = screen.getByRole('region', { name: 'Witnesses of the access log' })
    expect(section.textContent).toMatch(/no signing key \(LOG_SIGNING_KEY_FILE is not set\).*no daily notice goes to\s+witnesses/)
    expect(within(section).queryByRole('button', { name: 'Send the signed head now' })).toBeNull()
  })

  test('says what went wrong when the page cannot load, with a retry', () => {
    renderWith(<AlertsPage search={{ tab: 'now' }} />, (qc) => {
      const q = qc.getQueryCache().build(qc, { queryKey: [...alertsQuery().queryKey] })
      q.setState({
        status: 'error',
        error: new ApiError('unreachable', 'The Switchboard server could not be reached.', 0),
        fetchStatus: 'idle',
      })
    })
    expect(screen.getByRole('alert').textContent).toMatch(/while loading alerts/)
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy()
  })
})
