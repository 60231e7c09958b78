import { lazy, Suspense, useEffect, type ComponentType, type ReactNode } from 'react'
import { HeaderIndexing } from './header-indexing'
import { lazyPage } from './lazy-page'
import { setSessionLostHandler } from '../api/client'
import { useExportJobs } from '../api/export-store'
import { NumbersPage } from '../features/numbers/numbers-page'
import { SavedViewsNav } from '../features/views/views-nav'
import { paths } from '../lib/paths'
import {
  chartsSearch,
  customerSearch,
  deskNumberSearch,
  historySearch,
  messageSearch,
  needsReplySearch,
  optOutsSearch,
  parseSearch,
  searchSearch,
  threadSearch,
} from '../lib/route-params'
import { useQuery } from '@tanstack/react-query'
import { needsReplyQuery } from '../api/desk'
import { useIndexStatus } from '../api/index-status'
import { formatCount } from '../lib/count'
import { Link, navigate, useLocation } from '../lib/router'
import { accessOf, useMe, type Access } from '../api/me'
import { phoneFormatting, usePhoneLibrary } from '../lib/phone'
import { matchRoute, type Route } from '../../contract/routes'

// Every page but the numbers list loads on demand: the entry chunk stays within its budget.
const historyRoute = lazyPage(
  () => import('../features/history/history-page'),
  (m) => m.HistoryPage,
)
const threadRoute = lazyPage(
  () => import('../features/thread/thread-page'),
  (m) => m.ThreadPage,
)
const messageRoute = lazyPage(
  () => import('../features/message/message-page'),
  (m) => m.MessagePage,
)
const searchRoute = lazyPage(
  () => import('../features/search/search-page'),
  (m) => m.SearchPage,
)
const indexRoute = lazyPage(
  () => import('../features/index-admin/index-page'),
  (m) => m.IndexPage,
)
const chartsRoute = lazyPage(
  () => import('../features/charts/charts-page'),
  (m) => m.ChartsPage,
)
const needsReplyRoute = lazyPage(
  () => import('../features/desk/needs-reply-page'),
  (m) => m.NeedsReplyPage,
)
const optOutsRoute = lazyPage(
  () => import('../features/desk/opt-outs-page'),
  (m) => m.OptOutsPage,
)
const customerRoute = lazyPage(
  () => import('../features/desk/customer-page'),
  (m) => m.CustomerPage,
)
const quietHoursRoute = lazyPage(
  () => import('../features/desk/quiet-hours-page'),
  (m) => m.QuietHoursPage,
)
const segmentsRoute = lazyPage(
  () => import('../features/desk/segments-page'),
  (m) => m.SegmentsPage,
)
/** The pages above by route, in the order the quiet-time preload fetches them. */
const lazyRoutes: Partial<Record<Route['name'], { preload: () => Promise<unknown> }>> = {
  search: searchRoute,
  history: historyRoute,
  thread: threadRoute,
  charts: chartsRoute,
  message: messageRoute,
  index: indexRoute,
  'needs-reply': needsReplyRoute,
  'opt-outs': optOutsRoute,
  customer: customerRoute,
  'quiet-hours': quietHoursRoute,
  segments: segmentsRoute,
}
const HistoryPage = historyRoute.Page
const ThreadPage = threadRoute.Page
const MessagePage = messageRoute.Page
const SearchPage = searchRoute.Page
const IndexPage = indexRoute.Page
const ChartsPage = chartsRoute.Page
const NeedsReplyPage = needsReplyRoute.Page
const OptOutsPage = optOutsRoute.Page
const CustomerPage = customerRoute.Page
const QuietHoursPage = quietHoursRoute.Page
const SegmentsPage = segmentsRoute.Page
const DESK_ROUTES: ReadonlySet<Route['name']> = new Set(['opt-outs', 'customer', 'quiet-hours', 'segments'])
const loadTray = () => import('../components/export-tray')
const ExportTray = lazy(() => loadTray().then((m) => ({ default: m.ExportTray })))
/**
 * The other pages' code, the export tray and libphonenumber, fetched by main.tsx once the first page has its data
 * and the browser is idle (app/preload.ts `whenQuiet`): a first visit to a page then renders with
 * no loading round (nor React's Suspense reveal throttle), without competing with the first page.
 */
export function preloadPages(): void {
  void phoneFormatting()
  void loadTray().catch(() => undefined)
  for (const r of Object.values(lazyRoutes)) void r.preload().catch(() => undefined)
}

