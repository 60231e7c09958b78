import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * The seams between the server's rooms. app.ts owns the checks every request passes (path,
 * Host/Origin/Sec-Fetch-Site, access); the index (proxy/index/) and team access
 * (proxy/access/) plug in as route handlers and a gate, and never listen themselves.
 */

export type Role = 'admin' | 'viewer'

/** Who is asking. With ACCESS=local there is no sign-in: the user is "local" with the admin role. */
export interface Principal {
  name: string
  role: Role
  /** 'local' | 'password' | 'header' */
  via: 'local' | 'password' | 'header'
  sessionId?: string
}

export interface RequestContext {
  principal: Principal
  /** The client's address (the socket's, or the trusted proxy's forwarded one). */
  address: string
  /** Append one access-log entry (no-op where there is no log). Never throws. */
  audit: (action: string, details: Record<string, unknown>) => void
}

/**
 * A room's request handler. `url` is already checked (no path tricks) and parsed. It answers
 * the request (errors as the envelope) and resolves when it has; a rejection becomes a 500
 * envelope (or the connection is closed if headers went out) and one log line.
 */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) => Promise<void>

export interface Route {
  /** Path prefix, e.g. '/api/index/'. The longest matching prefix wins. */
  prefix: string
  handle: RouteHandler
  /** Only admins may use it (403 otherwise); finer checks are the handler's own. */
  adminOnly?: boolean
}

/**
 * Team access. `identify` says who a request is from, or null when it has no valid session or
 * trusted header (then /api/* answers 401). `routes` serves /api/auth/* (sign-in, sign-out,
 * me, users, access log).
 */
export interface AccessGate {
  identify: (req: IncomingMessage) => Promise<Principal | null>
  /** Paths under /api/ that answer without a principal (e.g. /api/auth/signin, /api/auth/me). */
  publicPaths: ReadonlySet<string>
  routes: Route[]
  audit: (principal: Principal | null, address: string, action: string, details: Record<string, unknown>) => void
  /** The client's address as the access log records it (X-Forwarded-For only from TRUSTED_PROXIES). */
  clientAddress?: (req: IncomingMessage) => string
}
