import { useQueryClient } from '@tanstack/react-query'
import { Link, Outlet, useNavigate, useRouterState } from '@tanstack/react-router'
import { lazy, Suspense, useEffect } from 'react'
import { PAGES, type PageName } from '../../contract/pages'
import { setSessionLostHandler } from '../api/client'
import { useExportJobs } from '../api/export-store'
import { aRole, LEAST_ROLE } from '../../contract/roles'
import { accessOf, mayDo, ME_KEY, useMe, type Access, type Me } from '../api/me'
import { ThemeToggle } from '../components/theme-toggle'
import { DemoBanner } from './demo-banner'
import { useFirstPageShown } from './first-page-shown'
import { formatPhone, usePhoneLibrary } from '../lib/phone'

const loadTray = () => import('../components/export-tray')
const ExportTray = lazy(() => loadTray().then((m) => ({ default: m.ExportTray })))
/** The export tray's code, for the quiet-time preload (main.tsx). */
export const preloadTray = () => loadTray().then(() => undefined)
// Shell parts the first paint does without load after it: the entry chunk stays within its budget.
const SavedViewsNav = lazy(() => import('../features/views/views-nav').then((m) => ({ default: m.SavedViewsNav })))
const HeaderIndexing = lazy(() => import('./header-indexing').then((m) => ({ default: m.HeaderIndexing })))
const NeedsReplyCount = lazy(() => import('./needs-reply-count').then((m) => ({ default: m.NeedsReplyCount })))
const UserMenu = lazy(() => import('../features/access/user-menu').then((m) => ({ default: m.UserMenu })))

const DESK_PAGES: ReadonlySet<PageName | null> = new Set(['opt-outs', 'customer', 'quiet-hours', 'segments'])
const NUMBER_PAGES: ReadonlySet<PageName | null> = new Set(['numbers', 'history', 'thread', 'message'])

/** The page the router shows, by its name in contract/pages.ts (null on the not-found page). */
function useCurrentPage(): PageName | null {
  const routeId = useRouterState({ select: (s) => s.matches[s.matches.length - 1]?.routeId })
  for (const [name, page] of Object.entries(PAGES) as [PageName, { path: string }][]) if (page.path === routeId) return name
  return null
}

/** The browser tab names the page (and the number a page is about), so tabs and history entries can be told apart. */
function useDocumentTitle(page: PageName | null) {
  const number = useRouterState({
    select: (s) => {
      const params: Record<string, unknown> = s.matches[s.matches.length - 1]?.params ?? {}
      return typeof params.number === 'string' ? params.number : undefined
    },
  })
  const title = page ? `${PAGES[page].title}${number ? ` of ${formatPhone(number)}` : ''} · Switchboard` : 'Page not found · Switchboard'
  useEffect(() => {
    document.title = title
  }, [title])
}

/**
 * Who the pages are shown to. 'unknown' only while the server has not said who is signed in;
 * when it could not say, pages offer what the least role gets: the safe reading. Never admin on a guess.
 */
export function usePageAccess(): Access {
  const meQ = useMe()
  if (meQ.isPending) return 'unknown'
  const access = accessOf(meQ.data)
  return access === 'unknown' ? LEAST_ROLE : access
}

const NAV_LINK = 'text-sm text-slate-700 underline-offset-2 hover:underline aria-[current=page]:font-semibold'
/** The router marks an exact match as current itself; the rest (a history under Numbers) is said here. */
const navProps = (current: boolean) => ({
  className: NAV_LINK,
  'aria-current': current ? ('page' as const) : undefined,
  activeOptions: { exact: true, includeSearch: false },
  activeProps: {},
})

