import { META_ANSWER, type MetaAnswer, type MetaPart } from '../contract/meta-api.ts'
import { createServer, METHODS, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { fastify, type FastifyInstance, type FastifyRequest, type FastifySchema, type onRequestAsyncHookHandler } from 'fastify'
import { validatorCompiler } from 'fastify-type-provider-zod'
import { allows, MOST_ROLE } from '../contract/roles.ts'
import { operationRoutes, type OnHistoryPage } from './api.ts'
import type { OnHistoryServed } from './index/parse.ts'
import {
  allowedHostnamesFor,
  canonicalPathProblem,
  encodedUnreservedProblem,
  hostNameProblem,
  hostProblem,
  MAX_TARGET_CHARS,
  originProblem,
  staticOriginProblem,
  targetProblem,
} from './checks.ts'
import type { Config } from './config.ts'
import { diskFull, isDiskFull, notRecorded, ProxyError } from './errors.ts'
import type { Forwarder } from './forward.ts'
import { answering, type AccessGate, type Principal, type RequestContext, type RouteSpec } from './http-types.ts'
import { readJsonBody, sendError, sendJson } from './http.ts'
import { allowedByPath, checkRouteTable, methodsOf, paramsFor } from './route-table.ts'
import { isValidationFailure, NO_PARAMS, parseQueryString, schemaProblem } from './schema.ts'
import { createStatic } from './static.ts'

/**
 * The server on Fastify: the one route table, each row a Fastify route generated from it; the
 * checks every request passes as hooks; one error handler and one not-found handler that answer
 * in the project's error envelope. Each room (the upstream operations in api.ts, the index,
 * team access) contributes rows; nothing runs that the table does not declare, and each row's
 * access level and access-log action are enforced here, not in the handlers. The handlers keep
 * their own signature (raw request and response, the checked URL, the context, the params): the
 * route adapter hijacks the reply and hands them the raw objects.
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
  meta?: () => MetaPart
  /** Called once a page of a number's history has been served (the index refreshes that number). */
  onHistoryServed?: OnHistoryServed
  /** Called with a history page's records as it is served to a sign-in (the media room remembers their media). */
  onHistoryPage?: OnHistoryPage
  /** Slow-header clients, and connections that send nothing, are cut off after this long (the server Fastify listens on). */
  headersTimeoutMs?: number
  /** Open connections one client address may hold at once (default 256); more are closed at once. */
  connectionsPerAddress?: number
}

export type Handler = ((req: IncomingMessage, res: ServerResponse, next?: () => void) => void) & {
  /** The route table this handler serves (tests generate their checks from it). */
  routes: readonly RouteSpec[]
  /** The Fastify instance; server.ts listens and closes through it. */
  fastify: FastifyInstance
}

const LOCAL_ADMIN: Principal = { name: 'local', role: MOST_ROLE, via: 'local' }

/** A path or message safe for one log line: printable ASCII only, bounded. */
const loggable = (s: string, max = 200) => s.slice(0, max).replace(/[^\u0020-\u007e]/g, '?')

function causeOf(err: unknown): string {
  if (err instanceof Error) return loggable(`${err.name}: ${err.message}`.split('\n')[0] ?? err.name, 300)
  return loggable(String(err), 300)
}

const pathOf = (rawUrl: string) => rawUrl.split('?')[0] ?? '/'
const isApi = (path: string) => path === '/api' || path.startsWith('/api/')

/** Errors a room's code raises that have one meaning everywhere. */
function asProxyError(err: unknown, path: string): ProxyError | undefined {
  if (err instanceof ProxyError) return err
  if (isDiskFull(err)) return diskFull()
  const code = (err as { code?: unknown } | null)?.code
  // 57014: statement timeout, or a read that waited its bound for the database (PGlite's queue):
  // advice to narrow a search only where there is a search to narrow.
  if (code === '57014')
    return new ProxyError(503, {
      kind: 'timeout',
      message: path.startsWith('/api/index/search')
        ? 'The search took too long and was stopped. Narrow it (a longer text, a number or a date range) and try again.'
        : 'The message index took too long to answer (it may be busy with a sync) and the request was stopped. Try again in a moment.',
    })
  return undefined
}

