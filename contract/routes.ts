/**
 * The route table: a path is matched once, here, into a typed route the layout renders. Query
 * strings are parsed by each page's schema (src/lib/route-params.ts), also once, in app.tsx.
 * The server reads it too: it names the first page's code in the app shell's Link header
 * (proxy/static.ts), so that code downloads beside the entry chunk instead of after it.
 */
export type Route =
  | { name: 'numbers' }
  | { name: 'history'; number: string }
  | { name: 'thread'; number: string }
  | { name: 'message'; number: string; ordinal: number }
  | { name: 'search' }
  | { name: 'charts' }
  | { name: 'index' }
  | { name: 'signin' }
  | { name: 'users' }
  | { name: 'access-log' }
  | { name: 'needs-reply' }
  | { name: 'opt-outs' }
  | { name: 'customer' }
  | { name: 'quiet-hours' }
  | { name: 'segments' }
  | { name: 'not-found' }

function segment(raw: string | undefined): string | null {
  if (raw === undefined) return null
  try {
    return decodeURIComponent(raw)
  } catch {
    return null
  }
}

export function matchRoute(pathname: string): Route {
  if (pathname === '/') return { name: 'numbers' }
  if (pathname === '/search') return { name: 'search' }
  if (pathname === '/charts') return { name: 'charts' }
  if (pathname === '/index') return { name: 'index' }
  if (pathname === '/signin') return { name: 'signin' }
  if (pathname === '/admin/users') return { name: 'users' }
  if (pathname === '/admin/access-log') return { name: 'access-log' }
  if (pathname === '/desk/needs-reply') return { name: 'needs-reply' }
  if (pathname === '/desk/opt-outs') return { name: 'opt-outs' }
  if (pathname === '/desk/customer') return { name: 'customer' }
  if (pathname === '/desk/quiet-hours') return { name: 'quiet-hours' }
  if (pathname === '/desk/segments') return { name: 'segments' }
  const m = /^\/numbers\/([^/]+)(?:\/(thread)|\/messages\/(\d{1,15}))?\/?$/.exec(pathname)
  const number = segment(m?.[1])
  if (m && number !== null) {
    if (m[2]) return { name: 'thread', number }
    if (m[3]) return { name: 'message', number, ordinal: Number(m[3]) }
    return { name: 'history', number }
  }
  return { name: 'not-found' }
}

/**
 * The module of each page that src/app/app.tsx loads on demand (a path from the repository's
 * root, as Vite's build manifest names it). The numbers list is in the entry chunk. A test
 * checks that app.tsx imports each of these lazily.
 */
export const LAZY_PAGE_MODULES: Partial<Record<Route['name'], string>> = {
  history: 'src/features/history/history-page.tsx',
  thread: 'src/features/thread/thread-page.tsx',
  message: 'src/features/message/message-page.tsx',
  search: 'src/features/search/search-page.tsx',
  charts: 'src/features/charts/charts-page.tsx',
  index: 'src/features/index-admin/index-page.tsx',
  signin: 'src/features/access/sign-in-page.tsx',
  users: 'src/features/access/users-page.tsx',
  'access-log': 'src/features/access/access-log-page.tsx',
  'needs-reply': 'src/features/desk/needs-reply-page.tsx',
  'opt-outs': 'src/features/desk/opt-outs-page.tsx',
  customer: 'src/features/desk/customer-page.tsx',
  'quiet-hours': 'src/features/desk/quiet-hours-page.tsx',
  segments: 'src/features/desk/segments-page.tsx',
}
