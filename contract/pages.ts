/**
 * Every page of the browser app: its path (TanStack Router's syntax, `$name` for a segment), its
 * title (the browser tab's, before " · Switchboard"; a number's pages add the number) and,
 * when it loads on demand, its module (a path from the repository's root, as Vite's build
 * manifest names it). The route tree (src/app/routes.tsx) takes each path from here, and a test
 * checks it imports each module lazily; the server reads the same table to name the first page's
 * chunks in the app shell's Link header (proxy/page-hints.ts), which cannot import the tree
 * itself (it is React code).
 */
export const PAGES = {
  numbers: { path: '/', title: 'Numbers' },
  history: { path: '/numbers/$number', title: 'History', module: 'src/features/history/history-page.tsx' },
  thread: { path: '/numbers/$number/thread', title: 'Thread', module: 'src/features/thread/thread-page.tsx' },
  message: { path: '/numbers/$number/messages/$ordinal', title: 'Message', module: 'src/features/message/message-page.tsx' },
  search: { path: '/search', title: 'Search', module: 'src/features/search/search-page.tsx' },
  charts: { path: '/charts', title: 'Charts', module: 'src/features/charts/charts-page.tsx' },
  index: { path: '/index', title: 'Message index', module: 'src/features/index-admin/index-page.tsx' },
  signin: { path: '/signin', title: 'Sign in', module: 'src/features/access/sign-in-page.tsx' },
  users: { path: '/admin/users', title: 'Users', module: 'src/features/access/users-page.tsx' },
  'access-log': { path: '/admin/access-log', title: 'Access log', module: 'src/features/access/access-log-page.tsx' },
  'needs-reply': { path: '/desk/needs-reply', title: 'Needs reply', module: 'src/features/desk/needs-reply-page.tsx' },
  'opt-outs': { path: '/desk/opt-outs', title: 'Opt-outs', module: 'src/features/desk/opt-outs-page.tsx' },
  customer: { path: '/desk/customer', title: 'Customer', module: 'src/features/desk/customer-page.tsx' },
  'quiet-hours': { path: '/desk/quiet-hours', title: 'Quiet hours', module: 'src/features/desk/quiet-hours-page.tsx' },
  segments: { path: '/desk/segments', title: 'Encoding and segments', module: 'src/features/desk/segments-page.tsx' },
  callbacks: { path: '/callbacks', title: 'Callbacks', module: 'src/features/callbacks/callbacks-page.tsx' },
  alerts: { path: '/alerts', title: 'Alerts', module: 'src/features/alerts/alerts-page.tsx' },
} as const satisfies Record<string, { path: string; title: string; module?: string }>

export type PageName = keyof typeof PAGES

/** A message's ordinal in a path: 1 to 15 digits (oldest = 1). */
export const ORDINAL = /^\d{1,15}$/

/**
 * The page at this path, for the server, which cannot run the route tree: a literal segment
 * matches itself, `$name` one segment that decodes (and `$ordinal` digits only); a trailing
 * slash is allowed. The route tree matches the same paths; a test holds the two together.
 */
export function matchPage(pathname: string): PageName | null {
  const parts = pathname.replace(/\/+$/, '').split('/').slice(1)
  for (const [name, page] of Object.entries(PAGES) as [PageName, { path: string }][]) {
    const pattern = page.path === '/' ? [] : page.path.split('/').slice(1)
    if (pattern.length === parts.length && pattern.every((seg, i) => segmentMatches(seg, parts[i] ?? ''))) return name
  }
  return null
}

function segmentMatches(pattern: string, raw: string): boolean {
  if (!pattern.startsWith('$')) return pattern === raw
  if (raw === '') return false
  try {
    const value = decodeURIComponent(raw)
    return pattern === '$ordinal' ? ORDINAL.test(value) : true
  } catch {
    return false
  }
}
