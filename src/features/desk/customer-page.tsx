import { useQuery } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { customerQuery, type Customer } from '../../api/desk'
import { ErrorAlert } from '../../components/alert'
import { PrintHeader } from '../../components/print-header'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { formatCount } from '../../lib/count'
import { exactUtc, formatDate, isoInZone, isoUtc, zoneName, type Zone } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import { partyFromInput } from '../../lib/phone-input'
import type { CustomerSearch } from '../../lib/route-params'
import { Link } from '@tanstack/react-router'
import { useSetParams } from '../../lib/navigation'
import { ExportButtons, type ExportData } from '../../components/export-buttons'
import { DeskIndexGate, DeskNav, oneLineOnScreen, StackCell, StackRow, stackTable, TableRegion, th, useTidOf } from './desk-parts'
import { formatWait, msOf } from './format'
import { ZoneToggle } from '../../components/zone-toggle'

/** One customer across every number: who they talked with, when, how much, failures, opt-outs, whether they wait. */
export function CustomerPage({ search, admin }: { search: CustomerSearch; admin: boolean | null }) {
  const heading = useRef<HTMLHeadingElement>(null)
  // A customer opened by a link puts focus on the page's heading, where a screen reader starts.
  useEffect(() => {
    if (search.party) heading.current?.focus()
  }, [search.party])
  return (
    <section aria-labelledby="customer-heading">
      <DeskNav current="customer" />
      <PrintHeader title="Customer" party={search.party || null} holds="Every indexed number" zone={search.tz} />
      <h1 id="customer-heading" ref={heading} tabIndex={-1} className="text-xl font-semibold">
        {search.party ? `Customer ${formatPhone(search.party)}` : 'Customer'}
      </h1>
      {/* Keyed by the customer: the box shows the one opened, whichever way they were reached. */}
      <CustomerBox key={search.party} party={search.party} zone={search.tz} />
      {/^0/.test(search.party) ? (
        // As the box refuses it: a leading 0 is another country's trunk prefix, and which country is not in the digits.
        <EmptyState title={`${search.party} is not a whole phone number`}>
          It starts with 0: type + and the country code instead of the 0 (for example +44 20 7946 0958).
        </EmptyState>
      ) : search.party ? (
        <DeskIndexGate admin={admin} what="customer page">
          <CustomerView party={search.party} zone={search.tz} />
        </DeskIndexGate>
      ) : (
        <EmptyState title="Type a customer’s number to see them across every number">
          Or open a customer from any place a phone number appears: search results, histories, threads, the needs-reply queue and opt-outs.
        </EmptyState>
      )}
    </section>
  )
}

function CustomerBox({ party, zone }: { party: string; zone: Zone }) {
  const setParams = useSetParams('/desk/customer')
  const [text, setText] = useState(party ? formatPhone(party) : '')
  const [problem, setProblem] = useState<string | null>(null)
  return (
    <form
      role="search"
      aria-label="Find a customer"
      className="mt-2 flex flex-wrap items-end gap-2 print:hidden"
      onSubmit={(e) => {
        e.preventDefault()
        void partyFromInput(text).then((r) => {
          if ('error' in r) setProblem(r.error)
          else {
            setProblem(null)
            void setParams({ party: r.digits })
          }
        })
      }}
    >
      <label className="flex flex-col text-sm">
        Customer’s number (any format, + and country code for international)
        <input
          type="search"
          inputMode="tel"
          className="input w-72 max-w-full"
          value={text}
          onChange={(e) => {
            setText(e.target.value)
          }}
          placeholder="(917) 555-0101"
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'customer-problem' : undefined}
          autoFocus={!party}
        />
      </label>
      <button type="submit" className="btn btn-primary">
        Open customer
      </button>
      <ZoneToggle zone={zone} onChange={(tz) => setParams({ tz }, { replace: true })} />
      {problem ? (
        <p id="customer-problem" role="alert" className="w-full text-sm text-red-800">
          {/* The page below is still the customer opened before: said, so it is not read as the answer. */}
          {problem} {party ? `Still showing ${formatPhone(party)}.` : ''}
        </p>
      ) : null}
    </form>
  )
}

function CustomerView({ party, zone }: { party: string; zone: Zone }) {
  const q = useQuery(customerQuery(party))
  const at = q.dataUpdatedAt
  if (q.isPending) return <TableSkeleton label="Loading the customer" />
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} retrying={q.isFetching} where="the customer" />
  const c = q.data
  if (c.threads.length === 0)
    return (
      <EmptyState title={`No indexed conversation with ${formatPhone(party)}`}>
        <p>No number of the account has a message to or from this customer in the message index.</p>
        <p className="mt-1">
          {/* The party is known to have no conversation: what is left to look for is the number written inside messages. */}
          <Link to="/search" search={{ q: party }} className="text-blue-800 underline">
            Search message text for this number
          </Link>
          , for messages that mention it.
        </p>
      </EmptyState>
    )
  return (
    <>
      <Summary c={c} zone={zone} at={at} />
      <Threads c={c} zone={zone} />
    </>
  )
}

