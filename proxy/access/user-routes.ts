import type { IncomingMessage } from 'node:http'
import { ProxyError, invalid } from '../errors.ts'
import type { RequestContext, RouteSpec } from '../http-types.ts'
import { readJsonBody, readQuery, sendJson } from '../http.ts'
import type { RouteDeps } from './routes.ts'
import {
  addUser,
  changeUser,
  checkName,
  checkPassword,
  checkRole,
  listUsers,
  normaliseName,
  removeUser,
  UserError,
  type UserChange,
} from './users.ts'

/** The team's users, for admins: list, add, change (role, password, disabled), remove. */

function fromUserError(err: UserError): ProxyError {
  if (err.code === 'not_found') return new ProxyError(404, { kind: 'not_found', field: err.field, message: err.message })
  if (err.code === 'exists' || err.code === 'last_admin')
    return new ProxyError(409, { kind: 'invalid_request', field: err.field, message: err.message })
  return invalid(err.field, err.message)
}

/** These routes take no query parameters. */
const noQuery = (url: URL) => readQuery(url, [], { trim: true })

const auditAs = (d: RouteDeps, req: IncomingMessage, ctx: RequestContext) => (action: string, details: Record<string, unknown>) =>
  d.audit(ctx.principal, d.addressOf(req), action, details)

const listUsersRoute =
  (d: RouteDeps): RouteSpec['handle'] =>
  async (_req, res, url) => {
    noQuery(url)
    sendJson(res, 200, { users: await listUsers(d.db) })
  }

const addUserRoute =
  (d: RouteDeps): RouteSpec['handle'] =>
  async (req, res, url, ctx) => {
    noQuery(url)
    const body = await readJsonBody(req)
    const input = { name: checkName(body.name), role: checkRole(body.role), password: checkPassword(body.password) }
    const user = await addUser(d.db, input, { now: new Date(d.now()), scrypt: d.scrypt })
    auditAs(d, req, ctx)('user.add', { user: user.name, role: user.role })
    sendJson(res, 201, { user })
  }

const removeUserRoute =
  (d: RouteDeps): RouteSpec['handle'] =>
  async (req, res, url, ctx, params) => {
    noQuery(url)
    const target = params.name ?? ''
    const gone = await removeUser(d.db, target)
    auditAs(d, req, ctx)('user.remove', { user: normaliseName(target), ...gone })
    sendJson(res, 200, { removed: normaliseName(target), ...gone })
  }

const changeUserRoute =
  (d: RouteDeps): RouteSpec['handle'] =>
  async (req, res, url, ctx, params) => {
    noQuery(url)
    const target = params.name ?? ''
    const body = await readJsonBody(req)
    for (const k of Object.keys(body))
      if (!['role', 'password', 'disabled'].includes(k))
        throw invalid(k.slice(0, 40), `Unknown field ${k.slice(0, 40)}; send role, password or disabled.`)
    const change: UserChange = {}
    if (body.role !== undefined) change.role = checkRole(body.role)
    if (body.password !== undefined) {
      if (typeof body.password !== 'string') throw invalid('password', 'password must be a string.')
      change.password = body.password
    }
    if (body.disabled !== undefined) {
      if (typeof body.disabled !== 'boolean') throw invalid('disabled', 'disabled must be true or false.')
      change.disabled = body.disabled
    }
    if (Object.keys(change).length === 0) throw invalid('body', 'Send at least one of role, password or disabled.')
    const user = await changeUser(d.db, target, change, { now: new Date(d.now()), scrypt: d.scrypt })
    auditAs(
      d,
      req,
      ctx,
    )('user.change', {
      user: user.name,
      ...(change.role ? { role: change.role } : {}),
      ...(change.password !== undefined ? { passwordReset: true } : {}),
      ...(change.disabled !== undefined ? { disabled: change.disabled } : {}),
    })
    sendJson(res, 200, { user })
  }

/** A UserError from users.ts is the envelope's 404, 409 or 400. */
const userErrors =
  (fn: RouteSpec['handle']): RouteSpec['handle'] =>
  async (req, res, url, ctx, params) => {
    try {
      await fn(req, res, url, ctx, params)
    } catch (err) {
      throw err instanceof UserError ? fromUserError(err) : err
    }
  }

export const userRoutes = (d: RouteDeps): RouteSpec[] => [
  { method: 'GET', path: '/api/auth/users', access: 'admin', reads: null, handle: userErrors(listUsersRoute(d)) },
  { method: 'POST', path: '/api/auth/users', access: 'admin', reads: null, handle: userErrors(addUserRoute(d)) },
  { method: 'POST', path: '/api/auth/users/:name', access: 'admin', reads: null, handle: userErrors(changeUserRoute(d)) },
  { method: 'DELETE', path: '/api/auth/users/:name', access: 'admin', reads: null, handle: userErrors(removeUserRoute(d)) },
]
