import { useRouter, type NavigateOptions } from '@tanstack/react-router'
import type { MouseEvent, ReactNode } from 'react'

/**
 * A link inside the app that behaves as the router's Link does here, for the links a table row
 * holds: a plain click navigates inside the app, a click with a modifier (new tab, new window,
 * download) or any other button is left to the browser, and the page's code starts loading when
 * the link is hovered, focused or touched. Its address is written by the caller (lib/link-href.ts;
 * src/app/row-links.test.tsx checks them against the router's). It subscribes to nothing and
 * builds no location: the router's Link did both once per link, and on the 1,000-message history
 * that was a quarter of the work of each scroll step's new rows (three links a row).
 */
export function PlainLink({
  href,
  to,
  className,
  title,
  'aria-label': ariaLabel,
  children,
}: {
  href: string
  to: NavigateOptions
  className?: string
  title?: string
  'aria-label'?: string
  children: ReactNode
}) {
  const router = useRouter()
  const preload = () => void router.preloadRoute(to).catch(() => undefined)
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.altKey || e.ctrlKey || e.shiftKey) return
    e.preventDefault()
    void router.navigate(to)
  }
  return (
    <a
      href={href}
      className={className}
      title={title}
      aria-label={ariaLabel}
      onClick={onClick}
      onMouseEnter={preload}
      onFocus={preload}
      onTouchStart={preload}
    >
      {children}
    </a>
  )
}
