import { useEffect, useState } from 'react'
import { formatDate, zoneLabel, type Zone } from '../lib/dates'
import { formatPhone } from '../lib/phone'

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
  // When the page is printed (beforeprint), not when it was drawn.
  const [printedAt, setPrintedAt] = useState(() => Date.now())
  useEffect(() => {
    const stamp = () => {
      setPrintedAt(Date.now())
    }
    window.addEventListener('beforeprint', stamp)
    return () => {
      window.removeEventListener('beforeprint', stamp)
    }
  }, [])
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
        <li>Time zone: {zoneLabel(zone)}</li>
        <li>Printed: {formatDate(printedAt, zone)}</li>
      </ul>
    </header>
  )
}
