import type { AccessLevel } from '../contract/roles.ts'
import { ProxyError } from './errors.ts'
import type { RouteSpec } from './http-types.ts'

/**
 * The one route table's matcher. A request's path is matched exactly, as sent, against the
 * declared paths: there is no prefix matching and no second lookup by a normalised path, so the
 * route that matched is the route that runs and its declared access level is the one enforced.
 * Spellings that other software would read as the same path (`/./`, `%65xport`, `;params`, a
 * trailing slash) are refused before matching (RFC 3986 §6.2.2: a server that normalises in
 * one place and routes in another can be made to disagree with itself).
 */

const badPath = (why: string) =>
  new ProxyError(400, { kind: 'invalid_request', field: 'path', message: `Bad path: ${why}. Use the path exactly as the app writes it.` })

/** Unreserved characters (RFC 3986 §2.3) have one spelling: percent-encoding one is refused. */
const ENCODED_UNRESERVED = /%(?:[46][1-9a-f]|[57][0-9a]|3[0-9]|2d|2e|5f|7e)/i

/**
 * Refuses a path (no query) that is not in its one canonical form. Run after checks.ts's
 * targetProblem, which has already refused `..`, `//`, encoded dots/slashes, controls and
 * non-ASCII; this adds what a router must not let two spellings mean.
 */
export function canonicalPathProblem(path: string): ProxyError | undefined {
  const segments = path.split('/').slice(1)
  if (segments.some((s) => s === '.')) return badPath('dot segments ("/./") are not accepted')
  if (path.length > 1 && path.endsWith('/')) return badPath('a trailing slash is not accepted')
  if (path.includes(';')) return badPath('path parameters (";") are not accepted')
  if (ENCODED_UNRESERVED.test(path)) return badPath('letters, digits and "-._~" must not be percent-encoded')
  return undefined
}

export interface Match {
  route: RouteSpec
  /** The `:name` segment of a parameterised path, decoded. */
  params: Record<string, string>
}

export interface Router {
  /** The route for this method and path; `allow` lists the methods the path takes when the method is wrong. */
  match: (method: string, path: string) => { match: Match } | { allow: string[] } | null
  routes: readonly RouteSpec[]
}

interface Compiled {
  route: RouteSpec
  parts: string[]
}

function compile(route: RouteSpec): Compiled {
  if (!route.path.startsWith('/api/')) throw new Error(`route ${route.path}: paths start with /api/`)
  const parts = route.path.split('/').slice(1)
  for (const p of parts)
    if (p === '' || (p.startsWith(':') && !/^:[a-z]+$/.test(p)) || (!p.startsWith(':') && !/^[a-z0-9-]+$/.test(p)))
      throw new Error(`route ${route.path}: each segment is lower-case letters, digits and dashes, or one :name`)
  return { route, parts }
}

function matchParts(parts: string[], segments: string[]): Record<string, string> | null {
  if (parts.length !== segments.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < parts.length; i++) {
    const want = parts[i]!
    const got = segments[i]!
    if (want.startsWith(':')) {
      let value: string
      try {
        value = decodeURIComponent(got)
      } catch {
        return null
      }
      if (value === '') return null
      params[want.slice(1)] = value
    } else if (want !== got) return null
  }
  return params
}

/**
 * Builds the matcher, refusing a table that declares one method and path twice, a route with no
 * access level, or a read route with no access-log action: what is not declared cannot run.
 */
export function createRouter(routes: readonly RouteSpec[]): Router {
  const seen = new Set<string>()
  const levels: readonly AccessLevel[] = ['public', 'signed-in', 'admin']
  const compiled = routes.map((r) => {
    const key = `${r.method} ${r.path}`
    if (seen.has(key)) throw new Error(`route ${key} is declared twice`)
    seen.add(key)
    if (!levels.includes(r.access)) throw new Error(`route ${key} declares no access level`)
    if (r.reads !== null && !/^[a-z][a-z.-]*$/.test(r.reads)) throw new Error(`route ${key}: reads names an access-log action`)
    return compile(r)
  })
  // Literal segments win over parameters, so /api/auth/users/x never shadows a fixed path.
  compiled.sort((a, b) => a.route.path.split(':').length - b.route.path.split(':').length)
  return {
    routes,
    match(method, path) {
      const segments = path.split('/').slice(1)
      const allow = new Set<string>()
      for (const c of compiled) {
        const params = matchParts(c.parts, segments)
        if (!params) continue
        if (c.route.method === method || (method === 'HEAD' && c.route.method === 'GET' && c.route.head))
          return { match: { route: c.route, params } }
        allow.add(c.route.method)
        if (c.route.method === 'GET' && c.route.head) allow.add('HEAD')
      }
      return allow.size ? { allow: [...allow] } : null
    },
  }
}
