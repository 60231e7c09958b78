import { formatPhone } from '../lib/phone'

/**
 * On paper only: what the transcript is (account number, other party, date span, time zone),
 * since the screen's navigation, filters and pager are not printed.
 */
export function PrintHeader({ title, number, party, span, zone }: { title: string; number?: string | null; party?: string | null; span?: string | null; zone: string }) {
  return (
    <header className="hidden print:mb-3 print:block">
      <p className="text-lg font-semibold">{title}</p>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-3 text-sm">
        {number ? (
          <>
            <dt>Account number</dt>
            <dd>
              {formatPhone(number)} ({number})
            </dd>
          </>
        ) : null}
        {party ? (
          <>
            <dt>Other party</dt>
            <dd>
              {formatPhone(party)} ({party})
            </dd>
          </>
        ) : null}
        <dt>Dates</dt>
        <dd>{span || 'All dates'}</dd>
        <dt>Time zone</dt>
        <dd>{zone}</dd>
        <dt>Printed</dt>
        <dd>{new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')}</dd>
      </dl>
    </header>
  )
}