/** Every method Node's parser accepts; CONNECT never reaches a request handler. */
const ALL_METHODS = METHODS.filter((m) => m !== 'CONNECT')

/** What the hooks learn about a request, for the route's handler. */
interface RequestState {
  principal: Principal | null
  /** The read's access-log entry is stored. */
  logged: boolean
}

/** The route-table row a Fastify route was generated from; a 405 route carries only its Allow. */
interface RouteConfig {
  spec?: RouteSpec
  allow?: string[]
  pattern: string
}

/** The connection closes after this refusal: a malformed request says nothing good about what follows on it (nginx closes too). */
const closeAfter = new WeakSet<ProxyError>()

/**
 * A read route's answer must not start before its access-log entry is stored: the first 2xx
 * header written without one throws instead (fail closed), so a handler that forgets to log
 * cannot leak a read, whatever else it does.
 */
function requireLoggedRead(res: ServerResponse, route: RouteSpec, state: RequestState): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (status >= 200 && status < 300 && !state.logged)
      throw new Error(`${route.method} ${route.path} answered before recording its read (${route.reads})`)
    return writeHead(status, ...rest)
  }) as ServerResponse['writeHead']
}

/** Fastify's own refusals (a URL its router cannot decode, a parameter over its length), in the project's words. */
function fromFramework(err: unknown): ProxyError | undefined {
  const e = err as { code?: unknown; statusCode?: unknown } | null
  if (typeof e?.code !== 'string' || !e.code.startsWith('FST_')) return undefined
  // A Content-Type header that is not a media type at all: refused as a body in any other type is.
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new ProxyError(415, {
      kind: 'invalid_request',
      field: 'content-type',
      message: 'The Content-Type header is not a media type.',
    })
  const status = typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 400
  const refused = new ProxyError(status, {
    kind: 'invalid_request',
    field: 'path',
    message: 'Bad request: the server could not read it.',
  })
  closeAfter.add(refused)
  return refused
}

/** Node's own answers to a request it could not parse (400, 431 headers too large, 408 too slow), with the envelope. */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (err.code !== 'ECONNRESET' && socket.writable && !pending?.headersSent) {
    const [status, reason, message] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request took too long to arrive.']
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'Request Header Fields Too Large', 'The request headers are too large.']
          : [400, 'Bad Request', 'The request is not valid HTTP.']
    const body = JSON.stringify({ error: { kind: 'invalid_request', message } })
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

/** What a row's handler is told of its request: who, from where, and how to log what it shows. */
function contextFor(
  request: FastifyRequest,
  spec: RouteSpec,
  state: RequestState,
  gate: AccessGate | undefined,
  logFailure: (line: string) => void,
): RequestContext {
  const req = request.raw
  const { principal } = state
  // Behind a trusted reverse proxy the gate knows the real client's address; else the socket's.
  const address = gate?.clientAddress?.(req) ?? req.socket.remoteAddress ?? ''
  return {
    principal,
    address,
    audit: async (action, details) => {
      if (!gate) return
      try {
        await gate.audit(principal, address, action, details)
      } catch (err) {
        logFailure(`access log: could not record ${action}: ${causeOf(err)}`)
        throw notRecorded(err)
      }
    },
    logRead: async (details, action) => {
      const name = action ?? spec.reads
      if (!name) throw new Error(`${spec.method} ${spec.path} declares no read`)
      if (gate) {
        try {
          await gate.recordRead(principal, address, name, details)
        } catch (err) {
          logFailure(`access log: could not record ${name}: ${causeOf(err)}`)
          if (isDiskFull(err)) throw diskFull('read')
          throw new ProxyError(503, {
            kind: 'server_error',
            message: 'The access log could not record this read, so it was refused. Try again; if it persists, tell an admin.',
          })
        }
      }
      state.logged = true
    },
  }
}

