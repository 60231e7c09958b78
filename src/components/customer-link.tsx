import type { ReactNode } from 'react'
import { paths } from '../lib/paths'
import { formatPhone } from '../lib/phone'
import { Link } from '../lib/router'

/**
 * A party, as a link to their customer page (everything about them across every number). Every
 * place a party appears uses it, so the customer is always one click away.
 */
export function CustomerLink({ party, children, className }: { party: string; children?: ReactNode; className?: string }) {
  const digits = party.replace(/\D/g, '')
  if (!digits) return <>{children ?? formatPhone(party)}</>
  return (
    <Link
      href={paths.customer(digits)}
      className={className ?? 'inline-flex min-h-6 items-center text-blue-800 underline'}
      aria-label={`Customer ${formatPhone(party)}: everything across every number`}
    >
      {children ?? formatPhone(party)}
    </Link>
  )
}
