import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { optOutsExport, optOutsQuery, sentAfterExport, sentAfterQuery, type OptRow, type SentAfterRow } from '../../api/desk'
import { ErrorAlert } from '../../components/alert'
import { PrintHeader } from '../../components/print-header'
import { CustomerLink } from '../../components/customer-link'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { BodyText } from '../../components/message/message-parts'
import { formatCount } from '../../lib/count'
import { exactUtc, formatDate, type Zone } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import type { OptOutsSearch } from '../../lib/route-params'
import { Link } from '@tanstack/react-router'
import { useSetParams } from '../../lib/navigation'
import {
  DeskIndexGate,
  DeskNav,
  NOT_LEGAL_ADVICE,
  NumberSelect,
  ReportExportButton,
  StackCell,
  StackRow,
  stackTable,
  TableRegion,
  th,
} from './desk-parts'
import { formatWait, optStateWords, msOf } from './format'
import { ZoneToggle } from '../../components/zone-toggle'
import { useUrlBound } from '../../lib/use-url-bound'

/**
 * Who told us to stop, per number and customer, with each opt-out and opt-back-in in order; and
 * the key report: what we sent them after they opted out and before they opted back in.
 */
export function OptOutsPage({ search, admin }: { search: OptOutsSearch; admin: boolean | null }) {
  const setParams = useSetParams('/desk/opt-outs')
  return (
    <section aria-labelledby="opt-outs-heading">
      <DeskNav current="opt-outs" />
      <PrintHeader
        title="Opt-outs"
        number={search.number || null}
        party={search.party || null}
        holds={
          search.party
            ? 'Sends after opt-out to this customer'
            : `${search.number ? '' : 'All numbers. '}Customers: ${STATE_WORDS[search.state]}`
        }
        zone={search.tz}
      />
      <h1 id="opt-outs-heading" className="text-xl font-semibold">
        Opt-outs
      </h1>
      <p className="mt-1 text-sm text-slate-700">
        Customers who asked a number to stop texting them (STOP, UNSUBSCRIBE, “stop texting me”…) and who opted back in (START, UNSTOP,
        YES), read from their messages.
      </p>
      <p className="mt-1 rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950">
        <strong>Not legal advice.</strong> {NOT_LEGAL_ADVICE}
      </p>
      <div className="mt-3 flex flex-wrap items-end gap-3 print:hidden">
        <NumberSelect value={search.number} allowAll onChange={(n) => setParams({ number: n || null, party: null }, { replace: true })} />
        <ZoneToggle zone={search.tz} onChange={(tz) => setParams({ tz }, { replace: true })} />
      </div>
      <DeskIndexGate admin={admin} what="opt-out ledger" number={search.number}>
        <SentAfter search={search} />
        <Ledger search={search} onState={(state) => setParams({ state }, { replace: true })} />
      </DeskIndexGate>
    </section>
  )
}

