import { ACCESS_ANSWERS, type AccessAnswer } from '../../contract/access-api.ts'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ProxyError } from '../errors.ts'
import { route, type RouteSpec } from '../http-types.ts'
import { sendJson } from '../http.ts'
import { NO_PARAMS, NO_QUERY } from '../schema.ts'
import { secureFor, type RouteDeps } from './route-helpers.ts'
import { accessLogRoutes } from './log-routes.ts'
import { createSignIn, SIGNIN_BODY } from './signin.ts'
import { clearSessionCookie, deleteSession, lookupSession, sessionCookie } from './sessions.ts'
import { userRoutes } from './user-routes.ts'

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