/**
 * Without a session, every /api path is a 401, an undeclared one or a wrong method too: a 404 or
 * 405 there told someone not signed in which paths and methods the route table holds.
 */
const SIGN_IN_FIRST = () => new ProxyError(401, { kind: 'unauthorized', field: 'session', message: 'Sign in first.' })
async function signedOut(gate: AccessGate | undefined, req: IncomingMessage): Promise<boolean> {
  return !!gate && !(await gate.identify(req))
}

/** A declared path with a method its rows do not take: 405 naming the ones they do. */
function addMethodNotAllowed(app: FastifyInstance, routes: readonly RouteSpec[], gate: AccessGate | undefined, fail: Fail): void {
  for (const [path, allow] of allowedByPath(routes)) {
    const others = ALL_METHODS.filter((m) => !allow.includes(m))
    const config: RouteConfig = { allow, pattern: path }
    app.route({
      method: others,
      url: path,
      config,
      handler: async (request, reply) => {
        reply.hijack()
        request.raw.resume()
        if (await signedOut(gate, request.raw).catch(() => true)) return fail(request.raw, reply.raw, SIGN_IN_FIRST())
        sendError(
          reply.raw,
          new ProxyError(405, { kind: 'invalid_request', field: 'method', message: `Use ${allow.join(' or ')} for ${path.slice(0, 80)}.` }),
          { allow: allow.join(', ') },
        )
      },
    })
  }
}

const notFound = (path: string) =>
  new ProxyError(404, { kind: 'not_found', field: 'path', message: `There is no API at ${path.slice(0, 80)}.` })

/**
 * Every request, whatever its spelling and whatever it asks for: the target, the Host header,
 * one spelling per path (no percent-encoded letter, digit or `-._~` anywhere, no `/./`), then
 * the name this server answers to. Whether a request is an /api one is decided on the path the
 * router will match (decoded), and on the row it matched, never on the raw spelling: `/%61pi/…`
 * reached the /api rows while the raw path did not start with /api (RFC 3986 §6.2.2).
 */
const checkRequest =
  (allowedHostnames: ReturnType<typeof allowedHostnamesFor>): onRequestAsyncHookHandler =>
  async (request) => {
    const req = request.raw
    const rawUrl = req.url ?? '/'
    const problem = targetProblem(rawUrl) ?? hostProblem(req)
    if (problem) {
      closeAfter.add(problem)
      throw problem
    }
    const path = pathOf(rawUrl)
    const spelled = encodedUnreservedProblem(path)
    if (spelled) throw spelled
    // targetProblem has checked that the path decodes.
    const route = request.routeOptions.config as Partial<RouteConfig> | undefined
    const api = isApi(path) || isApi(decodeURIComponent(path)) || route?.spec !== undefined || route?.allow !== undefined
    if (!api) {
      // The app's own files: only under this server's names (a rebound name gets nothing), and a
      // page elsewhere may link to them (a navigation) but not read them from script.
      const refused = hostNameProblem(req, allowedHostnames) ?? staticOriginProblem(req)
      if (refused) throw refused
      return
    }
    const refused = canonicalPathProblem(path) ?? originProblem(req, allowedHostnames)
    if (refused) throw refused
    // The route that runs is the path that was sent: the framework's router ends a path at `#`.
    if (route?.pattern !== undefined && !paramsFor(route.pattern, path)) throw notFound(path)
  }

/** The row's access level, enforced before its handler runs. */
const access =
  (spec: RouteSpec, gate: AccessGate | undefined, states: WeakMap<IncomingMessage, RequestState>): onRequestAsyncHookHandler =>
  async (request, reply) => {
    const req = request.raw
    const principal = gate ? await gate.identify(req) : LOCAL_ADMIN
    if (!allows(principal?.role ?? null, spec.access)) {
      req.resume()
      if (!principal) throw SIGN_IN_FIRST()
      throw new ProxyError(403, { kind: 'forbidden', message: 'Only an admin may do this.' })
    }
    const state: RequestState = { principal, logged: false }
    states.set(req, state)
    if (spec.reads) requireLoggedRead(reply.raw, spec, state)
  }

