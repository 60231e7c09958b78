import { useCallback, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react'

/**
 * A deliberately small router: the URL is the state (path + query string), so reload,
 * back/forward and shared links reproduce the view. Routes are matched once in contract/routes.ts
 * and each route's query string is parsed once by its schema (src/lib/route-params.ts).
 * Kept instead of TanStack Router: it is not installed here (no new dependency this round), this
 * file is ~70 lines with no cost to the entry chunk, and the one thing the library would add,
 * validated search params, is done by the per-route zod schemas.
 */

const listeners = new Set<() => void>()
const notify = () => listeners.forEach((l) => l())
if (typeof window !== 'undefined') window.addEventListener('popstate', notify)

function subscribe(l: () => void) {
  listeners.add(l)
  return () => listeners.delete(l)
}
const snapshot = () => window.location.pathname + window.location.search

export function navigate(to: string, opts: { replace?: boolean } = {}) {
  if (to === snapshot()) return
  if (opts.replace) window.history.replaceState(null, '', to)
  else window.history.pushState(null, '', to)
  notify()
}

export function useLocationString(): string {
  return useSyncExternalStore(subscribe, snapshot, snapshot)
}

export function useLocation(): { pathname: string; params: URLSearchParams } {
  const loc = useLocationString()
  const q = loc.indexOf('?')
  return { pathname: q < 0 ? loc : loc.slice(0, q), params: new URLSearchParams(q < 0 ? '' : loc.slice(q)) }
}

/** Patch query parameters; `null`/'' removes one. Push by default so back/forward walk the views. */
export function useSetParams() {
  return useCallback((patch: Record<string, string | number | null | undefined>, opts: { replace?: boolean } = {}) => {
    const params = new URLSearchParams(window.location.search)
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || v === undefined || v === '') params.delete(k)
      else params.set(k, String(v))
    }
    // Commas stay commas (`severity=problem,look`): legal in a query (RFC 3986 sub-delims), read back the same, and a shared link stays legible.
    const qs = params.toString().replace(/%2C/gi, ',')
    navigate(window.location.pathname + (qs ? `?${qs}` : ''), opts)
  }, [])
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e)
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    navigate(href)
    window.scrollTo(0, 0)
  }
  return <a href={href} onClick={handle} {...rest} />
}
