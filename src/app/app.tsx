import { lazy, Suspense } from 'react'
import { NumbersPage } from '../features/numbers/numbers-page'
import { Link, useLocation } from './router'

// The history page is a second view; its code (media viewer, conversation view) loads on demand.
const HistoryPage = lazy(() => import('../features/history/history-page').then((m) => ({ default: m.HistoryPage })))

export function App() {
  const { pathname } = useLocation()
  const historyMatch = /^\/numbers\/([^/]+)$/.exec(pathname)
  return (
    <div className="min-h-screen">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:bg-white focus:p-2">
        Skip to content
      </a>
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl items-center gap-4 px-4 py-3">
          <Link href="/" className="text-lg font-bold text-blue-800">
            Switchboard
          </Link>
          <nav aria-label="Main">
            <Link href="/" className="text-sm text-slate-700 underline-offset-2 hover:underline" aria-current={historyMatch ? undefined : 'page'}>
              Numbers
            </Link>
          </nav>
        </div>
      </header>
      <main id="main" className="mx-auto max-w-7xl px-4 py-4" tabIndex={-1}>
        {historyMatch ? (
          <Suspense fallback={<p role="status">Loading…</p>}>
            <HistoryPage number={decodeURIComponent(historyMatch[1] ?? '')} />
          </Suspense>
        ) : pathname === '/' ? (
          <NumbersPage />
        ) : (
          <section>
            <h1 className="text-xl font-semibold">Page not found</h1>
            <p className="mt-2">
              There is nothing at this address. <Link href="/">Go to the numbers list</Link>.
            </p>
          </section>
        )}
      </main>
    </div>
  )
}
