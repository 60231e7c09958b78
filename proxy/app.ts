import type { IncomingMessage, ServerResponse } from 'node:http'
import { isOperation } from '../contract/api.ts'
import { handleOperation } from './api.ts'
import { allowedHostnamesFor, hostProblem, originProblem, targetProblem } from './checks.ts'
import type { Config } from './config.ts'
import { ProxyError, invalid } from './errors.ts'
import type { Forwarder } from './forward.ts'
import type { AccessGate, Principal, RequestContext, Route } from './http-types.ts'
import { sendError, sendJson } from './http.ts'
import { createStatic } from './static.ts'

/**
 * The request handler: routing and the one error boundary. The checks (checks.ts), the
 * upstream operations (api.ts), the static files (static.ts) and the shared HTTP helpers
 * (http.ts) live in their own files. It never listens (server.ts does), so tests drive it on
 * an ephemeral port.
 */

export interface AppDeps {
  forwarder: Forwarder
  /** Built SPA; when absent, only /api is served (dev mode mounts Vite in front). */
  staticDir?: string
  /** One line per request (method, path, status, time; the cause of a failure). */
  log?: (line: string) => void
  /** More /api rooms (the index); the longest matching prefix wins. */
  routes?: Route[]
  /** Team access; without it every request is the local admin. */
  gate?: AccessGate
  /** Extra fields for GET /api/meta (index on/off, access mode, the user). */
  meta?: (ctx: RequestContext) => Record<string, unknown>
}

export type Handler = (req: IncomingMessage, res: ServerResponse, next?: () => void) => void

const LOCAL_ADMIN: Principal = { name: 'local', role: 'admin', via: 'local' }
/** Who a public path (sign-in, "who am I") sees when the request has no session. */
const NOBODY: Principal = { name: '', role: 'viewer', via: 'password' }

/** A path or message safe for one log line: printable ASCII only, bounded. */
const loggable = (s: string, max = 200) => s.slice(0, max).replace(/[^\u0020-\u007e]/g, '?')

function causeOf(err: unknown): string {
  if (err instanceof Error) return loggable(`${err.name}: ${err.message}`.split('\n')[0] ?? err.name, 300)
  return loggable(String(err), 300)
}

export function createApp(config: Config, deps: AppDeps): Handler {
  const { forwarder, log, gate } = deps
  const logFailure = log ?? ((line: string) => console.error(line))
  const serveStatic = deps.staticDir ? createStatic(deps.staticDir, logFailure) : undefined
  const allowedHostnames = allowedHostnamesFor(config.host, config.allowedHosts)
  const routes = [...(deps.routes ?? []), ...(gate?.routes ?? [])].sort((a, b) => b.prefix.length - a.prefix.length)
  /** What went wrong on a response, for its log line (the error's kind and cause, never a body). */
  const notes = new WeakMap<ServerResponse, string>()

  function fail(req: IncomingMessage, res: ServerResponse, err: unknown) {
    if (err instanceof ProxyError) {
      if (err.body.cause) notes.set(res, `${err.body.kind}: ${err.body.cause}`)
      if (res.headersSent) return res.destroy()
      return sendError(res, err, err.status === 413 ? { connection: 'close' } : {})
    }
    // A programming error or a library's throw: this request fails, the server goes on.
    const line = `${req.method} ${loggable((req.url ?? '').split('?')[0] ?? '')} failed: ${causeOf(err)}`
    if (res.headersSent) {
      logFailure(`${line} (after the answer began; connection closed)`)
      return res.destroy()
    }
    notes.set(res, `server_error: ${causeOf(err)}`)
    if (!log) logFailure(line)
    sendError(res, new ProxyError(500, { kind: 'server_error', message: 'The server failed unexpectedly; the cause is in its log.' }))
  }

  /** Run one request path; a throw or a rejection anywhere in it ends in fail(). */
  function guard(req: IncomingMessage, res: ServerResponse, work: () => Promise<void> | void) {
    try {
      const p = work()
      if (p) p.catch((err: unknown) => fail(req, res, err))
    } catch (err) {
      fail(req, res, err)
    }
  }

  async function api(req: IncomingMessage, res: ServerResponse, rawUrl: string, path: string) {
    const refused = originProblem(req, allowedHostnames)
    if (refused) throw refused
    let principal: Principal | null = LOCAL_ADMIN
    if (gate) {
      principal = await gate.identify(req)
      if (!principal && !gate.publicPaths.has(path)) throw new ProxyError(401, { kind: 'unauthorized', message: 'Sign in first.' })
    }
    // Behind a trusted reverse proxy the gate knows the real client's address; else the socket's.
    const address = gate?.clientAddress?.(req) ?? req.socket.remoteAddress ?? ''
    const who = principal
    const ctx: RequestContext = {
      principal: who ?? NOBODY,
      address,
      audit: (action, details) => {
        try {
          gate?.audit(who, address, action, details)
        } catch (err) {
          logFailure(`audit ${action} failed: ${causeOf(err)}`)
        }
      },
    }
    const route = routes.find((r) => path.startsWith(r.prefix))
    if (route) {
      if (route.adminOnly && ctx.principal.role !== 'admin')
        throw new ProxyError(403, { kind: 'forbidden', message: 'Only an admin may do this.' })
      // Query strings are the index's and access's business; the URL base is fixed, never the Host header.
      return route.handle(req, res, new URL(rawUrl, 'http://localhost'), ctx)
    }
    // The upstream operations take their parameters in the body only, so nothing rides along unseen.
    if (rawUrl.includes('?')) throw invalid('query', 'Send parameters in the POST body, not the query string.')
    if (path === '/api/meta') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        req.resume()
        return sendError(res, new ProxyError(405, { kind: 'invalid_request', field: 'method', message: 'Use GET for /api/meta.' }), {
          allow: 'GET, HEAD',
        })
      }
      return sendJson(res, 200, { historyPageCap: config.historyPageCap, timeZone: 'UTC', ...deps.meta?.(ctx) })
    }
    const op = path.slice('/api/'.length)
    if (!isOperation(op))
      throw new ProxyError(404, { kind: 'invalid_request', field: 'path', message: `Unknown operation: /api/${op.slice(0, 40)}` })
    return handleOperation(config, forwarder, req, res, op, ctx)
  }

  return (req, res, next) => {
    const started = performance.now()
    const rawUrl = req.url ?? '/'
    res.on('finish', () => {
      // Method, path and status only: bodies carry customer data and the response never holds credentials.
      if (!log) return
      const note = notes.get(res)
      try {
        log(
          `${loggable(req.method ?? '', 16)} ${loggable(rawUrl.split('?')[0] ?? '')} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms${note ? ` (${note})` : ''}`,
        )
      } catch {
        // A failing log sink (a closed pipe) must not take the server down from inside an event handler.
      }
    })
    guard(req, res, () => {
      const problem = targetProblem(rawUrl) ?? hostProblem(req)
      if (problem) {
        // A malformed request says nothing good about what follows on this connection (nginx closes too).
        req.resume()
        return sendError(res, problem, { connection: 'close' })
      }
      const path = rawUrl.split('?')[0] ?? '/'
      if (path === '/api' || path.startsWith('/api/')) return api(req, res, rawUrl, path)
      if (serveStatic) return serveStatic(req, res)
      if (next) return next()
      sendJson(res, 404, { error: { kind: 'not_found', message: 'Not found.' } })
    })
  }
}