/** The ledger, with its own filter beside its heading: the state filter narrows it, not the report above it. */
function Ledger({ search, onState }: { search: OptOutsSearch; onState: (state: 'opted-out' | 'opted-in' | null) => unknown }) {
  const number = search.number || null
  // The ledger stays while a pick of number reloads it: the page does not shrink under the reader (nor jump to its top).
  const q = useQuery({ ...optOutsQuery(number, search.state), placeholderData: keepPreviousData })
  const zone = search.tz
  if (q.isPending) return <TableSkeleton label="Loading opt-outs" />
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} retrying={q.isFetching} where="opt-outs" />
  const { rows, total, optedOut, optedBackIn } = q.data
  return (
    <section aria-labelledby="ledger-heading" className="mt-6">
      <div className="flex flex-wrap items-end gap-3">
        <h2 id="ledger-heading" className="text-lg font-semibold">
          Opt-out state by number and customer
        </h2>
        <span className="print:hidden">
          <StateSelect value={search.state} onChange={onState} />
        </span>
        {rows.length > 0 ? (
          <ReportExportButton
            report={optOutsExport(number, search.state, search.tz)}
            label={`Opt-out ledger${number ? ` of ${formatPhone(number)}` : ''}`}
            total={total}
            ariaLabel="Export CSV: the opt-out ledger"
          />
        ) : null}
      </div>
      <p role="status" className="text-sm tabular-nums">
        {formatCount(optedOut)} still opted out, {formatCount(optedBackIn)} opted back in
        {number ? ` on ${formatPhone(number)}` : ' across all numbers'}.
      </p>
      {rows.length === 0 ? (
        <EmptyState title={total === 0 && search.state === 'all' ? 'Nobody has opted out' : 'No customer is in this state'}>
          {search.state === 'all'
            ? 'No indexed message from a customer reads as an opt-out.'
            : 'Choose “All” to see every customer who ever opted out.'}
        </EmptyState>
      ) : (
        <TableRegion label="Opt-out state" stacked>
          <table role="table" className={stackTable}>
            <caption className="sr-only">Opt-out state per number and customer, with history</caption>
            <thead className="bg-slate-50">
              <tr>
                <th scope="col" className={th}>
                  Customer
                </th>
                <th scope="col" className={th}>
                  Number
                </th>
                <th scope="col" className={th}>
                  State now
                </th>
                <th scope="col" className={th}>
                  History
                </th>
                <th scope="col" className={th}>
                  Sent after opt-out
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <LedgerRow key={`${r.number}|${r.party}`} r={r} zone={zone} />
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      {total > rows.length ? (
        <p className="mt-2 text-sm text-slate-700">
          {formatCount(rows.length)} of {formatCount(total)} shown. Choose a number to narrow the list.
        </p>
      ) : null}
    </section>
  )
}

/** The state filter in words, for paper. */
const STATE_WORDS = {
  all: 'every customer who opted out',
  'opted-out': 'customers still opted out',
  'opted-in': 'customers who opted back in',
} as const

function LedgerRow({ r, zone }: { r: OptRow; zone: Zone }) {
  const setParams = useSetParams('/desk/opt-outs')
  return (
    <StackRow>
      <StackCell label="Customer" className="whitespace-nowrap">
        <CustomerLink party={r.party} />
      </StackCell>
      <StackCell label="Number" className="whitespace-nowrap">
        {formatPhone(r.number)}
      </StackCell>
      <StackCell label="State now" className="whitespace-nowrap">
        <span className={r.optedOut ? 'font-semibold text-red-900' : ''}>{r.optedOut ? 'Opted out' : 'Opted back in'}</span>
        {r.optedOut && r.since ? <span className="block text-xs text-slate-700">since {formatDate(msOf(r.since), zone)}</span> : null}
      </StackCell>
      <StackCell label="History">
        <ol className="space-y-0.5">
          {r.history.map((h, i) => (
            <li key={i} className="whitespace-nowrap print:whitespace-normal">
              {optStateWords(h.state)}, {formatDate(msOf(h.date), zone)}
            </li>
          ))}
        </ol>
      </StackCell>
      <StackCell label="Sent after opt-out" className="whitespace-nowrap tabular-nums">
        {r.sentAfter > 0 ? (
          <button
            type="button"
            className="font-semibold text-blue-800 underline"
            onClick={() => setParams({ number: r.number, party: r.party }, { replace: false })}
            // The name starts with the count as shown (78,457, not 78457): voice control says what it sees.
            aria-label={`${formatCount(r.sentAfter)} ${r.sentAfter === 1 ? 'message' : 'messages'} sent to ${formatPhone(r.party)} after opting out: show the evidence`}
          >
            {formatCount(r.sentAfter)}
          </button>
        ) : (
          '0'
        )}
      </StackCell>
    </StackRow>
  )
}

/** The key report: every send after an opt-out and before any opt-back-in, with both messages as evidence. */
function SentAfter({ search }: { search: OptOutsSearch }) {
  const number = search.number || null
  const party = search.party || null
  const setParams = useSetParams('/desk/opt-outs')
  const q = useQuery(sentAfterQuery(number, party))
  const zone = search.tz
  // A ledger count picked, or "Show every customer": the button pressed is gone or far above, so
  // focus (and the view) goes to the evidence it asked for. Not on arrival: the page's h1 has it.
  const heading = useRef<HTMLHeadingElement>(null)
  const shownParty = useRef(party)
  useEffect(() => {
    if (shownParty.current === party) return
    shownParty.current = party
    heading.current?.focus()
    heading.current?.scrollIntoView({ block: 'start' })
  }, [party])
  return (
    <section aria-labelledby="sent-after-heading" className="mt-4">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="sent-after-heading" ref={heading} tabIndex={-1} className="text-lg font-semibold">
          Sent after opt-out
          {party ? (
            <>
              {' '}
              to <span className="whitespace-nowrap">{formatPhone(party)}</span>
            </>
          ) : null}
        </h2>
        {party ? (
          <button type="button" className="btn print:hidden" onClick={() => setParams({ party: null }, { replace: true })}>
            Show every customer
          </button>
        ) : null}
        {q.data && q.data.rows.length > 0 ? (
          <ReportExportButton
            report={sentAfterExport(number, party, zone)}
            label={`Sent after opt-out${party ? ` to ${formatPhone(party)}` : ''}${number ? ` from ${formatPhone(number)}` : ''}`}
            total={q.data.total}
            ariaLabel="Export CSV: every send after opt-out"
          />
        ) : null}
      </div>
      <p className="text-sm text-slate-700">
        Messages sent to a customer after they opted out on that number and before they opted back in. The one confirmation sent within 5
        minutes of the opt-out is allowed and not listed; sends the carrier refused are listed and marked, since they were still attempts.
      </p>
      {q.isPending ? (
        <TableSkeleton label="Loading sends after opt-out" rows={3} />
      ) : q.isError ? (
        <ErrorAlert error={q.error} onRetry={() => void q.refetch()} retrying={q.isFetching} where="sends after opt-out" />
      ) : q.data.rows.length === 0 ? (
        <EmptyState title="Nothing was sent after an opt-out">
          {party ? `No message went to ${formatPhone(party)} while they were opted out.` : 'No customer got a message while opted out.'}
        </EmptyState>
      ) : (
        <>
          <p role="status" className="mt-1 font-semibold tabular-nums text-red-900">
            {formatCount(q.data.total)} {q.data.total === 1 ? 'message' : 'messages'} sent after opt-out
          </p>
          <TableRegion label="Sent after opt-out" stacked>
            <table role="table" className={stackTable}>
              <caption className="sr-only">Messages sent after opt-out, newest first, with the opt-out message</caption>
              <thead className="bg-slate-50">
                <tr>
                  <th scope="col" className={th}>
                    Customer
                  </th>
                  <th scope="col" className={th}>
                    Number
                  </th>
                  <th scope="col" className={th}>
                    Their opt-out
                  </th>
                  <th scope="col" className={th}>
                    What we sent after
                  </th>
                </tr>
              </thead>
              <tbody>
                {q.data.rows.map((r) => (
                  <SentRow key={`${r.number}|${r.message.ordinal}`} r={r} zone={zone} />
                ))}
              </tbody>
            </table>
          </TableRegion>
          {q.data.total > q.data.rows.length ? (
            <p className="mt-2 text-sm text-slate-700">
              The {formatCount(q.data.rows.length)} newest of the {formatCount(q.data.total)} sends are shown
              {number || party ? '' : '; choose a number or open a customer to narrow them'}. The export holds all{' '}
              {formatCount(q.data.total)}.
            </p>
          ) : null}
        </>
      )}
    </section>
  )
}

function SentRow({ r, zone }: { r: SentAfterRow; zone: Zone }) {
  return (
    <StackRow>
      <StackCell label="Customer" className="whitespace-nowrap">
        <CustomerLink party={r.party} />
      </StackCell>
      <StackCell label="Number" className="whitespace-nowrap">
        {formatPhone(r.number)}
      </StackCell>
      <StackCell label="Their opt-out" className="sm:min-w-40">
        <Link
          to="/numbers/$number/messages/$ordinal"
          params={{ number: r.number, ordinal: r.optOut.ordinal }}
          search={{ tz: zone }}
          className="text-blue-800 underline"
        >
          {formatDate(msOf(r.optOut.date), zone)}
        </Link>
        <BodyText body={r.optOut.body} />
      </StackCell>
      <StackCell label="What we sent after" className="sm:min-w-48">
        <Link
          to="/numbers/$number/messages/$ordinal"
          params={{ number: r.number, ordinal: r.message.ordinal }}
          search={{ tz: zone }}
          className="text-blue-800 underline"
          title={exactUtc(msOf(r.message.date))}
        >
          {formatDate(msOf(r.message.date), zone)}
        </Link>
        <span className="text-xs text-slate-700"> ({formatWait(r.afterMs)} after)</span>
        {r.message.failed ? <span className="ml-1 rounded bg-red-100 px-1 text-xs text-red-900">refused by the carrier</span> : null}
        <BodyText body={r.message.body} />
      </StackCell>
    </StackRow>
  )
}

/** Which customers to list, by their state now; a pick shows at once (useUrlBound). */
function StateSelect({
  value,
  onChange,
}: {
  value: OptOutsSearch['state']
  onChange: (state: 'opted-out' | 'opted-in' | null) => unknown
}) {
  const [state, setState] = useUrlBound(value, (v) => onChange(v === 'all' ? null : v))
  return (
    <label className="flex flex-col text-sm">
      State now
      <select
        className="input"
        value={state}
        onChange={(e) => {
          const v = e.target.value
          setState(v === 'opted-out' || v === 'opted-in' ? v : 'all')
        }}
      >
        <option value="all">All</option>
        <option value="opted-out">Still opted out</option>
        <option value="opted-in">Opted back in</option>
      </select>
    </label>
  )
}
