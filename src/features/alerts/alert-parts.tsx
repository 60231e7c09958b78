import type { ReactNode } from 'react'
import type { AlertItem } from '../../api/alerts'

/** Pieces the Alerts page's panels share: times, a link to the rows, one alert's card. */

export const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/**
 * A link to the rows behind an alert. The server writes these as paths of this app (the desk's
 * queue, a search); anything else is not linked.
 */
export function RowsLink({ href, children }: { href: string | null; children: ReactNode }) {
  if (!href || !href.startsWith('/') || href.startsWith('//')) return null
  return (
    <a href={href} className="text-blue-800 underline">
      {children}
    </a>
  )
}

export function AlertCard({ alert, actions }: { alert: AlertItem; actions?: ReactNode }) {
  const resolved = alert.state === 'resolved'
  return (
    <li className="rounded border border-slate-200 bg-white p-3">
      <article aria-labelledby={`alert-${alert.id}`}>
        <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
          <span
            className={`rounded px-1.5 py-0.5 text-xs font-semibold ${resolved ? 'bg-green-100 text-green-900' : alert.ackedAt ? 'bg-amber-100 text-amber-900' : 'bg-red-100 text-red-900'}`}
          >
            {resolved ? 'Resolved' : alert.ackedAt ? 'Acknowledged' : 'Firing'}
          </span>
          <h3 id={`alert-${alert.id}`} className="font-semibold">
            {alert.title}
            {alert.number ? <span className="font-normal"> · {alert.number}</span> : null}
            {!alert.number && alert.subject !== 'all' ? <span className="font-normal break-all"> · {alert.subject}</span> : null}
          </h3>
        </div>
        <p className="mt-1 text-sm">{alert.detail}</p>
        <p className="mt-1 text-xs text-slate-600">
          Since {when(alert.startedAt)}
          {alert.resolvedAt ? ` · resolved ${when(alert.resolvedAt)}` : ''}
          {alert.ackedAt ? ` · acknowledged by ${alert.ackedBy ?? 'someone'} ${when(alert.ackedAt)}` : ''}
          {alert.notifiedAt ? '' : ' · no notice sent yet (silenced, or no channel)'}
        </p>
        <div className="mt-2 flex flex-wrap items-center gap-3 text-sm">
          <RowsLink href={alert.link}>
            Show the rows<span className="sr-only"> behind {alert.title}</span>
          </RowsLink>
          {actions}
        </div>
      </article>
    </li>
  )
}
