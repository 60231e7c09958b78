// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen, within } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, test } from 'vitest'
import { historyQuery, type Message } from '../../api/history'
import { ME_KEY } from '../../api/me'
import { indexKeys, parseStatus } from '../../api/index-status'
import { parseStatus as parseMessageStatus } from '../../lib/status'
import { formatPhone } from '../../lib/phone'
import { TestRouter } from '../../lib/test-router'
import { ConversationView } from './conversation-view'

/**
 * The Conversations tab, index on and off: the chosen party's customer page is one link away
 * (the party list is a listbox, whose options cannot hold links, so the link is in the pane).
 */

afterEach(cleanup)

const NUMBER = '15129474129'
const TID = 'TID1'
const ALICE = '15125550100'
const BOB = '15125550199'

function renderWith(ui: ReactNode, seed: (qc: QueryClient) => void) {
  const qc = new QueryClient({
    defaultOptions: { queries: { retry: false, retryOnMount: false, staleTime: Infinity, refetchInterval: false } },
  })
  seed(qc)
  return render(<QueryClientProvider client={qc}>{ui}</QueryClientProvider>, { wrapper: TestRouter })
}

const customerLink = (party: string) => screen.getByRole('link', { name: `Everything about ${formatPhone(party)}, across every number` })

const props = { number: NUMBER, tid: TID, page: 1, size: 50, more: 0, onMore: () => undefined, onParty: () => undefined }

describe('the Conversations tab links the chosen party to their customer page', () => {
  test('index on: the whole thread with the chosen party names their customer page', () => {
    const status = parseStatus({
      enabled: true,
      numbers: [{ number: NUMBER, tid: TID, state: 'idle', indexed: 3, upstreamTotal: 3 }],
      freshness: {},
    })
    const freshness = status.freshness
    renderWith(<ConversationView {...props} total={3} party={BOB} indexAvailable facts={status.numbers[0]} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status)
      qc.setQueryData(indexKeys.parties(NUMBER), {
        number: NUMBER,
        parties: [
          { party: ALICE, count: 2, lastDate: null },
          { party: BOB, count: 1, lastDate: null },
        ],
        freshness,
      })
      qc.setQueryData(indexKeys.thread(NUMBER, BOB), {
        pages: [{ number: NUMBER, party: BOB, total: 0, firstDate: null, lastDate: null, rows: [], nextCursor: null, freshness }],
        pageParams: [undefined],
      })
    })
    expect(screen.getAllByRole('option')).toHaveLength(2)
    const pane = screen.getByRole('region', { name: `Conversation with ${formatPhone(BOB)}` })
    const link = within(pane).getByRole('link', { name: `Everything about ${formatPhone(BOB)}, across every number` })
    expect(link.getAttribute('href')).toBe(`/desk/customer?party=${BOB}`)
    // Nothing interactive inside the listbox's options.
    for (const option of screen.getAllByRole('option')) expect(within(option).queryByRole('link')).toBeNull()
  })

  test('index off: the loaded records grouped by party (with or without the leading 1, one party), the chosen one linked to their customer page', () => {
    const message = (position: number, phone: string): Message => ({
      key: String(position),
      position,
      systemId: null,
      messageId: null,
      date: null,
      dateMs: null,
      tid: TID,
      phone,
      direction: 'inbound',
      body: 'hi',
      mms: false,
      mediaUrl: null,
      status: parseMessageStatus(null),
    })
    renderWith(<ConversationView {...props} total={3} party={null} indexAvailable={false} facts={undefined} />, (qc) => {
      qc.setQueryData(historyQuery(NUMBER, TID, 1, 3).queryKey, {
        number: NUMBER,
        tid: TID,
        optin: null,
        total: 3,
        requested: 3,
        createdDate: null,
        mostRecentId: null,
        mostRecentDate: null,
        start: 1,
        end: 3,
        // Alice's number written once without its leading 1, as the field notes allow: still Alice.
        messages: [message(1, ALICE), message(2, ALICE.slice(1)), message(3, BOB)],
      })
    })
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([
      expect.stringContaining(formatPhone(ALICE)),
      expect.stringContaining(formatPhone(BOB)),
    ])
    // No party in the URL: the busiest is chosen, and its customer page is offered.
    expect(screen.getByRole('option', { selected: true }).textContent).toContain(formatPhone(ALICE))
    expect(customerLink(ALICE).getAttribute('href')).toBe(`/desk/customer?party=${ALICE}`)
  })

  test('a party with no digits (unknown) gets no customer link', () => {
    const status = parseStatus({ enabled: true, numbers: [{ number: NUMBER, tid: TID, state: 'idle', indexed: 1, upstreamTotal: 1 }] })
    renderWith(<ConversationView {...props} total={1} party="" indexAvailable facts={status.numbers[0]} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status)
      qc.setQueryData(indexKeys.parties(NUMBER), {
        number: NUMBER,
        parties: [{ party: '', count: 1, lastDate: null }],
        freshness: status.freshness,
      })
      qc.setQueryData(indexKeys.thread(NUMBER, ''), {
        pages: [
          { number: NUMBER, party: '', total: 0, firstDate: null, lastDate: null, rows: [], nextCursor: null, freshness: status.freshness },
        ],
        pageParams: [undefined],
      })
    })
    expect(screen.getByRole('option', { name: /Unknown party/ })).toBeTruthy()
    expect(screen.queryByRole('link', { name: /Everything about/ })).toBeNull()
  })
})

describe('a number an admin forgot', () => {
  const forgotten = () =>
    parseStatus({
      enabled: true,
      numbers: [{ number: NUMBER, tid: TID, state: 'never', indexed: 0, upstreamTotal: null, forgottenAt: '2026-11-29T04:55:00Z' }],
      freshness: {},
    })
  for (const [role, offered] of [
    ['admin', true],
    ['viewer', false],
  ] as const)
    test(`${role}: ${offered ? 'is offered' : 'is not offered'} to index it again (only an admin may)`, () => {
      const status = forgotten()
      renderWith(<ConversationView {...props} total={3} party={null} indexAvailable facts={status.numbers[0]} />, (qc) => {
        qc.setQueryData(indexKeys.status(), status)
        qc.setQueryData(ME_KEY, { mode: 'password', user: { name: 'pat', role } })
        qc.setQueryData(indexKeys.parties(NUMBER), { number: NUMBER, parties: [], freshness: status.freshness })
      })
      expect(screen.getByText(/It is left alone until an admin indexes it again\./)).toBeTruthy()
      expect(screen.queryAllByRole('button', { name: 'Index this number again' })).toHaveLength(offered ? 1 : 0)
    })
})
