import type { IncomingMessage } from 'node:http'
import { ProxyError } from './errors.ts'

/**
 * The checks every request passes before it is routed: the request target, the Host header
 * and, for /api, where the request comes from. Each is a pure function of the request that
 * answers with the refusal (or undefined), so nothing here can throw on hostile input.
 */

/** Longer targets than this are no link the app makes; 414 like nginx's default buffers. */
export const MAX_TARGET_CHARS = 4096

const badPath = (why: string) => new ProxyError(400, { kind: 'invalid_request', field: 'path', message: `Bad path: ${why}.` })

/**
 * Refuse anything that is not a plain absolute path made of printable ASCII with well-formed
 * percent-escapes of UTF-8. Path tricks (`..`, encoded dots or slashes, `//host`, absolute
 * URIs, `\`, `@`) are refused before routing, so nothing that could be re-interpreted upstream
 * is ever forwarded (OWASP SSRF prevention cheat sheet), and no later decoding can throw.
 */
export function targetProblem(rawUrl: string): ProxyError | undefined {
  if (rawUrl.length > MAX_TARGET_CHARS)
    return new ProxyError(414, {
      kind: 'invalid_request',
      field: 'path',
      message: `The request target is longer than ${MAX_TARGET_CHARS} characters.`,
    })
  if (!rawUrl.startsWith('/')) return badPath('absolute URIs are not accepted')
  if (rawUrl.startsWith('//')) return badPath('network-path references are not accepted')
  const q = rawUrl.indexOf('?')
  const path = q < 0 ? rawUrl : rawUrl.slice(0, q)
  if (/[\u0000-\u001f\u007f]/.test(path)) return badPath('control characters are not accepted')
  if (/[^\u0021-\u007e]/.test(rawUrl)) return badPath('characters outside printable ASCII must be percent-encoded')
  if (/%(?![0-9a-f]{2})/i.test(path)) return badPath('malformed percent-escape (% must be followed by two hex digits)')
  if (/%(2e|2f|5c|25|00|40)/i.test(path)) return badPath('encoded dots, slashes or percent signs are not accepted')
  if (/\.\.|\\|@|\/\//.test(path)) return badPath('path traversal characters are not accepted')
  try {
    decodeURIComponent(path)
  } catch {
    return badPath('percent-escapes that are not UTF-8 are not accepted')
  }
  return undefined
}

/** Unreserved characters (RFC 3986 §2.3) have one spelling: percent-encoding one is refused. */
const ENCODED_UNRESERVED = /%(?:[46][1-9a-f]|[57][0-9a]|3[0-9]|2d|2e|5f|7e)/i

/**
 * Refuses an /api path (no query) that is not in its one canonical form. Run after
 * targetProblem, which has already refused `..`, `//`, encoded dots/slashes, controls and
 * non-ASCII; this adds what a router must not let two spellings mean. The router matches the
 * path as sent, with no second lookup by a normalised path, so spellings that other software
 * would read as the same path (`/./`, `%65xport`, `;params`, a trailing slash) are refused before
 * their route's access level is looked at (RFC 3986 §6.2.2: a server that normalises in one place
 * and routes in another can be made to disagree with itself).
 */
export function canonicalPathProblem(path: string): ProxyError | undefined {
  const segments = path.split('/').slice(1)
  if (segments.some((s) => s === '.')) return notCanonical('dot segments ("/./") are not accepted')
  if (path.length > 1 && path.endsWith('/')) return notCanonical('a trailing slash is not accepted')
  if (path.includes(';')) return notCanonical('path parameters (";") are not accepted')
  return encodedUnreservedProblem(path)
}

const notCanonical = (why: string) =>
  new ProxyError(400, { kind: 'invalid_request', field: 'path', message: `Bad path: ${why}. Use the path exactly as the app writes it.` })

/**
 * Any path, before anything decides what it is: an unreserved character has one spelling, so
 * `/%61pi/…` is refused before a check can read it as "not /api" and the router as "/api".
 */
export function encodedUnreservedProblem(path: string): ProxyError | undefined {
  if (ENCODED_UNRESERVED.test(path)) return notCanonical('letters, digits and "-._~" must not be percent-encoded')
  if (path.split('/').some((s) => s === '.')) return notCanonical('dot segments ("/./") are not accepted')
  return undefined
}

const HOST_RE =
  /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?|\[[0-9a-f:.]{2,45}\])(?::(\d{1,5}))?$/i

