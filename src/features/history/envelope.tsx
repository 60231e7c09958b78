import type { HistoryPage } from '../../api/history'
import { formatCount } from '../../lib/count'
import { exactUtc, formatDate, parseApiDate, type Zone } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'

/** The number's facts from the history envelope; dates formatted like every other date. `failed`: no answer is coming (no "…"). */
export function Envelope({
  page,
  number,
  tid,
  zone,
  failed = false,
}: {
  page: HistoryPage | undefined
  number: string
  tid: string
  zone: Zone
  failed?: boolean
}) {
  const created = parseApiDate(page?.createdDate)
  const recent = parseApiDate(page?.mostRecentDate)
  const dash = (v: string | null | undefined) => (v === null || v === undefined || v === '' ? '—' : v)
  return (
    <dl className="mt-2 grid grid-cols-2 gap-x-6 gap-y-1 rounded border border-slate-200 bg-white p-3 text-sm sm:grid-cols-3 lg:grid-cols-6">
      <div>
        <dt className="text-slate-700">Number</dt>
        <dd className="font-medium">
          {formatPhone(page?.number ?? number)}{' '}
          <span className="font-mono text-xs text-slate-700 select-all">{page?.number ?? number}</span>
        </dd>
      </div>
      <div>
        <dt className="text-slate-700">tid</dt>
        <dd className="font-mono text-xs break-all select-all">{page?.tid ?? tid}</dd>
      </div>
      <div>
        <dt className="text-slate-700">Opt-in</dt>
        <dd>{dash(page?.optin)}</dd>
      </div>
      <div>
        <dt className="text-slate-700">Total messages</dt>
        <dd className="tabular-nums">{page ? formatCount(page.total) : failed ? '—' : '…'}</dd>
      </div>
      <div>
        <dt className="text-slate-700">Created</dt>
        {/* The API does not state created_date's zone (spec §2.3); read as GMT like GMTdate, and the raw value is on hover. */}
        <dd title={created === null ? undefined : `As sent: ${page?.createdDate ?? ''} (zone not stated by the API, read as UTC)`}>
          {created === null ? dash(page?.createdDate) : formatDate(created, zone)}
        </dd>
      </div>
      <div>
        <dt className="text-slate-700">Most recent</dt>
        <dd>
          <span title={recent === null ? undefined : exactUtc(recent)}>
            {recent === null ? dash(page?.mostRecentDate) : formatDate(recent, zone)}
          </span>
          <span className="block font-mono text-xs text-slate-700">id {dash(page?.mostRecentId)}</span>
        </dd>
      </div>
    </dl>
  )
}
