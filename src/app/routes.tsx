import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  redirect,
  useRouter,
  type AsyncRouteComponent,
  type ErrorComponentProps,
} from '@tanstack/react-router'
import type { ComponentType, ReactNode } from 'react'
import { ORDINAL, PAGES } from '../../contract/pages'
import { CodeLoadAlert, ErrorAlert } from '../components/alert'
import { TableSkeleton } from '../components/empty-state'
import { NumbersPage } from '../features/numbers/numbers-page'
import { numberOfKey } from '../../contract/lines'
import {
  accessLogSearch,
  callbacksSearch,
  alertsSearch,
  chartsSearch,
  customerSearch,
  deskNumberSearch,
  historySearch,
  messageSearch,
  needsReplySearch,
  numbersSearch,
  optOutsSearch,
  parseSearchString,
  searchSearch,
  searchValidator,
  signInSearch,
  stringifySearch,
  stripDefaults,
  threadSearch,
} from '../lib/route-params'
import { isModuleLoadError } from '../lib/module-load'
import { usePhoneLibrary } from '../lib/phone'
import { mayAt, mayDo } from '../api/me'
import { ForAdmins, Layout, NotFound, usePageAccess } from './layout'

/**
 * The one route tree of the browser app (TanStack Router, routes in code). Each page is a route
 * with its path (from contract/pages.ts, which the server reads too), its query schema
 * (`validateSearch`, src/lib/route-params.ts), a pending and an error component, and, but for
 * the numbers list in the entry chunk, a component loaded on demand and preloaded when a link to
 * it is hovered or focused. Links and navigations elsewhere are typed against this tree.
 *
 * To add a page: its path in contract/pages.ts, its schema in route-params.ts, a route below,
 * and the route in `routeTree`.
 */

const rootRoute = createRootRoute({ component: Layout, notFoundComponent: NotFound })

/** Shown while a page's code is on its way (after the router's pending delay, so a quick load shows nothing). */
function pending(what: string) {
  return function PagePending() {
    return <TableSkeleton rows={4} label={`Loading ${what}…`} />
  }
}

/** A page that failed to load or threw: what went wrong in the app's words, and a retry. */
function failed(what: string) {
  return function PageError({ error, reset }: ErrorComponentProps) {
    const router = useRouter()
    if (isModuleLoadError(error)) return <CodeLoadAlert where={what} />
    return (
      <ErrorAlert
        error={error}
        where={what}
        onRetry={() => {
          reset()
          void router.invalidate()
        }}
      />
    )
  }
}

/**
 * A route component that renders a page loaded on demand, carrying that page's `preload`: the
 * router loads the page's code before it renders the route (and on intent, before the click), so
 * the route renders the page at once instead of suspending on it. It also renders the page again
 * when libphonenumber lands: the router does not re-render a page when the layout does, and a
 * number the page took from its URL (a history whose answer is an error) is then formatted.
 */
function onDemand<P>(page: AsyncRouteComponent<P>, Route: ComponentType): AsyncRouteComponent<Record<string, never>> {
  function PageRoute() {
    usePhoneLibrary()
    return <Route />
  }
  return Object.assign(PageRoute, { preload: page.preload })
}

/** Export controls: null while the server has not said who is signed in (neither the control nor its explanation shows). */
function useCanExport(): boolean | null {
  const access = usePageAccess()
  return mayDo(access, 'exportIndex')
}

/**
 * An admin's controls on pages everyone reads (the desk's threshold, a chart's or the callbacks'
 * "check now"): their routes are an admin's, so an agent who exports is not offered them.
 */
function useIsAdmin(): boolean | null {
  return mayAt(usePageAccess(), 'admin')
}

const HistoryPage = lazyRouteComponent(() => import('../features/history/history-page'), 'HistoryPage')
const ThreadPage = lazyRouteComponent(() => import('../features/thread/thread-page'), 'ThreadPage')
const MessagePage = lazyRouteComponent(() => import('../features/message/message-page'), 'MessagePage')
const SearchPage = lazyRouteComponent(() => import('../features/search/search-page'), 'SearchPage')
const ChartsPage = lazyRouteComponent(() => import('../features/charts/charts-page'), 'ChartsPage')
const IndexPage = lazyRouteComponent(() => import('../features/index-admin/index-page'), 'IndexPage')
const SignInPage = lazyRouteComponent(() => import('../features/access/sign-in-page'), 'SignInPage')
const UsersPage = lazyRouteComponent(() => import('../features/access/users-page'), 'UsersPage')
const AccessLogPage = lazyRouteComponent(() => import('../features/access/access-log-page'), 'AccessLogPage')
const NeedsReplyPage = lazyRouteComponent(() => import('../features/desk/needs-reply-page'), 'NeedsReplyPage')
const OptOutsPage = lazyRouteComponent(() => import('../features/desk/opt-outs-page'), 'OptOutsPage')
const CustomerPage = lazyRouteComponent(() => import('../features/desk/customer-page'), 'CustomerPage')
const QuietHoursPage = lazyRouteComponent(() => import('../features/desk/quiet-hours-page'), 'QuietHoursPage')
const SegmentsPage = lazyRouteComponent(() => import('../features/desk/segments-page'), 'SegmentsPage')
const CallbacksPage = lazyRouteComponent(() => import('../features/callbacks/callbacks-page'), 'CallbacksPage')
const AlertsPage = lazyRouteComponent(() => import('../features/alerts/alerts-page'), 'AlertsPage')

const numbersRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.numbers.path,
  validateSearch: searchValidator(numbersSearch),
  search: { middlewares: [stripDefaults(numbersSearch)] },
  component: function NumbersRoute() {
    usePhoneLibrary()
    return <NumbersPage search={numbersRoute.useSearch()} />
  },
  pendingComponent: pending('the numbers'),
  errorComponent: failed('the numbers'),
})

const historyRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.history.path,
  validateSearch: searchValidator(historySearch),
  search: { middlewares: [stripDefaults(historySearch)] },
  component: onDemand(HistoryPage, function HistoryRoute() {
    // A further line's key (contract/lines.ts: a search result's "In history") is its number's
    // history under the line's tid, which the link names.
    const number = numberOfKey(historyRoute.useParams().number)
    const search = historyRoute.useSearch()
    const canExport = useCanExport()
    // Keyed by number and tid: kept-previous rows can never be another number's.
    return <HistoryPage key={`${number}|${search.tid}`} number={number} search={search} canExportAll={canExport} />
  }),
  pendingComponent: pending('the history'),
  errorComponent: failed('the history'),
})

const threadRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.thread.path,
  validateSearch: searchValidator(threadSearch),
  search: { middlewares: [stripDefaults(threadSearch)] },
  component: onDemand(ThreadPage, function ThreadRoute() {
    const { number } = threadRoute.useParams()
    return <ThreadPage key={number} number={number} search={threadRoute.useSearch()} />
  }),
  pendingComponent: pending('the conversation'),
  errorComponent: failed('the conversation'),
})

const messageRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.message.path,
  validateSearch: searchValidator(messageSearch),
  search: { middlewares: [stripDefaults(messageSearch)] },
  params: {
    // `false` is no match: `/numbers/1/messages/x` is the not-found page, as any unknown address.
    parse: ({ number, ordinal }: { number: string; ordinal: string }) =>
      ORDINAL.test(ordinal) ? { number, ordinal: Number(ordinal) } : false,
    stringify: ({ number, ordinal }: { number: string; ordinal: number }) => ({ number, ordinal: String(ordinal) }),
  },
  component: onDemand(MessagePage, MessageRoute),
  pendingComponent: pending('the message'),
  errorComponent: failed('the message'),
})

function MessageRoute(): ReactNode {
  const { number, ordinal } = messageRoute.useParams()
  return <MessagePage number={number} ordinal={ordinal} search={messageRoute.useSearch()} />
}

const searchRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.search.path,
  validateSearch: searchValidator(searchSearch),
  search: { middlewares: [stripDefaults(searchSearch)] },
  component: onDemand(SearchPage, function SearchRoute() {
    return <SearchPage search={searchRoute.useSearch()} canExport={useCanExport()} />
  }),
  pendingComponent: pending('search'),
  errorComponent: failed('search'),
})

const chartsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.charts.path,
  validateSearch: searchValidator(chartsSearch),
  search: { middlewares: [stripDefaults(chartsSearch)] },
  component: onDemand(ChartsPage, function ChartsRoute() {
    return <ChartsPage search={chartsRoute.useSearch()} admin={useIsAdmin()} />
  }),
  pendingComponent: pending('the charts'),
  errorComponent: failed('the charts'),
})

const indexRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.index.path,
  component: onDemand(IndexPage, IndexPage),
  pendingComponent: pending('the index'),
  errorComponent: failed('the index'),
})

const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.signin.path,
  validateSearch: searchValidator(signInSearch),
  search: { middlewares: [stripDefaults(signInSearch)] },
  component: onDemand(SignInPage, function SignInRoute() {
    return <SignInPage search={signInRoute.useSearch()} />
  }),
  pendingComponent: pending('sign-in'),
  errorComponent: failed('sign-in'),
})

const usersRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.users.path,
  component: onDemand(UsersPage, function UsersRoute() {
    const access = usePageAccess()
    return mayDo(access, 'manageUsers') ? <UsersPage /> : <ForAdmins access={access} what="Users" />
  }),
  pendingComponent: pending('the users'),
  errorComponent: failed('the users'),
})

const accessLogRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES['access-log'].path,
  validateSearch: searchValidator(accessLogSearch),
  search: { middlewares: [stripDefaults(accessLogSearch)] },
  component: onDemand(AccessLogPage, function AccessLogRoute() {
    const access = usePageAccess()
    const search = accessLogRoute.useSearch()
    return mayDo(access, 'readAccessLog') ? <AccessLogPage search={search} /> : <ForAdmins access={access} what="The access log" />
  }),
  pendingComponent: pending('the access log'),
  errorComponent: failed('the access log'),
})

const needsReplyRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES['needs-reply'].path,
  validateSearch: searchValidator(needsReplySearch),
  search: { middlewares: [stripDefaults(needsReplySearch)] },
  component: onDemand(NeedsReplyPage, function NeedsReplyRoute() {
    return <NeedsReplyPage search={needsReplyRoute.useSearch()} admin={useIsAdmin()} />
  }),
  pendingComponent: pending('needs reply'),
  errorComponent: failed('needs reply'),
})

const optOutsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES['opt-outs'].path,
  validateSearch: searchValidator(optOutsSearch),
  search: { middlewares: [stripDefaults(optOutsSearch)] },
  component: onDemand(OptOutsPage, function OptOutsRoute() {
    return <OptOutsPage search={optOutsRoute.useSearch()} admin={useIsAdmin()} />
  }),
  pendingComponent: pending('the opt-outs'),
  errorComponent: failed('the opt-outs'),
})

const customerRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.customer.path,
  validateSearch: searchValidator(customerSearch),
  search: { middlewares: [stripDefaults(customerSearch)] },
  component: onDemand(CustomerPage, function CustomerRoute() {
    return <CustomerPage search={customerRoute.useSearch()} admin={useIsAdmin()} />
  }),
  pendingComponent: pending('the customer'),
  errorComponent: failed('the customer'),
})

const quietHoursRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES['quiet-hours'].path,
  validateSearch: searchValidator(deskNumberSearch),
  search: { middlewares: [stripDefaults(deskNumberSearch)] },
  component: onDemand(QuietHoursPage, function QuietHoursRoute() {
    return <QuietHoursPage search={quietHoursRoute.useSearch()} admin={useIsAdmin()} />
  }),
  pendingComponent: pending('quiet hours'),
  errorComponent: failed('quiet hours'),
})

const segmentsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.segments.path,
  validateSearch: searchValidator(deskNumberSearch),
  search: { middlewares: [stripDefaults(deskNumberSearch)] },
  component: onDemand(SegmentsPage, function SegmentsRoute() {
    return <SegmentsPage search={segmentsRoute.useSearch()} admin={useIsAdmin()} />
  }),
  pendingComponent: pending('segments'),
  errorComponent: failed('segments'),
})

const callbacksRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.callbacks.path,
  validateSearch: searchValidator(callbacksSearch),
  search: { middlewares: [stripDefaults(callbacksSearch)] },
  component: onDemand(CallbacksPage, function CallbacksRoute() {
    return <CallbacksPage search={callbacksRoute.useSearch()} admin={useIsAdmin()} />
  }),
  pendingComponent: pending('callbacks'),
  errorComponent: failed('callbacks'),
})

const alertsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: PAGES.alerts.path,
  validateSearch: searchValidator(alertsSearch),
  search: { middlewares: [stripDefaults(alertsSearch)] },
  component: onDemand(AlertsPage, function AlertsRoute() {
    return <AlertsPage search={alertsRoute.useSearch()} />
  }),
  pendingComponent: pending('alerts'),
  errorComponent: failed('alerts'),
})

/**
 * `/desk`, typed: the desk's first job, customers waiting for a reply (Needs reply), as the desk's
 * own navigation lists it first. Not a page of its own, so not in contract/pages.ts.
 */
const deskRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/desk',
  beforeLoad: () => {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- TanStack Router's redirect is thrown, not an Error
    throw redirect({ to: PAGES['needs-reply'].path, replace: true })
  },
})

export const routeTree = rootRoute.addChildren([
  numbersRoute,
  historyRoute,
  threadRoute,
  messageRoute,
  searchRoute,
  chartsRoute,
  indexRoute,
  signInRoute,
  usersRoute,
  accessLogRoute,
  needsReplyRoute,
  optOutsRoute,
  customerRoute,
  quietHoursRoute,
  segmentsRoute,
  callbacksRoute,
  alertsRoute,
  deskRoute,
])

/** The router over the tree; tests pass a memory history. */
export function createAppRouter(options: { history?: Parameters<typeof createRouter>[0]['history'] } = {}) {
  return createRouter({
    routeTree,
    history: options.history,
    // The URL's own words, not JSON (src/lib/route-params.ts): every link already shared keeps working.
    parseSearch: parseSearchString,
    stringifySearch,
    // A page's code starts loading when a link to it is hovered or focused, before the click.
    defaultPreload: 'intent',
    // No loaders fetch data here (pages use TanStack Query): preloading is the code only.
    defaultPreloadStaleTime: 0,
    // An address no page has (`/numbers/1/messages/x` too) is the not-found page inside the shell.
    notFoundMode: 'root',
  })
}

export type AppRouter = ReturnType<typeof createAppRouter>

declare module '@tanstack/react-router' {
  interface Register {
    router: AppRouter
  }
}

/** Every page's code, for the quiet-time preload (main.tsx) and the first render's wait. */
export const onDemandRoutes = [
  searchRoute,
  historyRoute,
  threadRoute,
  chartsRoute,
  messageRoute,
  indexRoute,
  needsReplyRoute,
  optOutsRoute,
  customerRoute,
  quietHoursRoute,
  segmentsRoute,
  callbacksRoute,
  alertsRoute,
  signInRoute,
  usersRoute,
  accessLogRoute,
]
