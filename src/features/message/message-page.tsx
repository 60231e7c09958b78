import { Link } from '@tanstack/react-router'
import { PrintHeader } from '../../components/print-header'
import { useEffect, useMemo, useRef } from 'react'
import { ErrorAlert } from '../../components/alert'
import { TableSkeleton } from '../../components/empty-state'
import { HistoryDisplayContext, type HistoryDisplay } from '../../components/message/display-context'
import { MediaViewer, useMediaViewer } from '../../components/message/media-viewer'
import { formatCount } from '../../lib/count'
import { zoneLabel } from '../../lib/dates'
import { useSetParams } from '../../lib/navigation'
import { formatPhone } from '../../lib/phone'
import type { MessageSearch } from '../../lib/route-params'
import { MessageDetails } from './message-details'
import { useMessage } from './use-message'
import { ZoneToggle } from '../../components/zone-toggle'

/**
 * One message, by its ordinal (1 = the number's oldest message; stable as new messages arrive).
 * From the index when it holds the number; otherwise from the upstream: the history's total
 * turns the ordinal into today's record position, and that one record is fetched.
 */
export function MessagePage({ number, ordinal, search }: { number: string; ordinal: number; search: MessageSearch }) {
  const setParams = useSetParams('/numbers/$number/messages/$ordinal')
  const { tz: zone } = search
  const { index, indexed, tid, m, upstreamTotal, total, error, pos, outOfRange, retry } = useMessage(number, ordinal, search.tid)
  const { media, open: openMedia, close: closeMedia } = useMediaViewer()
  const display = useMemo<HistoryDisplay>(() => ({ zone, number, openMedia }), [zone, number, openMedia])
  // Arriving from a thread's Details or a search result: focus on the heading, as the thread page does, so a screen reader hears the new page.
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [number, ordinal])

  return (
    <HistoryDisplayContext.Provider value={display}>
      <section aria-labelledby="message-heading">
        <PrintHeader
          title={pos !== null ? `Record ${formatCount(pos)} of ${formatPhone(number)}` : `A message of ${formatPhone(number)}`}
          number={number}
          holds={`One message: number ${formatCount(ordinal)} from the oldest`}
          zone={zone}
        />
        <p className="text-sm print:hidden">
          <Link to="/numbers/$number" params={{ number }} search={{ tid }} className="text-blue-800 underline">
            ← History of {formatPhone(number)}
          </Link>
        </p>
        {/* One numbering on screen, the History page's: records count from the newest (1). The
            address names the message from the oldest instead, which new messages do not move. */}
        <h1 id="message-heading" ref={heading} tabIndex={-1} className="mt-1 text-xl font-semibold">
          {pos !== null ? `Record ${formatCount(pos)} of ${formatPhone(number)}` : `A message of ${formatPhone(number)}`}
        </h1>
        <p className="text-sm text-slate-700">
          Records count from the newest (1), as on the History page; this page&apos;s address names the message as number{' '}
          {formatCount(ordinal)} from the oldest, which stays the same as new messages arrive. Dates in {zoneLabel(zone)}.{' '}
          <ZoneToggle zone={zone} short className="btn print:hidden" onChange={(tz) => setParams({ tz }, { replace: true })} />
        </p>
        {!indexed && !index.loading && tid === '' ? (
          <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-900">
            <p className="font-semibold">This link is missing the number&apos;s tid, and the message index does not hold this number.</p>
            <p className="text-sm">
              Open the message from the <Link to="/">numbers list</Link> to get a complete link.
            </p>
          </div>
        ) : null}
        {outOfRange ? (
          <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-900">
            <p className="font-semibold">This number has no message {formatCount(ordinal)} (counted from the oldest)</p>
            <p className="text-sm">It holds {formatCount(upstreamTotal ?? 0)} messages. Check the link, or open the history.</p>
          </div>
        ) : null}
        {error ? <ErrorAlert error={error} onRetry={retry} where={`message ${formatCount(ordinal)}`} /> : null}
        {!m && !error && !outOfRange && tid !== '' ? <TableSkeleton label="Loading the message" rows={4} /> : null}
        {m ? (
          <MessageDetails
            m={m}
            number={number}
            ordinal={ordinal}
            tid={tid}
            zone={zone}
            pos={pos}
            total={total}
            indexed={indexed}
            threadLinks={index.available}
          />
        ) : null}
        <MediaViewer media={media} onClose={closeMedia} />
      </section>
    </HistoryDisplayContext.Provider>
  )
}