/**
 * The module of the page at this path, when it loads on demand (null for the numbers list, in the
 * entry chunk). main.tsx waits for it before React's first render: the server's Link header has
 * usually fetched it beside the entry (proxy/page-hints.ts), so the first paint is the page
 * itself, not a "Loading…" that the page replaces a render later.
 */
export function firstPageModule(pathname: string): Promise<unknown> | null {
  return lazyRoutes[matchRoute(pathname).name]?.preload() ?? null
}

/*
 * Team access and the theme toggle are built by other rooms. Globs pick their modules up when
 * the files exist and resolve to nothing when they do not, so this file builds either way.
 */
type AnyPage = ComponentType<Record<string, never>>
const accessPages = import.meta.glob<Record<string, AnyPage>>('../features/access/*.tsx')
const accessPage = (file: string, name: string) => {
  const load = accessPages[`../features/access/${file}`]
  return load ? lazy(() => load().then((m) => ({ default: m[name] ?? Missing }))) : null
}
const SignInPage = accessPage('sign-in-page.tsx', 'SignInPage')
const UsersPage = accessPage('users-page.tsx', 'UsersPage')
const AccessLogPage = accessPage('access-log-page.tsx', 'AccessLogPage')
const UserMenu = accessPage('user-menu.tsx', 'UserMenu')

const themeModule = Object.values(import.meta.glob<{ ThemeToggle?: ComponentType }>('../components/theme-toggle.tsx', { eager: true }))[0]
const ThemeToggle = themeModule?.ThemeToggle ?? null

function Missing() {
  return <p>This page is not available in this build.</p>
}

export function App() {
  const { pathname, params } = useLocation()
  const route = matchRoute(pathname)
  const meQ = useMe()
  const me = meQ.data
  // A number formatted before libphonenumber was here is written again once it is (lib/phone.ts).
  usePhoneLibrary()
  // The tray (and the streaming code behind it) loads with the first export.
  const exporting = useExportJobs().length > 0
  const access: Access = accessOf(me)
  const isAdmin = access === 'admin'

  // Our own server said the session is gone: sign in, then come back here.
  useEffect(() => {
    setSessionLostHandler(() => {
      const here = window.location.pathname + window.location.search
      if (window.location.pathname !== '/signin') navigate(paths.signIn(here), { replace: true })
    })
    return () => setSessionLostHandler(null)
  }, [])

  const navLink = (href: string, label: string, current: boolean) => (
    <Link
      href={href}
      className="text-sm text-slate-700 underline-offset-2 hover:underline aria-[current=page]:font-semibold"
      aria-current={current ? 'page' : undefined}
    >
      {label}
    </Link>
  )

  return (
    <div className="min-h-screen">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:bg-white focus:p-2">
        Skip to content
      </a>
      <header className="border-b border-slate-200 bg-white print:hidden">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-4 px-4 py-3">
          <Link href="/" className="text-lg font-bold text-blue-800">
            Switchboard
          </Link>
          <nav aria-label="Main" className="flex flex-wrap gap-4">
            {navLink(
              '/',
              'Numbers',
              route.name === 'numbers' || route.name === 'history' || route.name === 'thread' || route.name === 'message',
            )}
            {navLink(paths.search(), 'Search', route.name === 'search')}
            {navLink(paths.charts(), 'Charts', route.name === 'charts')}
            <NeedsReplyNavLink current={route.name === 'needs-reply'} signedIn={!!me && (me.mode === 'local' || me.user !== null)} />
            {navLink(paths.optOuts(), 'Desk', DESK_ROUTES.has(route.name))}
            {navLink(paths.index(), 'Index', route.name === 'index')}
            {isAdmin && UsersPage && me && me.mode !== 'local' ? navLink(paths.users(), 'Users', route.name === 'users') : null}
            {isAdmin && AccessLogPage && me && me.mode !== 'local'
              ? navLink(paths.accessLog(), 'Access log', route.name === 'access-log')
              : null}
          </nav>
          <div className="ml-auto flex items-center gap-3">
            <HeaderIndexing />
            {ThemeToggle ? <ThemeToggle /> : null}
            {/* Nothing to show in local mode: its code is not even fetched there. */}
            {UserMenu && me && me.mode !== 'local' ? (
              <Suspense fallback={null}>
                <UserMenu />
              </Suspense>
            ) : null}
          </div>
        </div>
        <SavedViewsNav />
      </header>
      <main id="main" className="mx-auto max-w-7xl px-4 py-4" tabIndex={-1}>
        <Suspense fallback={<p role="status">Loading…</p>}>
          {/* When the server could not say who is signed in, pages offer what a viewer gets: the safe reading. */}
          <Page route={route} params={params} access={meQ.isPending ? 'unknown' : access === 'unknown' ? 'viewer' : access} />
        </Suspense>
      </main>
      {exporting ? (
        <Suspense fallback={null}>
          <ExportTray />
        </Suspense>
      ) : null}
    </div>
  )
}