/**
 * Exactly one well-formed Host (RFC 9112 §3.2: a request with more than one, or an invalid
 * one, gets 400). Node keeps only the first of duplicates in `req.headers`, so the raw list
 * is counted. HTTP/1.0 requests may omit it.
 */
export function hostProblem(req: IncomingMessage): ProxyError | undefined {
  let count = 0
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]?.toLowerCase() === 'host') count++
  if (count > 1) return new ProxyError(400, { kind: 'invalid_request', field: 'host', message: 'Send exactly one Host header.' })
  if (count === 0) return undefined
  const host = req.headers.host ?? ''
  const m = HOST_RE.exec(host)
  if (!m || (m[1] !== undefined && Number(m[1]) > 65_535))
    return new ProxyError(400, { kind: 'invalid_request', field: 'host', message: 'The Host header is not a valid host name and port.' })
  return undefined
}

export function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase()
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1)
  return h.split(':')[0] ?? ''
}

/**
 * For /api: the request must name this server (DNS rebinding: a page on evil.example resolved
 * to 127.0.0.1 still sends Host: evil.example) and must not come from another site (Origin,
 * Sec-Fetch-Site), so a page elsewhere cannot drive the API with the user's browser.
 */
export function originProblem(req: IncomingMessage, allowedHostnames: ReadonlySet<string>): ProxyError | undefined {
  const host = String(req.headers.host ?? '')
  const wrongHost = hostNameProblem(req, allowedHostnames)
  if (wrongHost) return wrongHost
  const site = req.headers['sec-fetch-site']
  if (site === 'cross-site' || site === 'same-site')
    return new ProxyError(403, { kind: 'invalid_request', field: 'origin', message: 'Cross-site requests are refused.' })
  return foreignOrigin(req.headers.origin, host)
}

/** The Host names this server (DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends Host: evil.example). */
export function hostNameProblem(req: IncomingMessage, allowedHostnames: ReadonlySet<string>): ProxyError | undefined {
  if (allowedHostnames.has(hostnameOf(String(req.headers.host ?? '')))) return undefined
  return new ProxyError(403, { kind: 'invalid_request', field: 'host', message: 'This server only answers to its own host name.' })
}

function foreignOrigin(origin: string | undefined, host: string): ProxyError | undefined {
  if (origin === undefined) return undefined
  let ok: boolean
  try {
    ok = new URL(origin).host.toLowerCase() === host.toLowerCase()
  } catch {
    ok = false
  }
  return ok ? undefined : new ProxyError(403, { kind: 'invalid_request', field: 'origin', message: 'Cross-origin requests are refused.' })
}

/**
 * The app's files: another site may send a person here (a top-level navigation: a shared link),
 * but its scripts may not fetch them (Fetch Metadata: Sec-Fetch-Mode other than navigate).
 */
export function staticOriginProblem(req: IncomingMessage): ProxyError | undefined {
  const site = req.headers['sec-fetch-site']
  const navigation = req.headers['sec-fetch-mode'] === 'navigate'
  if ((site === 'cross-site' || site === 'same-site') && !navigation)
    return new ProxyError(403, { kind: 'invalid_request', field: 'origin', message: 'Cross-site requests are refused.' })
  return navigation ? undefined : foreignOrigin(req.headers.origin, String(req.headers.host ?? ''))
}

/** The names this server answers to on /api: loopback, its own listen address and ALLOWED_HOSTS. */
export function allowedHostnamesFor(host: string, allowedHosts: readonly string[]): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]', ...allowedHosts])
  if (host !== '0.0.0.0' && host !== '::') names.add(host.includes(':') ? `[${host}]` : host.toLowerCase())
  return names
}
