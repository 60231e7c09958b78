import { useNavigate, type RegisteredRouter, type RouteById, type RouteIds } from '@tanstack/react-router'
import { useCallback } from 'react'
import type { SearchInput } from './route-params'

type Tree = RegisteredRouter['routeTree']
/** Every page's path in the route tree (src/app/routes.tsx), e.g. `/numbers/$number`. */
export type PagePath = RouteIds<Tree>
/** The typed search of the page at `P`, as its `validateSearch` gives it. */
export type SearchOf<P extends PagePath> = RouteById<Tree, P>['types']['fullSearchSchema']

/**
 * Patch the current page's query: fields typed by the page's schema, `null` puts one back to its
 * default (and out of the URL). Push by default so back/forward walk the views; the scroll stays
 * where it is (a filter or a page of rows is not a new page). The promise settles when the
 * navigation has rendered or was cancelled (what `useUrlBound` holds a control's pick for).
 */
export function useSetParams<P extends PagePath>(from: P) {
  const navigate = useNavigate()
  return useCallback(
    // A page with no query (its search schema is empty) takes `{}`: that is the type meant here.
    // eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type
    (patch: SearchInput<SearchOf<P>>, opts: { replace?: boolean } = {}) => {
      // One cast, here: the router types `search` per destination, and `from` is generic; callers are typed by `patch`.
      return navigate({
        from,
        to: '.',
        search: (prev: Record<string, unknown>) => ({ ...prev, ...patch }),
        replace: opts.replace ?? false,
        resetScroll: false,
      } as never)
    },
    [navigate, from],
  )
}
export type SetParams<P extends PagePath> = ReturnType<typeof useSetParams<P>>
