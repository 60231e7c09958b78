import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  RouterContextProvider,
  type AnyRouter,
} from '@tanstack/react-router'
import { useState, type ReactNode } from 'react'
import { parseSearchString, stringifySearch } from './route-params'

/**
 * For component tests (`render(ui, { wrapper: TestRouter })`): the UI inside a router, so its
 * links and navigations work as in the app (the URL's own words, the same parse and stringify),
 * rendered at once rather than after the router's first load. No route tree is needed to build
 * links; the app's tree types them at compile time.
 */
export function TestRouter({ children, url = '/' }: { children: ReactNode; url?: string }) {
  const [router] = useState<AnyRouter>(() =>
    createRouter({
      routeTree: createRootRoute(),
      history: createMemoryHistory({ initialEntries: [url] }),
      parseSearch: parseSearchString,
      stringifySearch,
    }),
  )
  return <RouterContextProvider router={router}>{children}</RouterContextProvider>
}

/**
 * For tests of URL-bound controls: a real router with one page at `path`, whose navigations
 * commit only when the test says so. The page's loader depends on its whole query and, for a
 * query `hold` picks out, waits for `release()`; until then the router keeps the old query
 * rendered, as it does on a busy machine while a page renders under a new one.
 */
export function createHeldRouter<I, S extends Record<string, unknown>>({
  path,
  validateSearch,
  hold,
  component,
  url,
}: {
  path: string
  validateSearch: (input: I) => S
  hold: (search: Readonly<Record<string, unknown>>) => boolean
  component: () => ReactNode
  url: string
}) {
  let release: () => void = () => undefined
  const rootRoute = createRootRoute()
  const page = createRoute({
    getParentRoute: () => rootRoute,
    path,
    validateSearch,
    loaderDeps: ({ search }): Readonly<Record<string, unknown>> => search,
    loader: ({ deps }) =>
      hold(deps)
        ? new Promise<void>((resolve) => {
            release = resolve
          })
        : undefined,
    component,
  })
  const router = createRouter({
    routeTree: rootRoute.addChildren([page]),
    history: createMemoryHistory({ initialEntries: [url] }),
    parseSearch: parseSearchString,
    stringifySearch,
    // The old page stays up while the new one loads, however long: no pending component swap.
    defaultPendingMs: 60_000,
  })
  return {
    router,
    /** The query the page has rendered (committed), not the one asked for. */
    committed: () => router.state.matches[router.state.matches.length - 1]?.search as S | undefined,
    release: () => {
      release()
    },
  }
}
