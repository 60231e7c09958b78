import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AccessLevel, Role } from '../contract/roles.ts'
import type { Action } from '../contract/vocabulary.ts'
import type { z } from 'zod'
import type { $ZodType } from 'zod/v4/core'
import { sendJson } from './http.ts'
import type { RouteInput, RouteSchema } from './schema.ts'

/**
 * The seams between the server's rooms. app.ts owns the checks every request passes (path,
 * Host/Origin/Sec-Fetch-Site, access) and the one route table; the index (proxy/index/), team
 * access (proxy/access/) and the upstream operations (proxy/api.ts) contribute routes to that
 * table and never listen themselves.
 */

export type { Role }

/** Who is asking. With ACCESS=local there is no sign-in: the user is "local" with the admin role. */
export interface Principal {
  name: string
  role: Role
  /** 'local' | 'password' | 'header' */
  via: 'local' | 'password' | 'header'
  sessionId?: string
}

export interface RequestContext {
  /** Who is asking; null on a public route when the request has no session. */
  principal: Principal | null
  /** The client's address (the socket's, or the trusted proxy's forwarded one). */
  address: string
  /**
   * Stores one access-log entry for an action that is not a read (a user change, forget, a
   * setting, sharing a view). Await it before the action takes effect: it rejects with a 503 when
   * the entry cannot be stored, and an action the log cannot record does not happen.
   */
  audit: (action: Action, details: Record<string, unknown>) => Promise<void>
  /**
   * Records what this answer shows of customer data (number, party, range or filters) under the
   * route's declared action (or `action`), durably: committed on PostgreSQL, journaled and
   * synced on PGlite (docs/operations.md, "What survives what"). A read route must await it before its
   * answer starts; the app refuses to send a 2xx that was not recorded. It rejects when the entry
   * cannot be written, and the read then fails closed.
   */
  logRead: (details: Record<string, unknown>, action?: Action) => Promise<void>
}

/**
 * A route's handler. `url` is the checked request target; `input` holds the query, body and
 * `:name` path segments its row's schema declared, already validated and parsed. It answers
 * the request (errors as the envelope, by throwing a ProxyError) and resolves when it has; any
 * other rejection becomes one 500 envelope and one log line (or a closed connection if the
 * answer had begun).
 */
export type RouteHandler<Q = unknown, B = unknown, P = unknown> = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: RequestContext,
  input: RouteInput<Q, B, P>,
) => Promise<void>

/** A JSON answer a handler gives back for the app to send: its 2xx status and its body (the row's `response` describes it). */
export interface JsonAnswer<T = unknown> {
  status: number
  body: T
}

/**
 * One row of the route table: everything the server needs to know about a route before it runs.
 * A path is matched exactly (one trailing `:name` segment at most); a request no row declares is
 * refused (404, or 405 with Allow).
 */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  /** Who may call it (contract/roles.ts). */
  access: AccessLevel
  /** The access-log action its answer records because it shows customer data (contract/vocabulary.ts), or null when it shows none. */
  reads: Action | null
  /** A GET that also answers HEAD. */
  head?: boolean
  /** What the request may carry (schema.ts): Fastify validates it before `handle` runs. */
  schema: RouteSchema
  /**
   * What a 2xx JSON answer holds: a schema from contract/, which the browser parses the answer
   * with too, so the answer is described once. proxy/route-table.test.ts holds each route's sample
   * answer to it. A row without one answers a file or a stream, or belongs to a room whose answers
   * the browser still describes on its own (src/api/).
   */
  response?: $ZodType
  /** How a declared body is read off the wire (default: a JSON object, http.ts readJsonBody). */
  readBody?: (req: IncomingMessage) => Promise<unknown>
  handle: RouteHandler
}

/** A row as a room writes it: its handler typed by its own schema. */
export type TypedRoute<Q, B, P> = Omit<RouteSpec, 'schema' | 'handle'> & {
  schema: { querystring: z.ZodType<Q>; body?: z.ZodType<B>; params?: z.ZodType<P> }
  handle: RouteHandler<Q, B, P>
}

/**
 * A row of the table from a typed one. The app runs `handle` only with what `schema` parsed
 * (Fastify validates before the handler), which is the one place that type is asserted.
 */
export function route<Q, B = undefined, P = undefined>(spec: TypedRoute<Q, B, P>): RouteSpec {
  return { ...spec, handle: (req, res, url, ctx, input) => spec.handle(req, res, url, ctx, input as RouteInput<Q, B, P>) }
}

/**
 * Team access. `identify` says who a request is from, or null when it has no valid session or
 * trusted header. `routes` are /api/auth/* (sign-in, sign-out, me, users, access log).
 */
export interface AccessGate {
  identify: (req: IncomingMessage) => Promise<Principal | null>
  routes: RouteSpec[]
  /** One entry for an action; resolves once it is stored, rejects when it cannot be. */
  audit: (principal: Principal | null, address: string, action: string, details: Record<string, unknown>) => Promise<unknown>
  /** One read's entry, resolved (with the entry's number, where the log numbers them) once it is stored; rejects when it cannot be. */
  recordRead: (principal: Principal | null, address: string, action: string, details: Record<string, unknown>) => Promise<string | void>
  /** The client's address as the access log records it (X-Forwarded-For only from TRUSTED_PROXIES). */
  clientAddress?: (req: IncomingMessage) => string
}

/**
 * A route handler (RouteHandler) made of one that reads typed input alone and gives back its
 * answer: the raw request, response and URL stay here, in the kernel. Only a streamed answer (an
 * export) needs a handler of its own.
 */
export function answering<Q, B, P>(fn: (ctx: RequestContext, input: RouteInput<Q, B, P>) => Promise<JsonAnswer>): RouteHandler<Q, B, P> {
  return async (_req, res, _url, ctx, input) => {
    const a = await fn(ctx, input)
    sendJson(res, a.status, a.body)
  }
}
