import { useRouter } from '@tanstack/react-router'
import type { MouseEvent, ReactNode } from 'react'
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

/**
 * A link to a number's history that behaves as the router's Link does here: a plain click
 * navigates inside the app, a click with a modifier (new tab, new window, download) or any other
 * button is left to the browser, and the page's code starts loading when the link is hovered,
 * focused or touched. It reads the router from context and subscribes to nothing, so a row never
 * re-renders for a location change.
 */
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
  const router = useRouter()
  const target = { to: '/numbers/$number', params: { number }, search: { tid } } as const
  const preload = () => void router.preloadRoute(target).catch(() => undefined)
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.altKey || e.ctrlKey || e.shiftKey) return
    e.preventDefault()
    void router.navigate(target)
  }
  return (
    <a
      href={historyHref(number, tid)}
      className={className}
      onClick={onClick}
      onMouseEnter={preload}
      onFocus={preload}
      onTouchStart={preload}
    >
      {children}
    </a>
  )
}