/** `at`: when the answer came, the instant waiting is measured to. */
function Summary({ c, zone, at }: { c: Customer; zone: Zone; at: number }) {
  const waitingMs = c.waitingSince ? at - Date.parse(c.waitingSince) : null
  const items: Array<[string, string]> = [
    ['Numbers talked with', `${formatCount(c.numbers.length)}: ${c.numbers.map((n) => formatPhone(n)).join(', ')}`],
    ['First contact', formatDate(msOf(c.firstContact), zone)],
    ['Last contact', formatDate(msOf(c.lastContact), zone)],
    ['Messages from them', formatCount(c.inbound)],
    ['Messages to them', formatCount(c.outbound)],
    ['Failed sends', formatCount(c.failed)],
    ['Opt-out', c.optedOutOn.length ? `Opted out on ${c.optedOutOn.map((n) => formatPhone(n)).join(', ')}` : 'Not opted out on any number'],
    [
      'Waiting for a reply',
      c.waitingSince && waitingMs !== null ? `Yes, for ${formatWait(waitingMs)} (since ${formatDate(msOf(c.waitingSince), zone)})` : 'No',
    ],
  ]
  return (
    <dl className="mt-3 grid gap-x-6 gap-y-2 rounded border border-slate-200 bg-white p-3 text-sm sm:grid-cols-2">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt className="font-semibold">{k}</dt>
          <dd className={k === 'Opt-out' && c.optedOutOn.length ? 'text-red-900' : ''}>{v}</dd>
        </div>
      ))}
    </dl>
  )
}

function Threads({ c, zone }: { c: Customer; zone: Zone }) {
  const tidOf = useTidOf()
  return (
    <section aria-labelledby="customer-threads-heading" className="mt-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="customer-threads-heading" className="text-lg font-semibold">
          Their threads
        </h2>
        {/* The rows shown, as the desk's server exports write theirs: UTC, then the page's clock at the end. */}
        <div className="print:hidden">
          <ExportButtons nameParts={['customer', c.party, `${c.threads.length}-threads`]} getData={() => threadsFile(c, zone)} />
        </div>
      </div>
      <TableRegion label="Threads with this customer" stacked>
        <table role="table" className={stackTable}>
          <caption className="sr-only">Threads with {formatPhone(c.party)}, most recent first</caption>
          <thead className="bg-slate-50">
            <tr>
              <th scope="col" className={th}>
                Number
              </th>
              <th scope="col" className={th}>
                First contact
              </th>
              <th scope="col" className={th}>
                Last contact
              </th>
              <th scope="col" className={th}>
                From them
              </th>
              <th scope="col" className={th}>
                To them
              </th>
              <th scope="col" className={th}>
                Failed
              </th>
              <th scope="col" className={th}>
                Opt-out
              </th>
              <th scope="col" className={th}>
                Waiting
              </th>
            </tr>
          </thead>
          <tbody>
            {c.threads.map((t) => (
              <StackRow key={t.number}>
                <StackCell label="Number" className="whitespace-nowrap">
                  <Link
                    to="/numbers/$number/thread"
                    params={{ number: t.number }}
                    search={{ tid: tidOf(t.number), party: t.party, tz: zone }}
                    className="text-blue-800 underline"
                    aria-label={`Thread on ${formatPhone(t.number)}`}
                  >
                    {formatPhone(t.number)}
                  </Link>
                </StackCell>
                <StackCell label="First contact" className={oneLineOnScreen} title={exactUtc(msOf(t.firstAt))}>
                  {formatDate(msOf(t.firstAt), zone)}
                </StackCell>
                <StackCell label="Last contact" className={oneLineOnScreen} title={exactUtc(msOf(t.lastAt))}>
                  {formatDate(msOf(t.lastAt), zone)}
                </StackCell>
                <StackCell label="From them" className="tabular-nums">
                  {formatCount(t.inbound)}
                </StackCell>
                <StackCell label="To them" className="tabular-nums">
                  {formatCount(t.outbound)}
                </StackCell>
                <StackCell label="Failed" className="tabular-nums">
                  {formatCount(t.failed)}
                </StackCell>
                <StackCell label="Opt-out" className={oneLineOnScreen}>
                  {t.optedOut ? (
                    <span className="font-semibold text-red-900">Opted out {formatDate(msOf(t.optedOutAt), zone)}</span>
                  ) : t.optHistory.length ? (
                    'Opted back in'
                  ) : (
                    'No'
                  )}
                  {t.sentAfter > 0 ? (
                    <Link
                      to="/desk/opt-outs"
                      search={{ number: t.number, party: t.party }}
                      className="flex min-h-6 items-center text-xs text-blue-800 underline"
                    >
                      {formatCount(t.sentAfter)} sent after opt-out
                    </Link>
                  ) : null}
                </StackCell>
                <StackCell label="Waiting" className={oneLineOnScreen}>
                  {t.waitingSince ? `Since ${formatDate(msOf(t.waitingSince), zone)}` : 'No'}
                </StackCell>
              </StackRow>
            ))}
          </tbody>
        </table>
      </TableRegion>
    </section>
  )
}

const THREAD_DATES = ['first_contact', 'last_contact', 'opted_out_at', 'waiting_since'] as const

/** The threads table as a file: a row per number, dates in UTC with their local clock at the end. */
function threadsFile(c: Customer, zone: Zone): ExportData {
  const local = (iso: string | null) => isoInZone(msOf(iso), zone).slice(0, 19).replace('T', ' ')
  const utc = (iso: string | null) => isoUtc(msOf(iso))
  return {
    header: [
      'customer',
      'number',
      'first_contact',
      'last_contact',
      'from_them',
      'to_them',
      'failed',
      'opted_out',
      'opted_out_at',
      'sent_after_opt_out',
      'waiting_since',
      ...THREAD_DATES.map((d) => `${d}_local (${zoneName(zone)})`),
    ],
    rows: c.threads.map((t) => [
      c.party,
      t.number,
      utc(t.firstAt),
      utc(t.lastAt),
      t.inbound,
      t.outbound,
      t.failed,
      t.optedOut ? 'yes' : 'no',
      utc(t.optedOutAt),
      t.sentAfter,
      utc(t.waitingSince),
      local(t.firstAt),
      local(t.lastAt),
      local(t.optedOutAt),
      local(t.waitingSince),
    ]),
  }
}
