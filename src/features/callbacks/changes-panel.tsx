import { useQuery } from '@tanstack/react-query'
import { callbackChangesQuery, type CallbackChange, type Listing } from '../../api/callbacks'
import { ErrorAlert } from '../../components/alert'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { ExportButtons } from '../../components/export-buttons'
import { formatPhone } from '../../lib/phone'
import { changeWords, windowWords } from './callback-words'
import { NumberFilter } from './number-filter'
import { NumberLink } from './number-link'

const at = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' })

type Entry = { t: string; change: CallbackChange; listing?: never } | { t: string; listing: Listing; change?: never }

/** The account's history of changes, newest first, with the gaps and the baseline among them. */
export function ChangesPanel({ number, onNumber }: { number: string; onNumber: (n: string) => void }) {
  return (
    <>
      <NumberFilter key={number} id="changes-number" value={number} onChange={onNumber} />
      <p className="mt-2 max-w-prose text-sm text-slate-700">
        Each change is known only to lie between two listings of the account's numbers. The API cannot say who changed it.
      </p>
      <Body number={number} />
    </>
  )
}

function Body({ number }: { number: string }) {
  const q = useQuery(callbackChangesQuery(number))
  if (q.isPending) return <TableSkeleton rows={4} label="Loading the history of changes" />
  if (q.isError)
    return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} retrying={q.isFetching} where="the history of changes" />
  const { changes, listings } = q.data
  if (listings.length === 0)
    return <EmptyState title="No listing yet">The history begins with the server's first listing of the account's numbers.</EmptyState>
  const entries: Entry[] = [
    ...changes.map((c): Entry => ({ t: c.windowEnd, change: c })),
    ...listings.filter((l) => !l.ok || l.baseline).map((l): Entry => ({ t: l.at, listing: l })),
  ].sort((a, b) => (a.t < b.t ? 1 : a.t > b.t ? -1 : a.listing ? 1 : -1))
  const latest = listings[0]
  return (
    <>
      <p role="status" className="mt-2 text-sm">
        {changes.length === 0 ? 'No change seen' : `${changes.length} change${changes.length === 1 ? '' : 's'}`}
        {number ? ` on ${formatPhone(number)}` : ''}.{' '}
        {latest ? `Last listing ${at.format(new Date(latest.at))}${latest.ok ? '' : ' (failed)'}.` : ''}
      </p>
      <div className="mt-2 print:hidden">
        <ExportButtons
          nameParts={['callbacks-changes', number]}
          getData={() => ({
            header: ['number', 'change', 'from', 'to', 'window_start', 'window_end'],
            rows: changes.map((c) => [c.number, c.kind, c.from ?? '', c.to ?? '', c.windowStart, c.windowEnd]),
          })}
        />
      </div>
      <ol className="mt-2 space-y-2">
        {entries.map((e) =>
          e.change ? (
            <li key={`c${e.change.id}`} className="rounded border border-slate-200 bg-white p-2 text-sm">
              <p className="font-medium">
                <NumberLink number={e.change.number} />
              </p>
              <p className="break-all">{changeWords(e.change)}</p>
              <p className="text-slate-700">{windowWords(e.change.windowStart, e.change.windowEnd)}</p>
            </li>
          ) : (
            <li
              key={`l${e.listing.id}`}
              className={`rounded border p-2 text-sm ${e.listing.ok ? 'border-slate-200 bg-slate-50' : 'border-amber-300 bg-amber-50'}`}
            >
              {e.listing.ok ? (
                <p>
                  History begins {at.format(new Date(e.listing.at))}: the first listing ({e.listing.numbers ?? 0} numbers) is the baseline,
                  not a change.
                </p>
              ) : (
                <p>
                  <span className="font-medium">Gap:</span> the listing at {at.format(new Date(e.listing.at))} failed (
                  {(e.listing.error ?? 'no reason').replace(/\.$/, '')}). A change made then is dated by the listings on either side.
                </p>
              )}
            </li>
          ),
        )}
      </ol>
    </>
  )
}