/**
 * Bodies are read by http.ts (one set of limits and codings), in a row's preValidation when it
 * declares one, else by its handler: Fastify's own parsers are replaced by one that reads
 * nothing. POST and DELETE carry bodies, so Fastify validates a row's body schema on them; each
 * row's zod schemas are checked by zod itself, and a failure reaches the one error handler.
 */
function readRowsBodies(app: FastifyInstance): void {
  for (const m of ALL_METHODS) app.addHttpMethod(m, { hasBody: m === 'POST' || m === 'DELETE', overrideExisting: true })
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined))
  app.setValidatorCompiler(validatorCompiler)
}

/** The one route table: /api/meta, the upstream operations, then each room's rows; checked before Fastify sees it. */
function routeTable(config: Config, deps: AppDeps): readonly RouteSpec[] {
  const metaRoute: RouteSpec = {
    method: 'GET',
    path: '/api/meta',
    access: 'public',
    reads: null,
    head: true,
    schema: NO_PARAMS,
    response: META_ANSWER,
    handle: answering(async (_ctx) => {
      return { status: 200, body: { historyPageCap: config.historyPageCap, timeZone: 'UTC', ...deps.meta?.() } satisfies MetaAnswer }
    }),
  }
  const routes: readonly RouteSpec[] = [
    metaRoute,
    ...operationRoutes(config, deps.forwarder, deps.onHistoryServed, deps.onHistoryPage),
    ...(deps.routes ?? []),
    ...(deps.gate?.routes ?? []),
  ]
  checkRouteTable(routes)
  return routes
}

type Fail = (req: IncomingMessage, res: ServerResponse, err: unknown) => void

/**
 * The one error boundary: every refusal and failure, from a hook, a handler or Fastify itself,
 * leaves through `fail` as the envelope. `notes` keeps what went wrong on a response for its
 * log line (the error's kind and cause, never a body).
 */
function errorBoundary(log: AppDeps['log'], logFailure: (line: string) => void): { fail: Fail; notes: WeakMap<ServerResponse, string> } {
  const notes = new WeakMap<ServerResponse, string>()
  const fail: Fail = (req, res, err) => {
    const known = asProxyError(err, pathOf(req.url ?? '/')) ?? fromFramework(err)
    if (known) {
      if (known.body.cause) notes.set(res, `${known.body.kind}: ${known.body.cause}`)
      if (res.headersSent) return res.destroy()
      req.resume()
      return sendError(res, known, known.status === 413 || closeAfter.has(known) ? { connection: 'close' } : {})
    }
    // A programming error or a library's throw: this request fails, the server goes on.
    const line = `${req.method} ${loggable(pathOf(req.url ?? ''))} failed: ${causeOf(err)}`
    if (res.headersSent) {
      logFailure(`${line} (after the answer began; connection closed)`)
      return res.destroy()
    }
    notes.set(res, `server_error: ${causeOf(err)}`)
    if (!log) logFailure(line)
    sendError(res, new ProxyError(500, { kind: 'server_error', message: 'The server failed unexpectedly; the cause is in its log.' }))
  }
  return { fail, notes }
}

/**
 * The Fastify instance on a Node server of our own: every request enters through `handle`
 * (which logs it and waits for readiness), and `onRouting` receives Fastify's own handler.
 */
