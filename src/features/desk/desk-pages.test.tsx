// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, test } from 'vitest'
import {
  deskKeys,
  DESK_MAX_ROWS,
  needsReplyExport,
  needsReplyQuery,
  optOutsExport,
  optOutsQuery,
  segmentsQuery,
  sentAfterExport,
  sentAfterQuery,
  type NeedsReply,
} from '../../api/desk'
import { apiUrl } from '../../api/client'
import { ApiError } from '../../api/errors'
import { TestRouter } from '../../lib/test-router'
import { formatPhone } from '../../lib/phone'
import { indexKeys, parseStatus } from '../../api/index-status'
import { numbersQuery } from '../../api/numbers'
import { CustomerPage } from './customer-page'
import { NeedsReplyPage } from './needs-reply-page'
import { OptOutsPage } from './opt-outs-page'
import { SegmentsPage } from './segments-page'

/**
 * The desk pages' states, each from a query cache filled the way its answer would fill it (no
 * request is made: every seeded answer is fresh). What the page says must follow from the state.
 */

afterEach(cleanup)

const NUMBER = '15129474129'

function client(seed: (qc: QueryClient) => void) {
  // An error seeded into the cache stays the page's state: nothing is retried on mount.
  const qc = new QueryClient({
    defaultOptions: { queries: { retry: false, retryOnMount: false, staleTime: Infinity, refetchInterval: false } },
  })
  seed(qc)
  return qc
}

function renderWith(ui: ReactNode, seed: (qc: QueryClient) => void) {
  return render(<QueryClientProvider client={client(seed)}>{ui}</QueryClientProvider>, { wrapper: TestRouter })
}

const status = (indexed: number, state = 'idle', enabled = true) =>
  parseStatus({
    enabled,
    engine: 'pglite',
    numbers: [{ number: NUMBER, tid: 'TID1', state, indexed, upstreamTotal: indexed }],
    freshness: { numbersKnown: 1, numbersComplete: 1, syncing: [], incomplete: [], indexedUpTo: null },
  })

const listed = (number: string, tid: string) => ({ number, tid, type: 'local', country: 'US', webhook: null, dlr: null })

const settings = { thresholdMinutes: 15, updatedAt: null, updatedBy: null }

function seedError(qc: QueryClient, key: readonly unknown[], error: ApiError) {
  qc.getQueryCache().build(qc, { queryKey: key }).setState({ status: 'error', error, fetchStatus: 'idle', errorUpdatedAt: Date.now() })
}

/** The page's one status line with words in it (the number picker's live region is empty until someone types). */
function pageStatus(): HTMLElement {
  const said = screen.getAllByRole('status').filter((el) => el.textContent)
  expect(said).toHaveLength(1)
  return said[0]!
}

const queue = (rows: NeedsReply['rows']): NeedsReply => ({ at: '2026-11-24T12:00:00.000Z', thresholdMinutes: 15, total: rows.length, rows })
const search = { number: '', tz: 'utc' as const }

