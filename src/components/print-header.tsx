import { formatPhone } from '../lib/phone'

/**
 * On paper only: what the transcript is (account number, other party, date span, time zone),
 * since the screen's navigation, filters and pager are not printed.
 */
export function PrintHeader({
  title,
  number,
  party,
  span,
  zone,
}: {
  title: string
  number?: string | null
  party?: string | null
  span?: string | null
  zone: string
}) {
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
        <li>Dates: {span || 'All dates'}</li>
        <li>Time zone: {zone}</li>
        <li>Printed: {new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')}</li>
      </ul>
    </header>
  )
}
