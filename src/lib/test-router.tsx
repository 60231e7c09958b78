import { createMemoryHistory, createRootRoute, createRouter, RouterContextProvider, type AnyRouter } from '@tanstack/react-router'
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
