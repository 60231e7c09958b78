import { lazy, useState, type ComponentType } from 'react'

/**
 * A page loaded on demand that can also be fetched ahead (`preload`). Once its module is here, a
 * new mount renders the page itself, with no Suspense round (no fallback, no reveal throttle); a
 * page that mounted before its module arrived stays the lazy wrapper for its whole life, so it is
 * never remounted and never loses its state.
 */
let loading = 0
/** How many page modules are on their way (the first page's own among them, until it is here). */
export const pagesLoading = () => loading

export function lazyPage<M, P extends object>(load: () => Promise<M>, pick: (m: M) => ComponentType<P>) {
  let loaded: ComponentType<P> | null = null
  let pending: Promise<ComponentType<P>> | null = null
  const preload = () => {
    if (!pending) {
      loading++
      pending = load().then(
        (m) => {
          loading--
          return (loaded = pick(m))
        },
        (err: unknown) => {
          loading--
          pending = null // a failed fetch (offline, a new deploy) is tried again next time
          throw err
        },
      )
    }
    return pending
  }
  const Lazy = lazy(() => preload().then((c) => ({ default: c })))
  function Page(props: P) {
    const [Component] = useState<ComponentType<P>>(() => loaded ?? (Lazy as unknown as ComponentType<P>))
    return <Component {...props} />
  }
  return { Page, preload }
}
