import { formatDate, zoneLabel, type Zone } from '../lib/dates'
import { formatPhone } from '../lib/phone'
import { usePrintingSince } from './data-table/layout'

/**
 * On paper only: what the transcript is (account number, other party, date span, time zone),
 * since the screen's navigation, filters and pager are not printed. `holds`, when given, says
 * what the paper itself holds ("Messages 100 of 2,345, from … to …") and stands in for the date
 * span: a printout of part of something must not claim the whole of it.
 */
export function PrintHeader({
  title,
  number,
  party,
  span,
  holds,
  zone,
}: {
  title: string
  number?: string | null
  party?: string | null
  span?: string | null
  holds?: string | null
  /** The zone the page shows its dates in: named on paper, and the printing time is written in it too. */
  zone: Zone
}) {
  // The zone's name and the time are written when the page is printed (beforeprint, flushed
  // before the browser lays out the sheets, or print media), not when it is drawn: the header is
  // not shown on screen, and naming the browser's zone and formatting a date are the page's first
  // Intl calls, whose ICU set-up took 16 ms of the numbers page's first render in a trace, before
  // that render could ask for the listing.
  const printedAt = usePrintingSince()
  return (
    <header className="hidden print:mb-3 print:block">
      <p className="text-lg font-semibold">{title}</p>
      <ul className="text-sm">
        {number ? (
          <li>
            Account number: {formatPhone(number)} ({number})
          </li>
        ) : null}
        {party ? (
          <li>
            Other party: {formatPhone(party)} ({party})
          </li>
        ) : null}
        {holds ? <li>{holds}</li> : <li>Dates: {span || 'All dates'}</li>}
        {printedAt !== null ? (
          <>
            <li>Time zone: {zoneLabel(zone)}</li>
            <li>Printed: {formatDate(printedAt, zone)}</li>
          </>
        ) : null}
      </ul>
    </header>
  )
}
