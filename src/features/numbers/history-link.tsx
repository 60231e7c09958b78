import type { ReactNode } from 'react'
import { PlainLink } from '../../components/plain-link'
import { stringifySearch } from '../../lib/route-params'

/**
 * The history page's address for a number, as the router writes it (`/numbers/$number`, the tid
 * in the query; history-link.test.tsx checks the two agree). Written here by hand because the
 * router's general path (buildLocation, once per link and again on every location change) was
 * most of what a row of the numbers table cost on its first screenful.
 */
export function historyHref(number: string, tid: string): string {
  return `/numbers/${encodeURIComponent(number)}${stringifySearch({ tid })}`
}

/** A link to a number's history (components/plain-link.tsx: the router's behaviour, no subscription). */
export function HistoryLink({
  number,
  tid,
  className,
  children,
}: {
  number: string
  tid: string
  className?: string
  children: ReactNode
}) {
  return (
    <PlainLink href={historyHref(number, tid)} to={{ to: '/numbers/$number', params: { number }, search: { tid } }} className={className}>
      {children}
    </PlainLink>
  )
}