/** The shell around every page: header, navigation, the page (`Outlet`), the export tray. */
export function Layout() {
  const page = useCurrentPage()
  useDocumentTitle(page)
  const navigate = useNavigate()
  const meQ = useMe()
  const me = meQ.data
  // A number formatted before libphonenumber was here is written again once it is (lib/phone.ts).
  usePhoneLibrary()
  // The tray (and the streaming code behind it) loads with the first export.
  const exporting = useExportJobs().length > 0
  const access = accessOf(me)
  // Signed out (the sign-in page): no navigation to pages that would only send them back here.
  const signedOut = !!me && me.mode !== 'local' && me.user === null
  // The header's secondary parts (indexing, needs-reply count, saved views) load once the first
  // page is shown, not in the middle of its data (./first-page-shown.ts).
  const extras = useFirstPageShown()

  const client = useQueryClient()
  // Our own server said the session is gone: sign in, then come back here.
  useEffect(() => {
    setSessionLostHandler(() => {
      const here = window.location.pathname + window.location.search
      // Nobody is signed in now: the header and the sign-in page said "signed in as …" until the next check.
      // "Your session ended" only where someone was signed in: a first visit's refusal is no ending.
      const ended = !!client.getQueryData<Me>(ME_KEY)?.user
      client.setQueryData<Me>(ME_KEY, (m) => (m ? { ...m, user: null } : m))
      if (window.location.pathname !== '/signin')
        void navigate({ to: '/signin', search: { next: here, ...(ended ? { ended: '1' } : {}) }, replace: true })
    })
    return () => {
      setSessionLostHandler(null)
    }
  }, [navigate, client])

  return (
    <div className="min-h-screen">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:bg-white focus:p-2">
        Skip to content
      </a>
      <header className="border-b border-slate-200 bg-white print:hidden">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-4 px-4 py-3">
          <Link to="/" className="text-lg font-bold text-blue-800" activeProps={{}}>
            Switchboard
          </Link>
          <nav aria-label="Main" className="flex flex-wrap gap-4" hidden={signedOut}>
            <Link to="/" {...navProps(NUMBER_PAGES.has(page))}>
              Numbers
            </Link>
            <Link to="/search" {...navProps(page === 'search')}>
              Search
            </Link>
            <Link to="/charts" {...navProps(page === 'charts')}>
              Charts
            </Link>
            <NeedsReplyNavLink
              current={page === 'needs-reply'}
              signedIn={!!me && (me.mode === 'local' || me.user !== null)}
              counted={extras}
            />
            <Link to="/desk/opt-outs" {...navProps(DESK_PAGES.has(page))}>
              Desk
            </Link>
            <Link to="/callbacks" {...navProps(page === 'callbacks')}>
              Callbacks
            </Link>
            <Link to="/index" {...navProps(page === 'index')}>
              Index
            </Link>
            <Link to="/alerts" {...navProps(page === 'alerts')}>
              Alerts
            </Link>
            {/* Admin pages only once the server has said so: "not loaded yet" is not admin. Local
                mode has no users to manage, but its reads are logged like any other. */}
            {mayDo(access, 'manageUsers') && me && me.mode !== 'local' ? (
              <Link to="/admin/users" {...navProps(page === 'users')}>
                Users
              </Link>
            ) : null}
            {mayDo(access, 'readAccessLog') && me ? (
              <Link to="/admin/access-log" {...navProps(page === 'access-log')}>
                Access log
              </Link>
            ) : null}
          </nav>
          {/* Wraps on a phone: the indexing indicator and the theme select side by side were wider than 320 px. */}
          <div className="ml-auto flex max-w-full flex-wrap items-center justify-end gap-3">
            {extras ? (
              <Suspense fallback={null}>
                <HeaderIndexing />
              </Suspense>
            ) : null}
            <ThemeToggle />
            {/* Nothing to show in local mode: its code is not even fetched there. */}
            {me && me.mode !== 'local' ? (
              <Suspense fallback={null}>
                <UserMenu />
              </Suspense>
            ) : null}
          </div>
        </div>
        <DemoBanner />
        {/* Signed in, the row of saved views (or the line saying there are none) is always there on a
            wider screen: its line is kept from the first paint, so its arrival moves nothing. */}
        <div className={signedOut || page === 'signin' ? undefined : 'sm:min-h-7'}>
          {extras ? (
            <Suspense fallback={null}>
              <SavedViewsNav />
            </Suspense>
          ) : null}
        </div>
      </header>
      <main id="main" className="mx-auto max-w-7xl px-4 py-4" tabIndex={-1}>
        <Outlet />
      </main>
      {exporting ? (
        <Suspense fallback={null}>
          <ExportTray />
        </Suspense>
      ) : null}
    </div>
  )
}

/** "Needs reply" with the number of customers waiting (its code loads once the first page is shown: `counted`). */
function NeedsReplyNavLink({ current, signedIn, counted }: { current: boolean; signedIn: boolean; counted: boolean }) {
  return (
    <Link to="/desk/needs-reply" {...navProps(current)}>
      Needs reply
      {counted ? (
        <Suspense fallback={null}>
          <NeedsReplyCount signedIn={signedIn} />
        </Suspense>
      ) : null}
    </Link>
  )
}

/** An admin page opened by someone who is not (yet known to be) an admin: say so, not "not found". */
export function ForAdmins({ access, what }: { access: Access; what: string }) {
  if (access === 'unknown') return <p role="status">Checking who is signed in…</p>
  return (
    <section aria-labelledby="for-admins-heading">
      <h1 id="for-admins-heading" className="text-xl font-semibold">
        {what} is for admins
      </h1>
      <p className="mt-2">
        You are signed in as {aRole(access)}, so this page is not open to you. An admin of your team can open it, or make you an admin.{' '}
        <Link to="/" className="text-blue-800 underline">
          Go to the numbers list
        </Link>
        .
      </p>
    </section>
  )
}

export function NotFound() {
  return (
    <section>
      <h1 className="text-xl font-semibold">Page not found</h1>
      <p className="mt-2">
        There is nothing at this address.{' '}
        <Link to="/" className="text-blue-800 underline">
          Go to the numbers list
        </Link>
        , or pick a page above.
      </p>
    </section>
  )
}