/** `access` is 'unknown' only while the server has not said who is signed in. */
function Page({ route, params, access }: { route: Route; params: URLSearchParams; access: Access }): ReactNode {
  const isAdmin = access === 'admin'
  // null: not known yet, so neither the control nor the line saying who may use it is shown.
  const canExport = access === 'unknown' ? null : isAdmin
  switch (route.name) {
    case 'numbers':
      return <NumbersPage />
    case 'history': {
      const search = parseSearch(historySearch, params)
      // Keyed by number and tid: kept-previous rows can never be another number's.
      return <HistoryPage key={`${route.number}|${search.tid}`} number={route.number} search={search} canExportAll={canExport} />
    }
    case 'thread':
      return <ThreadPage key={route.number} number={route.number} search={parseSearch(threadSearch, params)} />
    case 'message':
      return <MessagePage number={route.number} ordinal={route.ordinal} search={parseSearch(messageSearch, params)} />
    case 'search':
      return <SearchPage search={parseSearch(searchSearch, params)} canExport={canExport} />
    case 'charts':
      return <ChartsPage search={parseSearch(chartsSearch, params)} />
    case 'index':
      return <IndexPage />
    case 'signin':
      return SignInPage ? <SignInPage /> : <NotFound />
    case 'users':
      return !UsersPage ? <NotFound /> : isAdmin ? <UsersPage /> : <ForAdmins access={access} what="Users" />
    case 'access-log':
      return !AccessLogPage ? <NotFound /> : isAdmin ? <AccessLogPage /> : <ForAdmins access={access} what="The access log" />
    case 'needs-reply':
      return <NeedsReplyPage search={parseSearch(needsReplySearch, params)} admin={canExport} />
    case 'opt-outs':
      return <OptOutsPage search={parseSearch(optOutsSearch, params)} admin={canExport} />
    case 'customer':
      return <CustomerPage search={parseSearch(customerSearch, params)} admin={canExport} />
    case 'quiet-hours':
      return <QuietHoursPage search={parseSearch(deskNumberSearch, params)} admin={canExport} />
    case 'segments':
      return <SegmentsPage search={parseSearch(deskNumberSearch, params)} admin={canExport} />
    case 'not-found':
      return <NotFound />
  }
}

/**
 * "Needs reply" with the number of customers waiting, asked for once the index is known to be on
 * and someone is signed in (a count is a read of customer data, logged like any other).
 */
function NeedsReplyNavLink({ current, signedIn }: { current: boolean; signedIn: boolean }) {
  const index = useIndexStatus()
  // Asked again when the window regains focus, not on a timer: each ask is an access-log entry.
  const q = useQuery({ ...needsReplyQuery(null, 1), enabled: signedIn && index.available, refetchInterval: false })
  const total = q.data?.total
  return (
    <Link
      href={paths.needsReply()}
      className="text-sm text-slate-700 underline-offset-2 hover:underline aria-[current=page]:font-semibold"
      aria-current={current ? 'page' : undefined}
    >
      Needs reply
      {total !== undefined ? (
        <span className="ml-1 rounded-full bg-amber-100 px-1.5 text-xs font-semibold text-amber-950 tabular-nums">
          <span className="sr-only">: </span>
          {formatCount(total)}
          <span className="sr-only"> waiting</span>
        </span>
      ) : null}
    </Link>
  )
}

/** An admin page opened by someone who is not (yet known to be) an admin: say so, not "not found". */
function ForAdmins({ access, what }: { access: Access; what: string }) {
  if (access === 'unknown') return <p role="status">Checking who is signed in…</p>
  return (
    <section aria-labelledby="for-admins-heading">
      <h1 id="for-admins-heading" className="text-xl font-semibold">
        {what} is for admins
      </h1>
      <p className="mt-2">
        You are signed in as a viewer, so this page is not open to you. An admin of your team can open it, or make you an admin.{' '}
        <Link href="/">Go to the numbers list</Link>.
      </p>
    </section>
  )
}

function NotFound() {
  return (
    <section>
      <h1 className="text-xl font-semibold">Page not found</h1>
      <p className="mt-2">
        There is nothing at this address. <Link href="/">Go to the numbers list</Link>.
      </p>
    </section>
  )
}
