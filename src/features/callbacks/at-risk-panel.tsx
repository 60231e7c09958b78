import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { atRiskQuery } from '../../api/callbacks'
import { ErrorAlert } from '../../components/alert'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { ExportButtons } from '../../components/export-buttons'
import { SidewaysRegion } from '../../components/sideways-region'
import { formatPhone } from '../../lib/phone'
import { periodWords, reasonWords } from './callback-words'
import { NumberFilter } from './number-filter'
import { NumberLink } from './number-link'

const when = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' })
const th = 'px-2 py-2 text-left font-semibold whitespace-nowrap'
const td = 'px-2 py-1.5 align-top'

/**
 * Messages at risk: inbound messages that arrived while the number's webhook was broken, outbound
 * ones sent while its dlr endpoint failed. Each period is bounded by the listings and checks on
 * either side. Opening this list is a logged read of customer messages.
 */
export function AtRiskPanel({ number, onNumber }: { number: string; onNumber: (n: string) => void }) {
  return (
    <>
      <NumberFilter key={number} id="at-risk-number" value={number} onChange={onNumber} />
      <p className="mt-2 max-w-prose text-sm text-slate-700">
        A period runs from the earliest moment the callback may have broken to the latest it may have been mended: the listings and checks
        on either side bound it. Reading this list is recorded in the access log.
      </p>
      <Body number={number} />
    </>
  )
}

function Body({ number }: { number: string }) {
  const q = useQuery(atRiskQuery(number))
  if (q.isPending) return <TableSkeleton rows={4} label="Loading messages at risk" />
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} retrying={q.isFetching} where="messages at risk" />
  const d = q.data
  if (!d.since)
    return <EmptyState title="No history yet">Messages at risk are found from the history of listings, which has not begun.</EmptyState>
  const total = Object.values(d.counts).reduce((a, n) => a + n, 0)
  return (
    <>
      <p role="status" className="mt-2 text-sm font-medium">
        {total === 0 ? 'No indexed message is at risk' : `${total} message${total === 1 ? '' : 's'} at risk`}
        {number ? ` on ${formatPhone(number)}` : ''} since the history began ({when.format(new Date(d.since))}).
        {d.truncated ? ` The ${d.messages.length} newest are listed.` : ''}
      </p>
      {d.periods.length === 0 ? (
        <EmptyState title="No broken callback">
          No webhook or dlr was missing, invalid, redirected elsewhere or failing in the history.
        </EmptyState>
      ) : (
        <section aria-labelledby="periods-heading" className="mt-3">
          <h2 id="periods-heading" className="text-lg font-semibold">
            When callbacks were broken
          </h2>
          <ul className="mt-1 space-y-2">
            {d.periods.map((p, i) => (
              <li key={i} className="rounded border border-slate-200 bg-white p-2 text-sm">
                <p className="font-medium">
                  <NumberLink number={p.number} />: {p.count} {p.callback === 'webhook' ? 'inbound' : 'outbound'} message
                  {p.count === 1 ? '' : 's'} at risk
                </p>
                <p className="break-all">{reasonWords(p)}</p>
                <p className="text-slate-700">{periodWords(p)}</p>
              </li>
            ))}
          </ul>
        </section>
      )}
      {d.messages.length > 0 ? (
        <section aria-labelledby="messages-heading" className="mt-4">
          <div className="flex flex-wrap items-center gap-3">
            <h2 id="messages-heading" className="text-lg font-semibold">
              The messages
            </h2>
            <div className="ml-auto print:hidden">
              <ExportButtons
                nameParts={['callbacks-at-risk', number]}
                getData={() => ({
                  header: [
                    'number',
                    'customer',
                    'date',
                    'direction',
                    'ordinal',
                    'callback',
                    'reason',
                    'address',
                    'from_earliest',
                    'from_latest',
                    'until_earliest',
                    'until_latest',
                  ],
                  rows: d.messages.map((m) => {
                    const p = d.periods[m.period]
                    return [
                      m.number,
                      m.party,
                      m.date,
                      m.direction,
                      m.ordinal,
                      p?.callback ?? '',
                      p?.reason ?? '',
                      p?.url ?? '',
                      p?.start.earliest ?? '',
                      p?.start.latest ?? '',
                      p?.end?.earliest ?? '',
                      p?.end?.latest ?? '',
                    ]
                  }),
                })}
              />
            </div>
          </div>
          <SidewaysRegion label="Messages at risk (scrolls sideways)" className="mt-1 rounded border border-slate-200 bg-white">
            <table className="w-full border-collapse text-sm">
              <caption className="sr-only">Messages at risk: number, customer, when, direction and why</caption>
              <thead className="bg-slate-50">
                <tr>
                  <th scope="col" className={th}>
                    Number
                  </th>
                  <th scope="col" className={th}>
                    Customer
                  </th>
                  <th scope="col" className={th}>
                    When
                  </th>
                  <th scope="col" className={th}>
                    Direction
                  </th>
                  <th scope="col" className={th}>
                    Why
                  </th>
                </tr>
              </thead>
              <tbody>
                {d.messages.map((m) => {
                  const p = d.periods[m.period]
                  return (
                    <tr key={`${m.number}-${m.ordinal}-${m.period}`} className="border-t border-slate-200">
                      <td className={`${td} whitespace-nowrap`}>{formatPhone(m.number)}</td>
                      <td className={`${td} whitespace-nowrap`}>{m.party ? formatPhone(m.party) : '—'}</td>
                      <td className={`${td} whitespace-nowrap`}>
                        <Link
                          to="/numbers/$number/messages/$ordinal"
                          params={{ number: m.number, ordinal: m.ordinal }}
                          className="text-blue-800 underline"
                        >
                          {when.format(new Date(m.date))}
                          <span className="sr-only">: open this message</span>
                        </Link>
                      </td>
                      <td className={td}>{m.direction}</td>
                      <td className={`${td} min-w-64`}>{p ? reasonWords(p) : ''}</td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </SidewaysRegion>
        </section>
      ) : null}
    </>
  )
}