function createFastify(
  deps: AppDeps,
  fail: Fail,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  onRouting: (routing: (req: IncomingMessage, res: ServerResponse) => void) => void,
): FastifyInstance {
  return fastify({
    logger: false,
    // The table's routes answer exactly what they declare: HEAD only where a row says so, a path
    // as sent (no trailing-slash or duplicate-slash folding), a parameter as long as a target.
    exposeHeadRoutes: false,
    // Closing cuts every connection at once (as before); a request that slips in meanwhile is
    // answered as usual rather than with Fastify's own 503 body, which is not the envelope.
    return503OnClosing: false,
    forceCloseConnections: true,
    routerOptions: {
      ignoreTrailingSlash: false,
      ignoreDuplicateSlashes: false,
      maxParamLength: MAX_TARGET_CHARS,
      caseSensitive: true,
      querystringParser: parseQueryString,
    },
    serverFactory: (fastifyHandler) => {
      const server: Server = createServer(
        {
          // Slow-header clients (slowloris) are cut off; Node checks these on connectionsCheckingInterval.
          headersTimeout: deps.headersTimeoutMs ?? 10_000,
          requestTimeout: 30_000,
          connectionsCheckingInterval: Math.min(1_000, deps.headersTimeoutMs ?? 1_000),
        },
        handle,
      )
      server.keepAliveTimeout = 5_000
      limitConnections(server, deps.headersTimeoutMs ?? 10_000, deps.connectionsPerAddress ?? 256)
      onRouting(fastifyHandler)
      return server
    },
    // The router could not take the URL (a percent-escape that does not decode): the target check says why.
    frameworkErrors: (err, request, reply) => {
      reply.hijack()
      const problem = targetProblem(request.raw.url ?? '/')
      if (problem) closeAfter.add(problem)
      fail(request.raw, reply.raw, problem ?? err)
    },
    // Node's own answers to a request it could not parse (400, 431 headers too large, 408 too slow), with the envelope.
    clientErrorHandler: answerClientError,
  })
}

/**
 * Capacity a stranger cannot hold. Node's headersTimeout only counts once a request has begun:
 * a connection that sends nothing, or one byte, stayed open for good, and 1,100 of them took the
 * server's descriptors. Until its first request arrives a connection gets `firstRequestMs`;
 * between requests, keepAliveTimeout; and no address holds more than `perAddress` at once.
 */
function limitConnections(server: Server, firstRequestMs: number, perAddress: number): void {
  const open = new Map<string, number>()
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? ''
    const held = open.get(address) ?? 0
    if (held >= perAddress) {
      socket.destroy()
      return
    }
    open.set(address, held + 1)
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1
      if (left > 0) open.set(address, left)
      else open.delete(address)
    })
    socket.setTimeout(firstRequestMs, () => socket.destroy())
  })
  // A request under way (an export waiting its turn, a long read) is not idle; keepAliveTimeout
  // takes over between requests, and the exports cut a reader that stalls.
  server.on('request', (req: IncomingMessage) => req.socket.setTimeout(0))
}

/** What a row's Fastify route needs besides its row. */
interface RowDeps {
  gate: AccessGate | undefined
  states: WeakMap<IncomingMessage, RequestState>
  logFailure: (line: string) => void
  fail: Fail
}

/** One Fastify route for one row of the table. */
function addRow(app: FastifyInstance, spec: RouteSpec, { gate, states, logFailure, fail }: RowDeps): void {
  const config: RouteConfig = { spec, pattern: spec.path }
  const schema: FastifySchema = spec.schema
  app.route<{ Params: Record<string, string>; Body: unknown; Querystring: unknown }, RouteConfig>({
    method: methodsOf(spec),
    url: spec.path,
    config,
    schema,
    onRequest: access(spec, gate, states),
    // Before validation: the path's `:name` values as sent (not the router's decoding), and a
    // declared body, read with the one set of limits and codings (413, 415, invalid JSON).
    preValidation: async (request) => {
      request.params = paramsFor(spec.path, pathOf(request.raw.url ?? '/')) ?? {}
      if (spec.schema.body) request.body = await (spec.readBody ?? readJsonBody)(request.raw)
    },
    handler: (request, reply) => {
      // The row's handler answers on the raw response itself (streams, compression, the envelope).
      reply.hijack()
      const req = request.raw
      const res = reply.raw
      const rawUrl = req.url ?? '/'
      const state = states.get(req) ?? { principal: null, logged: false }
      const input = { query: request.query, body: request.body, params: request.params }
      try {
        // The URL base is fixed, never the Host header; the path was matched as sent.
        spec
          .handle(req, res, new URL(rawUrl, 'http://localhost'), contextFor(request, spec, state, gate, logFailure), input)
          .catch((err: unknown) => fail(req, res, err))
      } catch (err) {
        fail(req, res, err)
      }
    },
  })
}

