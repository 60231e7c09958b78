/**
 * The route table: a path is matched once, here, into a typed route the layout renders. Query
 * strings are parsed by each page's schema (src/lib/route-params.ts), also once, in app.tsx.
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
  const m = /^\/numbers\/([^/]+)(?:\/(thread)|\/messages\/(\d{1,15}))?\/?$/.exec(pathname)
  const number = segment(m?.[1])
  if (m && number !== null) {
    if (m[2]) return { name: 'thread', number }
    if (m[3]) return { name: 'message', number, ordinal: Number(m[3]) }
    return { name: 'history', number }
  }
  return { name: 'not-found' }
}
