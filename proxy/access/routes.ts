import { ACCESS_ANSWERS, type AccessAnswer } from '../../contract/access-api.ts'
import type { LogVerdict } from './log-verify.ts'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Db } from '../db/types.ts'
import { ProxyError } from '../errors.ts'
import { route, type AccessGate, type Principal, type RouteSpec } from '../http-types.ts'
import { sendJson } from '../http.ts'
import { NO_PARAMS, NO_QUERY } from '../schema.ts'
import type { AccessConfig } from './config.ts'
import { secureFor } from './route-helpers.ts'
import type { LimitRules } from './limits.ts'
import { accessLogRoutes } from './log-routes.ts'
import type { ScryptParams } from './passwords.ts'
import { createSignIn, SIGNIN_BODY } from './signin.ts'
import { clearSessionCookie, deleteSession, lookupSession, sessionCookie, type SessionTimes } from './sessions.ts'
import { userRoutes } from './user-routes.ts'

/** What the /api/auth/* handlers need from createAccess. */
export interface RouteDeps {
  cfg: AccessConfig
  db: Db
  now: () => number
  times: SessionTimes
  scrypt: ScryptParams
  limits: LimitRules
  identify: (req: IncomingMessage) => Promise<Principal | null>
  addressOf: (req: IncomingMessage) => string
  record: (actor: string, via: string, address: string, action: string, details: Record<string, unknown>) => void
  audit: AccessGate['audit']
  /** A read's entry, committed before it resolves (see Access.recordRead). */
  recordRead: (principal: Principal | null, address: string, action: string, details: Record<string, unknown>) => Promise<string>
  completeExport: (
    principal: Principal | null,
    address: string,
    started: string,
    result: { rows: number; complete: boolean },
    details?: Record<string, unknown>,
  ) => Promise<string>
  /** Writes the entries still queued, so a reader of the log sees everything up to now. */
  flushLog: () => Promise<void>
  dummyCheck: (password: string) => Promise<false>
  /** Called once per password checked at sign-in (tests count them). */
  onPasswordCheck?: () => void
  log: (line: string) => void
  /** The chain verified against itself, the signed heads and the retention (access.ts). */
  verifyLog: () => Promise<LogVerdict>
}

export function createAuthRoutes(d: RouteDeps): RouteSpec[] {
  const { cfg, db } = d

  const signIn = createSignIn(d)

  async function signOut(req: IncomingMessage, res: ServerResponse) {
    const id = sessionCookie(req)
    if (id) {
      const user = await lookupSession(db, id, d.now(), d.times)
      await deleteSession(db, id)
      if (user) d.record(user.name, 'password', d.addressOf(req), 'signout', {})
    }
    sendJson(
      res,
      200,
      { mode: cfg.mode, user: null } satisfies AccessAnswer<'me'>,
      cfg.mode === 'password' ? { 'set-cookie': clearSessionCookie(secureFor(cfg, req)) } : {},
    )
  }

  async function me(req: IncomingMessage, res: ServerResponse) {
    const p = await d.identify(req)
    sendJson(res, 200, { mode: cfg.mode, user: p ? { name: p.name, role: p.role } : null } satisfies AccessAnswer<'me'>)
  }

  const noSignIn = () =>
    new ProxyError(404, { kind: 'not_found', field: 'path', message: `There is no sign-in form with ACCESS=${cfg.mode}.` })
  // Sign-in, sign-out and "who am I" answer anyone; users and the access log only admins.
  return [
    cfg.mode === 'password'
      ? route({
          method: 'POST',
          path: '/api/auth/signin',
          access: 'public',
          reads: null,
          schema: { querystring: NO_QUERY, body: SIGNIN_BODY },
          response: ACCESS_ANSWERS.me,
          handle: (req, res, _url, _ctx, { body }) => signIn(req, res, body),
        })
      : // Without passwords the form is not there, whatever is sent to it.
        route({
          method: 'POST',
          path: '/api/auth/signin',
          access: 'public',
          reads: null,
          schema: NO_PARAMS,
          handle: () => Promise.reject(noSignIn()),
        }),
    route({
      method: 'POST',
      path: '/api/auth/signout',
      access: 'public',
      reads: null,
      schema: NO_PARAMS,
      response: ACCESS_ANSWERS.me,
      handle: (req, res) => signOut(req, res),
    }),
    route({
      method: 'GET',
      path: '/api/auth/me',
      access: 'public',
      reads: null,
      schema: NO_PARAMS,
      response: ACCESS_ANSWERS.me,
      handle: (req, res) => me(req, res),
    }),
    ...userRoutes(d),
    ...accessLogRoutes(d),
  ]
}
