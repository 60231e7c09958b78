import { useEffect, useState, type ComponentType } from 'react'

/**
 * A page loaded on demand that can also be fetched ahead (`preload`). No React.lazy and no
 * Suspense: a page whose module is not here yet shows "Loading…" and renders itself the moment
 * the module arrives. Suspense would hold that reveal back for up to 300 ms (React's reveal
 * throttle), which on a first visit delayed the page's own requests and its largest paint (a
 * history on a throttled phone: module in at ~1.7 s, first request ~0.45 s later). Once the
 * module is here, a new mount renders the page at once. A failed load is thrown to the nearest
 * error boundary, as React.lazy's was, and tried again on the next mount.
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
  function Page(props: P) {
    const [state, setState] = useState<{ page: ComponentType<P> | null; error?: unknown }>(() => {
      // The module's request leaves with the first render, not after the commit (preload is idempotent).
      if (!loaded) preload().catch(() => undefined)
      return { page: loaded }
    })
    useEffect(() => {
      if (state.page || state.error) return
      let live = true
      preload().then(
        (page) => live && setState({ page }),
        (error: unknown) => live && setState({ page: null, error }),
      )
      return () => {
        live = false
      }
    }, [state])
    if (state.error) throw state.error
    if (!state.page) return <p role="status">Loading…</p>
    const Component = state.page
    return <Component {...props} />
  }
  return { Page, preload }
}
