import { ACCESS_LEVELS } from '../contract/roles.ts'
import { isAction } from '../contract/vocabulary.ts'
import type { RouteSpec } from './http-types.ts'

/**
 * The rules every row of the one route table keeps, checked when the server is built: what is
 * not declared cannot run, so a row that declares one method and path twice, no access level, a
 * read with no access-log action, or a path outside the app's spelling refuses to start.
 */

export function checkRouteTable(routes: readonly RouteSpec[]): void {
  const seen = new Set<string>()
  for (const r of routes) {
    const key = `${r.method} ${r.path}`
    if (seen.has(key)) throw new Error(`route ${key} is declared twice`)
    seen.add(key)
    if (!ACCESS_LEVELS.includes(r.access)) throw new Error(`route ${key} declares no access level`)
    if (r.reads !== null && !isAction(r.reads)) throw new Error(`route ${key}: reads names an access-log action of contract/vocabulary.ts`)
    if (!r.path.startsWith('/api/')) throw new Error(`route ${r.path}: paths start with /api/`)
    for (const p of r.path.split('/').slice(1))
      if (p === '' || (p.startsWith(':') && !/^:[a-z]+$/.test(p)) || (!p.startsWith(':') && !/^[a-z0-9-]+$/.test(p)))
        throw new Error(`route ${r.path}: each segment is lower-case letters, digits and dashes, or one :name`)
  }
}

/** The methods a row answers: a GET with `head` answers HEAD too. */
export const methodsOf = (r: RouteSpec): string[] => (r.method === 'GET' && r.head ? ['GET', 'HEAD'] : [r.method])

/** Whether a request for `path` (a declared path, whose `:name` segments stand for any segment) can reach `route`. */
function overlaps(route: RouteSpec, path: string): boolean {
  const want = route.path.split('/')
  const got = path.split('/')
  return want.length === got.length && want.every((w, i) => w === got[i] || w.startsWith(':') || got[i]!.startsWith(':'))
}

/**
 * For each declared path, the methods a request for it may use (the Allow header of its 405).
 * A literal path also takes the methods of a `:name` path it fits, since the framework's router
 * falls through to that row for them.
 */
export function allowedByPath(routes: readonly RouteSpec[]): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const { path } of routes) {
    if (out.has(path)) continue
    const allow = new Set<string>()
    for (const r of routes) if (r.path === path || (!path.includes(':') && overlaps(r, path))) for (const m of methodsOf(r)) allow.add(m)
    out.set(path, [...allow])
  }
  return out
}

/**
 * The `:name` segments of `path` (as sent, no query) under the declared `pattern`, decoded, or
 * null when the path is not exactly the pattern's. The framework's router ends a path at `#`
 * and decodes before matching; this holds the route that runs to the bytes that were sent.
 */
export function paramsFor(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/')
  const got = path.split('/')
  if (want.length !== got.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!
    const g = got[i]!
    if (!w.startsWith(':')) {
      if (w !== g) return null
      continue
    }
    let value: string
    try {
      value = decodeURIComponent(g)
    } catch {
      return null
    }
    if (value === '') return null
    params[w.slice(1)] = value
  }
  return params
}
