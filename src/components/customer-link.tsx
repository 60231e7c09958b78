import type { ReactNode } from 'react'
import { formatPhone } from '../lib/phone'
import { PAGES } from '../../contract/pages'
import { customerSearch } from '../lib/route-params'
import { linkSearch, pathHref } from '../lib/link-href'
import { PlainLink } from './plain-link'

/**
 * A party, as a link to their customer page (everything about them across every number). Every
 * place a party appears uses it, so the customer is always one click away.
 */
export function CustomerLink({ party, children, className }: { party: string; children?: ReactNode; className?: string }) {
  const digits = party.replace(/\D/g, '')
  if (!digits) return <>{children ?? formatPhone(party)}</>
  return (
    <PlainLink
      href={customerHref(digits)}
      to={{ to: '/desk/customer', search: { party: digits } }}
      className={className ?? 'inline-flex min-h-6 items-center text-blue-800 underline'}
      // Named for where it goes when its text is the bare number; given words name themselves.
      aria-label={children === undefined ? `Customer ${formatPhone(party)}: everything across every number` : undefined}
    >
      {children ?? formatPhone(party)}
    </PlainLink>
  )
}

/**
 * The same link as a small person icon beside a party shown elsewhere (a table cell that already
 * links to the thread). It has no visible text, so cell text read by tests and screen readers'
 * table navigation stay the party's number; its name says where it goes.
 */
export function CustomerIconLink({ party }: { party: string | null }) {
  const digits = party?.replace(/\D/g, '') ?? ''
  if (!digits) return null
  return (
    <PlainLink
      href={customerHref(digits)}
      to={{ to: '/desk/customer', search: { party: digits } }}
      className="ml-1 inline-flex h-6 w-6 items-center justify-center rounded align-middle text-blue-800 hover:bg-blue-50 print:hidden"
      aria-label={`Customer ${formatPhone(party)}: everything across every number`}
      title="Everything about this customer, across every number"
    >
      <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" fill="currentColor">
        <circle cx="8" cy="5" r="3" />
        <path d="M2 15c0-3.3 2.7-5.5 6-5.5s6 2.2 6 5.5z" />
      </svg>
    </PlainLink>
  )
}

/** The customer page's address for a party's digits, as the router writes it (customer-link.test.tsx). */
export function customerHref(digits: string): string {
  return `${pathHref(PAGES.customer.path, {})}${linkSearch(customerSearch, { party: digits })}`
}