describe('Needs reply', () => {
  test('nothing indexed: says so, and offers "Index all numbers" to an admin only', () => {
    renderWith(<NeedsReplyPage search={search} admin />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(0, 'never'))
      qc.setQueryData(deskKeys.settings(), settings)
    })
    expect(screen.getByText('Nothing is indexed yet')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Index all numbers' })).toBeTruthy()
    cleanup()
    renderWith(<NeedsReplyPage search={search} admin={false} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(0, 'never'))
      qc.setQueryData(deskKeys.settings(), settings)
    })
    expect(screen.queryByRole('button', { name: 'Index all numbers' })).toBeNull()
    expect(screen.getByText('An admin can index the numbers on the Index page.')).toBeTruthy()
  })

  test('indexing under way: no offer, a line saying the page fills in', () => {
    renderWith(<NeedsReplyPage search={search} admin />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(0, 'syncing'))
      qc.setQueryData(deskKeys.settings(), settings)
    })
    expect(screen.getByText('Indexing has started: no messages are indexed yet')).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Index all numbers' })).toBeNull()
  })

  test('a number still indexing: the page says its waits come when it finishes, and asks again once it has', async () => {
    // Queries off, so the invalidation is seen without the refetch it would start (no server here).
    const qc = new QueryClient({ defaultOptions: { queries: { enabled: false, retry: false, staleTime: Infinity } } })
    qc.setQueryData(indexKeys.status(), status(10, 'syncing'))
    qc.setQueryData(deskKeys.settings(), settings)
    qc.setQueryData(needsReplyQuery(null).queryKey, queue([]))
    render(
      <QueryClientProvider client={qc}>
        <NeedsReplyPage search={search} admin={false} />
      </QueryClientProvider>,
      { wrapper: TestRouter },
    )
    const note = screen.getByText(/is under way/)
    expect(note.textContent).toBe(
      'Indexing (512) 947-4129 is under way: its threads are brought up to date when it finishes, and this page updates then.',
    )
    expect(qc.getQueryState(needsReplyQuery(null).queryKey)?.isInvalidated).toBe(false)
    act(() => {
      qc.setQueryData(indexKeys.status(), status(12, 'idle'))
    })
    await waitFor(() => {
      expect(screen.queryByText(/is under way/)).toBeNull()
    })
    expect(qc.getQueryState(needsReplyQuery(null).queryKey)?.isInvalidated).toBe(true)
  })

  test('the index off: its words, not an empty queue', () => {
    renderWith(<NeedsReplyPage search={search} admin />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10, 'idle', false))
      qc.setQueryData(deskKeys.settings(), settings)
    })
    // A notice of how the server is set up, not an error "while loading" the queue, and no word of a threshold.
    expect(pageStatus().textContent).toBe(
      'The message index is off on this serverThis page is built from the index. Whoever runs this Switchboard can turn it on (INDEX=on, the default).',
    )
    expect(screen.queryByRole('alert')).toBeNull()
    expect(screen.queryByText('Nobody is waiting for a reply')).toBeNull()
  })

  test('an empty queue names the threshold it was judged by', () => {
    renderWith(<NeedsReplyPage search={search} admin={false} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(deskKeys.settings(), settings)
      qc.setQueryData(needsReplyQuery(null).queryKey, queue([]))
    })
    expect(screen.getByText('Nobody is waiting for a reply')).toBeTruthy()
    expect(screen.getByText(/waited less than 15 minutes/)).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Change threshold' })).toBeNull()
  })

  test('rows: a semantic table, customer links, the text as text, the wait in words, one Mark handled per row', () => {
    renderWith(<NeedsReplyPage search={{ number: NUMBER, tz: 'utc' }} admin />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(deskKeys.settings(), settings)
      qc.setQueryData(
        needsReplyQuery(NUMBER).queryKey,
        queue([
          {
            number: NUMBER,
            party: '14695550104',
            since: '2026-11-21T12:00:00.000Z',
            waitedMs: 3 * 86_400_000 + 2 * 3_600_000,
            unanswered: 2,
            lastInbound: { ordinal: 7, date: '2026-11-21T12:00:00.000Z', body: '<b>Any news</b> on my repair?' },
            handled: null,
            optedOut: true,
          },
          {
            number: NUMBER,
            party: '16465550102',
            since: '2026-11-24T11:40:00.000Z',
            waitedMs: 20 * 60_000,
            unanswered: 1,
            lastInbound: { ordinal: 9, date: '2026-11-24T11:40:00.000Z', body: null },
            handled: { at: '2026-11-20T10:00:00.000Z', by: 'alice' },
            optedOut: false,
          },
        ]),
      )
    })
    const table = screen.getByRole('table', { name: /Customers waiting for a reply/ })
    const heads = within(table).getAllByRole('columnheader')
    expect(heads.every((h) => h.getAttribute('scope') === 'col')).toBe(true)
    expect(pageStatus().textContent).toMatch(/^2 customers are waiting on \(512\) 947-4129/)
    // Untrusted text stays text.
    expect(within(table).getByText('<b>Any news</b> on my repair?')).toBeTruthy()
    expect(table.querySelector('b')).toBeNull()
    expect(within(table).getByText('3 days 2 h')).toBeTruthy()
    expect(within(table).getByText('2 messages unanswered')).toBeTruthy()
    expect(within(table).getByText('(no text)')).toBeTruthy()
    expect(within(table).getByText(/handled earlier by alice/)).toBeTruthy()
    // Asked, then opted out: the row says not to text them; the other row does not.
    expect(within(table).getAllByText('Opted out: do not text')).toHaveLength(1)
    expect(within(table).getAllByRole('row')[1]!.textContent).toMatch(/Opted out: do not text.*They opted out: answer by phone or email/)
    expect(within(table).getAllByRole('button', { name: /^Mark handled: / })).toHaveLength(2)
    const customer = within(table).getByRole('link', { name: /^Customer \(469\) 555-0104/ })
    expect(customer.getAttribute('href')).toBe('/desk/customer?party=14695550104')
    expect(
      within(table)
        .getAllByRole('link', { name: /^Open the thread with / })[0]!
        .getAttribute('href'),
    ).toBe(`/numbers/${NUMBER}/thread?tid=TID1&party=14695550104&at=7&tz=utc`)
    // The export goes to the tray (api/export-jobs.ts), which adds its job id to this request.
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeTruthy()
    // With the page's zone, so the file has the dates as the page shows them too.
    const q = needsReplyExport(NUMBER, 'utc')
    expect(apiUrl(q.path, q.params)).toBe(`/api/desk/needs-reply/export?number=${NUMBER}&tz=UTC`)
  })

  test('a failed load: the kind in words, Retry only where it can help', () => {
    renderWith(<NeedsReplyPage search={search} admin />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(deskKeys.settings(), settings)
      seedError(qc, needsReplyQuery(null).queryKey, new ApiError('server_error', 'boom', 500))
    })
    const alert = screen.getByRole('alert')
    expect(alert.textContent).toContain('The Switchboard server hit an error while loading the needs-reply queue')
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeTruthy()
    cleanup()
    renderWith(<NeedsReplyPage search={search} admin />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(deskKeys.settings(), settings)
      seedError(qc, needsReplyQuery(null).queryKey, new ApiError('forbidden', 'no', 403))
    })
    expect(screen.getByRole('alert').textContent).toContain('Your role does not allow this')
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull()
  })

  test('an admin changes the threshold; a bad value is refused naming the field, before any request', () => {
    renderWith(<NeedsReplyPage search={search} admin />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(deskKeys.settings(), settings)
      qc.setQueryData(needsReplyQuery(null).queryKey, queue([]))
    })
    fireEvent.click(screen.getByRole('button', { name: 'Change threshold' }))
    const box = screen.getByRole('textbox', { name: 'Threshold (minutes)' })
    fireEvent.change(box, { target: { value: '1.5' } })
    fireEvent.click(screen.getByRole('button', { name: 'Save threshold' }))
    expect(screen.getByRole('alert').textContent).toMatch(/^Threshold \(minutes\) must be a whole number/)
    expect(box.getAttribute('aria-invalid')).toBe('true')
  })
})

