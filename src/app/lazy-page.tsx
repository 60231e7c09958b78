import { lazy, useState, type ComponentType } from 'react'

/**
 * A page loaded on demand that can also be fetched ahead (`preload`). Once its module is here, a
 * new mount renders the page itself, with no Suspense round (no fallback, no reveal throttle); a
 * page that mounted before its module arrived stays the lazy wrapper for its whole life, so it is
 * never remounted and never loses its state.
 */
export function lazyPage<M, P extends object>(load: () => Promise<M>, pick: (m: M) => ComponentType<P>) {
  let loaded: ComponentType<P> | null = null
  let pending: Promise<ComponentType<P>> | null = null
  const preload = () => {
    pending ??= load().then(
      (m) => (loaded = pick(m)),
      (err: unknown) => {
        pending = null // a failed fetch (offline, a new deploy) is tried again next time
        throw err
      },
    )
    return pending
  }
  const Lazy = lazy(() => preload().then((c) => ({ default: c })))
  function Page(props: P) {
    const [Component] = useState<ComponentType<P>>(() => loaded ?? (Lazy as unknown as ComponentType<P>))
    return <Component {...props} />
  }
  return { Page, preload }
}
