import { useRouter } from '@tanstack/react-router'
import type { MouseEvent } from 'react'
import { callbackHistoryHref } from '../../lib/callback-links'
import { formatPhone } from '../../lib/phone'
import { watchNoteWords, type WatchNote } from './watch-notes'

/**
 * What the callback watch found on this number's addresses, under the number (the audit beside
 * judges the URLs' text; this, what the address did when called), each a link to the number's callback
 * history on the Callbacks page (a plain address: it survives reload, and a modified click opens
 * it elsewhere as any link does).
 */
export function WatchNotes({ number, notes }: { number: string; notes: readonly WatchNote[] }) {
  const router = useRouter()
  const href = callbackHistoryHref(number)
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.altKey || e.ctrlKey || e.shiftKey) return
    e.preventDefault()
    void router.navigate({ href })
  }
  return (
    <ul className="mt-0.5 text-xs leading-tight" aria-label="Callback watch findings">
      {notes.map((n) => (
        <li key={`${n.target}.${n.kind}`}>
          <a href={href} onClick={onClick} className="font-medium text-red-800 underline underline-offset-2">
            <span aria-hidden="true">✕ </span>
            {watchNoteWords(n)}
            <span className="sr-only"> (callback history of {formatPhone(number)})</span>
          </a>
        </li>
      ))}
    </ul>
  )
}