describe('Opt-outs', () => {
  test('the evidence beside each opt-out, failed sends marked, and the not-legal-advice line', () => {
    const s = { number: NUMBER, state: 'all' as const, party: '', tz: 'utc' as const }
    renderWith(<OptOutsPage search={s} admin={false} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(optOutsQuery(NUMBER, 'all').queryKey, {
        optedOut: 1,
        optedBackIn: 0,
        sentAfter: 2,
        total: 1,
        rows: [
          {
            number: NUMBER,
            party: '17025550105',
            optedOut: true,
            since: '2026-11-15T12:00:00.000Z',
            history: [{ state: 'opted-out', ordinal: 3, date: '2026-11-15T12:00:00.000Z' }],
            sentAfter: 2,
          },
        ],
      })
      qc.setQueryData(sentAfterQuery(NUMBER, null).queryKey, {
        total: 2,
        rows: [1, 2].map((i) => ({
          number: NUMBER,
          party: '17025550105',
          message: {
            ordinal: 10 + i,
            date: '2026-11-17T12:00:00.000Z',
            body: `=HYPERLINK("x") promo ${i}`,
            status: '400',
            failed: i === 2,
          },
          optOut: { ordinal: 3, date: '2026-11-15T12:00:00.000Z', body: 'STOP' },
          afterMs: 2 * 86_400_000,
        })),
      })
    })
    expect(screen.getByText('Not legal advice.')).toBeTruthy()
    // The history in words, as the server states it ('opted-out'; the page once showed it raw).
    const ledgerTable = screen.getByRole('table', { name: /^Opt-out state per number and customer/ })
    expect(within(ledgerTable).getByText(/^Opted out, /)).toBeTruthy()
    const evidence = screen.getByRole('table', { name: /Messages sent after opt-out/ })
    expect(within(evidence).getAllByRole('row')).toHaveLength(3)
    expect(within(evidence).getAllByText('refused by the carrier')).toHaveLength(1)
    expect(within(evidence).getByText('=HYPERLINK("x") promo 1')).toBeTruthy()
    expect(screen.getByText('1 still opted out, 0 opted back in on (512) 947-4129.')).toBeTruthy()
    const ledger = screen.getByRole('table', { name: /Opt-out state per number and customer/ })
    expect(within(ledger).getByRole('button', { name: /2 messages sent to \(702\) 555-0105 after opting out/ })).toBeTruthy()
    // Both exports come whole from the server, with the page's filters.
    expect(screen.getByRole('button', { name: 'Export CSV: every send after opt-out' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Export CSV: the opt-out ledger' })).toBeTruthy()
    const sent = sentAfterExport(NUMBER, null, 'utc')
    const ledger2 = optOutsExport(NUMBER, 'all', 'utc')
    expect([apiUrl(sent.path, sent.params), apiUrl(ledger2.path, ledger2.params)]).toEqual([
      `/api/desk/sent-after-opt-out/export?number=${NUMBER}&tz=UTC`,
      `/api/desk/opt-outs/export?number=${NUMBER}&tz=UTC`,
    ])
    expect(screen.queryByText(/are counted but not below/)).toBeNull()
  })

  test('more sends than the page shows: every send counted, and the export said to hold them all', () => {
    const s = { number: NUMBER, state: 'all' as const, party: '', tz: 'utc' as const }
    renderWith(<OptOutsPage search={s} admin={false} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(optOutsQuery(NUMBER, 'all').queryKey, { optedOut: 1, optedBackIn: 0, sentAfter: 12_344, total: 0, rows: [] })
      qc.setQueryData(sentAfterQuery(NUMBER, null).queryKey, {
        total: 12_344,
        rows: [
          {
            number: NUMBER,
            party: '17025550105',
            message: { ordinal: 12_346, date: '2026-11-17T12:00:00.000Z', body: 'promo', status: '200', failed: false },
            optOut: { ordinal: 1, date: '2026-11-15T12:00:00.000Z', body: 'STOP' },
            afterMs: 2 * 86_400_000,
          },
        ],
      })
    })
    expect(screen.getByText('12,344 messages sent after opt-out')).toBeTruthy()
    // A number is chosen: no advice to choose one. The export holds every send.
    expect(screen.getByText('The 1 newest of the 12,344 sends are shown. The export holds all 12,344.')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Export CSV: every send after opt-out' })).toBeTruthy()
  })

  test('nobody opted out: said plainly, with no evidence table', () => {
    const s = { number: '', state: 'all' as const, party: '', tz: 'local' as const }
    renderWith(<OptOutsPage search={s} admin={false} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(optOutsQuery(null, 'all').queryKey, { optedOut: 0, optedBackIn: 0, sentAfter: 0, total: 0, rows: [] })
      qc.setQueryData(sentAfterQuery(null, null).queryKey, { total: 0, rows: [] })
    })
    expect(screen.getByText('Nobody has opted out')).toBeTruthy()
    expect(screen.getByText('Nothing was sent after an opt-out')).toBeTruthy()
    expect(screen.queryByRole('table')).toBeNull()
  })
})

describe('Encoding and segments', () => {
  test('a number the account does not list: said so, no report', () => {
    const s = { number: '12125550000', from: '', to: '', tz: 'utc' as const }
    renderWith(<SegmentsPage search={s} admin={false} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(numbersQuery('all').queryKey, [listed(NUMBER, 'TID1'), listed('13105550101', 'TID2')])
    })
    expect(screen.getByText('(212) 555-0000 is not a number of this account')).toBeTruthy()
    expect(screen.queryByRole('table')).toBeNull()
    // The picker shows the number the page is about, and why it is not offered.
    const picker = screen.getByRole<HTMLInputElement>('combobox', { name: 'Number' })
    expect(picker.value).toBe('(212) 555-0000')
    expect(picker.getAttribute('aria-describedby')).toBeTruthy()
    expect(document.getElementById(picker.getAttribute('aria-describedby')!)?.textContent).toBe('Not in this account')
  })

  test('a number the account lists but the index has not got to: "not indexed yet", with "Index this number" for an admin', () => {
    const s = { number: '13105550101', from: '', to: '', tz: 'utc' as const }
    renderWith(<SegmentsPage search={s} admin />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(numbersQuery('all').queryKey, [listed(NUMBER, 'TID1'), listed('13105550101', 'TID2')])
    })
    expect(screen.getByText('(310) 555-0101 is not indexed yet')).toBeTruthy()
    expect(screen.queryByText(/not a number of this account/)).toBeNull()
    expect(screen.getByRole('button', { name: 'Index this number' })).toBeTruthy()
    expect(screen.queryByRole('table')).toBeNull()
    const picker = screen.getByRole<HTMLInputElement>('combobox', { name: 'Number' })
    expect(picker.value).toBe('(310) 555-0101')
    expect(document.getElementById(picker.getAttribute('aria-describedby')!)?.textContent).toBe('Not indexed yet')
  })

  test('a number whose indexing stopped on an error says so in the sync\'s words, with Try again for an admin, not "not indexed yet"', () => {
    const s = { number: '13105550101', from: '', to: '', tz: 'utc' as const }
    const stopped = parseStatus({
      enabled: true,
      engine: 'pglite',
      numbers: [
        { number: NUMBER, tid: 'TID1', state: 'idle', indexed: 10, upstreamTotal: 10 },
        {
          number: '13105550101',
          tid: 'TID2',
          state: 'error',
          indexed: 0,
          upstreamTotal: null,
          error: 'Stopped after 6 attempts: malformed JSON',
        },
      ],
      freshness: { numbersKnown: 2, numbersComplete: 1, syncing: [], incomplete: ['13105550101'], indexedUpTo: null },
    })
    renderWith(<SegmentsPage search={s} admin />, (qc) => {
      qc.setQueryData(indexKeys.status(), stopped)
      qc.setQueryData(numbersQuery('all').queryKey, [listed(NUMBER, 'TID1'), listed('13105550101', 'TID2')])
    })
    expect(screen.getByText('Indexing (310) 555-0101 stopped')).toBeTruthy()
    expect(screen.getByText(/Stopped after 6 attempts: malformed JSON/)).toBeTruthy()
    expect(screen.queryByText(/not indexed yet/)).toBeNull()
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy()
    // The number is offered (the index knows it): the picker adds no note, and none says "not indexed yet".
    expect(screen.getByRole<HTMLInputElement>('combobox', { name: 'Number' }).value).toBe('(310) 555-0101')
    expect(screen.getByRole('combobox', { name: 'Number' }).getAttribute('aria-describedby')).toBeNull()
  })

  test('the picker says nothing of a link\'s number until the index has answered (it read "not indexed yet" meanwhile)', () => {
    const s = { number: '13105550101', from: '', to: '', tz: 'utc' as const }
    renderWith(<SegmentsPage search={s} admin />, (qc) => {
      qc.setQueryData(numbersQuery('all').queryKey, [listed(NUMBER, 'TID1'), listed('13105550101', 'TID2')])
    })
    const picker = screen.getByRole<HTMLInputElement>('combobox', { name: 'Number' })
    expect(picker.value).toBe('(310) 555-0101')
    expect(picker.getAttribute('aria-describedby')).toBeNull()
  })

  test('counts every character that forced UCS-2, not only the 20 the server lists', () => {
    const s = { number: NUMBER, from: '', to: '', tz: 'utc' as const }
    const listed = Array.from({ length: 20 }, (_, i) => ({ char: String.fromCodePoint(0x4e00 + i), messages: 3, extraSegments: 20 - i }))
    renderWith(<SegmentsPage search={s} admin={false} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(segmentsQuery(NUMBER, '', '').queryKey, {
        number: NUMBER,
        days: [{ day: '2026-11-20', messages: 100, segments: 180, ucs2: 40, extra: 60 }],
        costliest: listed,
        forcingCharacters: 31,
        freeCharacters: 6,
      })
    })
    expect(
      screen.getByText('6 other characters forced UCS-2 without adding a segment (the messages were short enough either way).'),
    ).toBeTruthy()
    expect(screen.getByText('The 20 costliest of the 25 characters that added segments.')).toBeTruthy()
  })
})