/** What no row takes (an unknown /api path, the SPA's files) and what a schema or hook refused. */
function addFallbacks(
  app: FastifyInstance,
  serveStatic: ReturnType<typeof createStatic> | undefined,
  gate: AccessGate | undefined,
  fail: Fail,
): void {
  app.setNotFoundHandler(async (request, reply) => {
    reply.hijack()
    const req = request.raw
    const res = reply.raw
    const path = pathOf(req.url ?? '/')
    if (isApi(path)) {
      req.resume()
      return fail(req, res, (await signedOut(gate, req).catch(() => true)) ? SIGN_IN_FIRST() : notFound(path))
    }
    if (serveStatic) return serveStatic(req, res)
    sendJson(res, 404, { error: { kind: 'not_found', message: 'Not found.' } })
  })

  app.setErrorHandler((err, request, reply) => {
    reply.hijack()
    // A row's schema refused the request: the envelope's 400, naming the field.
    if (isValidationFailure(err))
      return fail(request.raw, reply.raw, schemaProblem(err, err.validationContext === 'body' ? request.body : request.query))
    fail(request.raw, reply.raw, err)
  })
}

/** The request's log line once its answer is sent: method, path and status only (bodies carry customer data). */
function logWhenFinished(req: IncomingMessage, res: ServerResponse, log: (line: string) => void, notes: WeakMap<ServerResponse, string>) {
  const started = performance.now()
  const rawUrl = req.url ?? '/'
  res.on('finish', () => {
    const note = notes.get(res)
    try {
      log(
        `${loggable(req.method ?? '', 16)} ${loggable(pathOf(rawUrl))} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms${note ? ` (${note})` : ''}`,
      )
    } catch {
      // A failing log sink (a closed pipe) must not take the server down from inside an event handler.
    }
  })
}

export function createApp(config: Config, deps: AppDeps): Handler {
  const { log, gate } = deps
  const logFailure = log ?? ((line: string) => console.error(line))
  const serveStatic = deps.staticDir ? createStatic(deps.staticDir, logFailure) : undefined
  const allowedHostnames = allowedHostnamesFor(config.host, config.allowedHosts)
  const routes = routeTable(config, deps)
  const { fail, notes } = errorBoundary(log, logFailure)
  const states = new WeakMap<IncomingMessage, RequestState>()

  let routing: ((req: IncomingMessage, res: ServerResponse) => void) | undefined
  const app = createFastify(
    deps,
    fail,
    (req, res) => handler(req, res),
    (r) => (routing = r),
  )
  readRowsBodies(app)
  app.addHook('onRequest', checkRequest(allowedHostnames))
  for (const spec of routes) addRow(app, spec, { gate, states, logFailure, fail })
  addMethodNotAllowed(app, routes, gate, fail)
  addFallbacks(app, serveStatic, gate, fail)

  let ready = false
  const readying = Promise.resolve(app.ready()).then(() => {
    ready = true
  })
  // A table Fastify cannot build shows at start (server.ts awaits listen); a request meanwhile gets the envelope.
  readying.catch(() => undefined)

  const handler = (req: IncomingMessage, res: ServerResponse, next?: () => void) => {
    if (next && !serveStatic && !isApi(pathOf(req.url ?? '/'))) return next()
    if (log) logWhenFinished(req, res, log, notes)
    if (ready && routing) return routing(req, res)
    readying.then(
      () => routing?.(req, res),
      (err: unknown) => fail(req, res, err),
    )
  }
  return Object.assign(handler, { routes, fastify: app })
}
