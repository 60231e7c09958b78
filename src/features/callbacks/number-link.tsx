import { useRouter } from '@tanstack/react-router'
import type { MouseEvent } from 'react'
import { callbackHistoryHref } from '../../lib/callback-links'
import { formatPhone } from '../../lib/phone'

/**
 * A number on the Callbacks page, linked to its own callback history (this page, its changes, narrowed
 * to it): a plain address that survives reload; a modified click is left to the browser.
 */
export function NumberLink({ number }: { number: string }) {
  const router = useRouter()
  const href = callbackHistoryHref(number)
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.altKey || e.ctrlKey || e.shiftKey) return
    e.preventDefault()
    void router.navigate({ href })
  }
  return (
    <a href={href} onClick={onClick} className="whitespace-nowrap text-blue-800 underline underline-offset-2">
      {formatPhone(number)}
      <span className="sr-only"> (its callback history)</span>
    </a>
  )
}

/** "Webhook of A, B and C" with each number a link; a long list shows its first few and a count. */
export function NumbersOf({ label, numbers }: { label: string; numbers: readonly string[] }) {
  if (numbers.length === 0) return null
  const shown = numbers.slice(0, SHOWN)
  const more = numbers.length - shown.length
  return (
    <p className="mt-1 text-slate-700">
      {label} of{' '}
      {shown.map((n, i) => (
        <span key={n}>
          {i > 0 ? (i === shown.length - 1 && more === 0 ? ' and ' : ', ') : null}
          <NumberLink number={n} />
        </span>
      ))}
      {more > 0 ? ` and ${more} more number${more === 1 ? '' : 's'}` : ''}
    </p>
  )
}

const SHOWN = 8