describe("The desk's number picker", () => {
  test('holds 10,000 numbers as a type-to-filter combobox: a few options drawn, digits narrow them, Enter picks one', () => {
    const numbers = Array.from({ length: 10_000 }, (_, i) => ({
      number: String(13_105_000_000 + i * 7),
      tid: `T${i}`,
      state: 'idle',
      indexed: 5,
      upstreamTotal: 5,
    }))
    const big = parseStatus({
      enabled: true,
      engine: 'pglite',
      numbers,
      freshness: { numbersKnown: 10_000, numbersComplete: 10_000, syncing: [], incomplete: [], indexedUpTo: null },
    })
    renderWith(<NeedsReplyPage search={search} admin />, (qc) => {
      qc.setQueryData(indexKeys.status(), big)
      qc.setQueryData(deskKeys.settings(), settings)
    })
    const picker = screen.getByRole<HTMLInputElement>('combobox', { name: 'Number' })
    // APG's combobox with a list popup: an input to type in, not a select of 10,000 options.
    expect(picker.tagName).toBe('INPUT')
    expect(picker.getAttribute('aria-autocomplete')).toBe('list')
    fireEvent.click(picker)
    const list = screen.getByRole('listbox', { name: 'Number' })
    expect(within(list).getAllByRole('option').length).toBeLessThanOrEqual(51)
    expect(within(list).getAllByRole('option')[0]!.textContent).toBe('All numbers')
    const wanted = numbers[7_777]!.number
    fireEvent.change(picker, { target: { value: wanted.slice(1) } })
    expect(
      within(screen.getByRole('listbox', { name: 'Number' }))
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual([formatPhone(wanted)])
    fireEvent.keyDown(picker, { key: 'Enter' })
    expect(screen.queryByRole('listbox')).toBeNull()
    expect(picker.value).toBe(formatPhone(wanted))
  })
})

describe('One customer', () => {
  test('a link whose customer starts with 0 is refused as the box refuses it, not opened', () => {
    renderWith(<CustomerPage search={{ party: '0044', tz: 'utc' }} admin={false} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
    })
    expect(screen.getByText('0044 is not a whole phone number')).toBeTruthy()
    expect(screen.queryByText(/No indexed conversation/)).toBeNull()
  })

  test('no customer yet: the box, focused, and what to type', () => {
    renderWith(<CustomerPage search={{ party: '', tz: 'local' }} admin={false} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
    })
    expect(document.activeElement).toBe(screen.getByRole('searchbox', { name: /Customer’s number/ }))
    expect(screen.getByText('Type a customer’s number to see them across every number')).toBeTruthy()
  })

  test('a customer the index never saw: said so, with a search offered instead', () => {
    renderWith(<CustomerPage search={{ party: '442071838750', tz: 'local' }} admin={false} />, (qc) => {
      qc.setQueryData(indexKeys.status(), status(10))
      qc.setQueryData(deskKeys.customer('442071838750'), {
        party: '442071838750',
        numbers: [],
        firstContact: null,
        lastContact: null,
        inbound: 0,
        outbound: 0,
        failed: 0,
        optedOutOn: [],
        waitingSince: null,
        threads: [],
      })
    })
    expect(screen.getByText(/^No indexed conversation with/)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Search message text for this number' }).getAttribute('href')).toBe('/search?q=442071838750')
  })
})

test('the desk asks for at most the server’s row cap', () => {
  expect(needsReplyQuery(null).queryKey).toEqual(['desk', 'needs-reply', null, DESK_MAX_ROWS])
  expect(DESK_MAX_ROWS).toBeLessThanOrEqual(500)
})
