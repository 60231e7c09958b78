import type { IncomingMessage, ServerResponse } from 'node:http'
import { allows } from '../contract/roles.ts'
import { operationRoutes } from './api.ts'
import { allowedHostnamesFor, hostProblem, originProblem, targetProblem } from './checks.ts'
import type { Config } from './config.ts'
import { ProxyError } from './errors.ts'
import type { Forwarder } from './forward.ts'
import type { AccessGate, Principal, RequestContext, RouteSpec } from './http-types.ts'
import { sendError, sendJson } from './http.ts'
import { canonicalPathProblem, createRouter, type Match } from './router.ts'
import { createStatic } from './static.ts'

/**
 * The request handler: the checks every request passes, the one route table, and the one error
 * boundary. Each room (the upstream operations in api.ts, the index, team access) contributes
 * rows to the table; nothing runs that the table does not declare, and each row's access level
 * and access-log action are enforced here, not in the handlers. It never listens (server.ts
 * does), so tests drive it on an ephemeral port and `npm run dev` mounts it behind Vite.
 */

export interface AppDeps {
  forwarder: Forwarder
  /** Built SPA; when absent, only /api is served (dev mode mounts Vite in front). */
  staticDir?: string
  /** One line per request (method, path, status, time; the cause of a failure). */
  log?: (line: string) => void
  /** More /api routes (the index's); joined to the table. */
  routes?: RouteSpec[]
  /** Team access; without it every request is the local admin and reads are not logged. */
  gate?: AccessGate
  /** Extra fields for GET /api/meta (index on/off, access mode). */
  meta?: () => Record<string, unknown>
  /** Called once a page of a number's history has been served (the index refreshes that number). */
  onHistoryServed?: (number: string, tid: string) => void
}

export type Handler = ((req: IncomingMessage, res: ServerResponse, next?: () => void) => void) & {
  /** The route table this handler serves (tests generate their checks from it). */
  routes: readonly RouteSpec[]
}

const LOCAL_ADMIN: Principal = { name: 'local', role: 'admin', via: 'local' }

/** A path or message safe for one log line: printable ASCII only, bounded. */
const loggable = (s: string, max = 200) => s.slice(0, max).replace(/[^\u0020-\u007e]/g, '?')

function causeOf(err: unknown): string {
  if (err instanceof Error) return loggable(`${err.name}: ${err.message}`.split('\n')[0] ?? err.name, 300)
  return loggable(String(err), 300)
}

/** Errors a room's code raises that have one meaning everywhere. */
function asProxyError(err: unknown): ProxyError | undefined {
  if (err instanceof ProxyError) return err
  const code = (err as { code?: unknown } | null)?.code
  // 57014: statement timeout: the query was too broad for the bound every query carries.
  if (code === '57014')
    return new ProxyError(503, {
      kind: 'timeout',
      message: 'The search took too long and was stopped. Narrow it (a longer text, a number or a date range) and try again.',
    })
  return undefined
}

/**
 * A read route's answer must not start before its access-log entry is stored: the first 2xx
 * header written without one throws instead (fail closed), so a handler that forgets to log
 * cannot leak a read, whatever else it does.
 */
function requireLoggedRead(res: ServerResponse, route: RouteSpec, logged: () => boolean): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (status >= 200 && status < 300 && !logged())
      throw new Error(`${route.method} ${route.path} answered before recording its read (${route.reads})`)
    return writeHead(status, ...rest)
  }) as ServerResponse['writeHead']
}

export function createApp(config: Config, deps: AppDeps): Handler {
  const { forwarder, log, gate } = deps
  const logFailure = log ?? ((line: string) => console.error(line))
  const serveStatic = deps.staticDir ? createStatic(deps.staticDir, logFailure) : undefined
  const allowedHostnames = allowedHostnamesFor(config.host, config.allowedHosts)
  const metaRoute: RouteSpec = {
    method: 'GET',
    path: '/api/meta',
    access: 'public',
    reads: null,
    head: true,
    handle: async (_req, res, url) => {
      if (url.search) throw new ProxyError(400, { kind: 'invalid_request', field: 'query', message: '/api/meta takes no parameters.' })
      sendJson(res, 200, { historyPageCap: config.historyPageCap, timeZone: 'UTC', ...deps.meta?.() })
    },
  }
  const router = createRouter([
    metaRoute,
    ...operationRoutes(config, forwarder, deps.onHistoryServed),
    ...(deps.routes ?? []),
    ...(gate?.routes ?? []),
  ])
  /** What went wrong on a response, for its log line (the error's kind and cause, never a body). */
  const notes = new WeakMap<ServerResponse, string>()

  function fail(req: IncomingMessage, res: ServerResponse, err: unknown) {
    const known = asProxyError(err)
    if (known) {
      if (known.body.cause) notes.set(res, `${known.body.kind}: ${known.body.cause}`)
      if (res.headersSent) return res.destroy()
      req.resume()
      return sendError(res, known, known.status === 413 ? { connection: 'close' } : {})
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

  async function run(req: IncomingMessage, res: ServerResponse, rawUrl: string, { route, params }: Match) {
    const principal = gate ? await gate.identify(req) : LOCAL_ADMIN
    if (!allows(principal?.role ?? null, route.access)) {
      req.resume()
      if (!principal) throw new ProxyError(401, { kind: 'unauthorized', field: 'session', message: 'Sign in first.' })
      throw new ProxyError(403, { kind: 'forbidden', message: 'Only an admin may do this.' })
    }
    // Behind a trusted reverse proxy the gate knows the real client's address; else the socket's.
    const address = gate?.clientAddress?.(req) ?? req.socket.remoteAddress ?? ''
    let logged = false
    const ctx: RequestContext = {
      principal,
      address,
      audit: (action, details) => {
        try {
          gate?.audit(principal, address, action, details)
        } catch (err) {
          logFailure(`audit ${action} failed: ${causeOf(err)}`)
        }
      },
      logRead: async (details, action) => {
        const name = action ?? route.reads
        if (!name) throw new Error(`${route.method} ${route.path} declares no read`)
        if (gate) {
          try {
            await gate.recordRead(principal, address, name, details)
          } catch (err) {
            logFailure(`access log: could not record ${name}: ${causeOf(err)}`)
            throw new ProxyError(503, {
              kind: 'server_error',
              message: 'The access log could not record this read, so it was refused. Try again; if it persists, tell an admin.',
            })
          }
        }
        logged = true
      },
    }
    if (route.reads) requireLoggedRead(res, route, () => logged)
    // The URL base is fixed, never the Host header; the path was matched as sent.
    await route.handle(req, res, new URL(rawUrl, 'http://localhost'), ctx, params)
  }

  function api(req: IncomingMessage, res: ServerResponse, rawUrl: string, path: string) {
    const refused = canonicalPathProblem(path) ?? originProblem(req, allowedHostnames)
    if (refused) throw refused
    const found = router.match(req.method ?? '', path)
    if (!found) throw new ProxyError(404, { kind: 'not_found', field: 'path', message: `There is no API at ${path.slice(0, 80)}.` })
    if ('allow' in found) {
      req.resume()
      return sendError(
        res,
        new ProxyError(405, {
          kind: 'invalid_request',
          field: 'method',
          message: `Use ${found.allow.join(' or ')} for ${path.slice(0, 80)}.`,
        }),
        { allow: found.allow.join(', ') },
      )
    }
    return run(req, res, rawUrl, found.match)
  }

  const handler = (req: IncomingMessage, res: ServerResponse, next?: () => void) => {
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
  return Object.assign(handler, { routes: router.routes })
}
