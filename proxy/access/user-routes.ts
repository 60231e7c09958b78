import { ACCESS_ANSWERS, type AccessAnswer } from '../../contract/access-api.ts'
import { PERMISSIONS } from '../../contract/roles.ts'
import { z } from 'zod'
import { ProxyError, invalid } from '../errors.ts'
import { answering, route, type RouteHandler, type RouteSpec } from '../http-types.ts'
import { sendJson } from '../http.ts'
import { checked, jsonBody, NO_PARAMS, NO_QUERY } from '../schema.ts'
import { auditAs } from './route-helpers.ts'
import type { RouteDeps } from './route-helpers.ts'
import {
  addUser,
  changeUser,
  checkName,
  checkPassword,
  checkRole,
  listUsers,
  normaliseName,
  removalOf,
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

/** A users.ts check as a schema's: its UserError is the envelope's 400 naming the field. */
const userCheck =
  <T>(check: (raw: unknown) => T) =>
  (raw: unknown): T => {
    try {
      return check(raw)
    } catch (err) {
      throw err instanceof UserError ? fromUserError(err) : err
    }
  }

/** A new user: name, role and password by users.ts's rules; other fields are ignored. */
const NEW_USER = z.looseObject({}).transform(
  checked((body: Record<string, unknown>) => ({
    name: userCheck(checkName)(body.name),
    role: userCheck(checkRole)(body.role),
    password: userCheck((raw) => checkPassword(raw))(body.password),
  })),
)

/** A change: at least one of role, password (checked against the user's name by changeUser) and disabled. */
const USER_CHANGE = jsonBody(
  {
    role: z
      .unknown()
      .optional()
      .transform(checked(userCheck((raw) => (raw === undefined ? undefined : checkRole(raw))))),
    password: z.string({ error: 'password must be a string.' }).optional(),
    disabled: z.boolean({ error: 'disabled must be true or false.' }).optional(),
  },
  (name) => `Unknown field ${name}; send role, password or disabled.`,
).refine((c) => c.role !== undefined || c.password !== undefined || c.disabled !== undefined, {
  message: 'Send at least one of role, password or disabled.',
  path: ['body'],
})

/** The user a path names. */
const USER_PATH = z.object({ name: z.string() })

/** A UserError from users.ts is the envelope's 404, 409 or 400. */
const userErrors =
  <Q, B, P>(fn: RouteHandler<Q, B, P>): RouteHandler<Q, B, P> =>
  async (req, res, url, ctx, input) => {
    try {
      await fn(req, res, url, ctx, input)
    } catch (err) {
      throw err instanceof UserError ? fromUserError(err) : err
    }
  }

export const userRoutes = (d: RouteDeps): RouteSpec[] => [
  route({
    method: 'GET',
    path: '/api/auth/users',
    access: PERMISSIONS.manageUsers,
    reads: null,
    schema: NO_PARAMS,
    response: ACCESS_ANSWERS.users,
    handle: answering(async () => ({ status: 200, body: { users: await listUsers(d.db) } satisfies AccessAnswer<'users'> })),
  }),
  route({
    method: 'POST',
    path: '/api/auth/users',
    access: PERMISSIONS.manageUsers,
    reads: null,
    schema: { querystring: NO_QUERY, body: NEW_USER },
    response: ACCESS_ANSWERS.user,
    handle: userErrors(async (req, res, _url, ctx, { body }) => {
      const record = () => auditAs(d, req, ctx)('user.add', { user: normaliseName(body.name), role: body.role })
      const user = await addUser(d.db, body, { now: new Date(d.now()), scrypt: d.scrypt, record })
      sendJson(res, 201, { user } satisfies AccessAnswer<'user'>)
    }),
  }),
  route({
    method: 'POST',
    path: '/api/auth/users/:name',
    access: PERMISSIONS.manageUsers,
    reads: null,
    schema: { querystring: NO_QUERY, body: USER_CHANGE, params: USER_PATH },
    response: ACCESS_ANSWERS.user,
    handle: userErrors(async (req, res, _url, ctx, { body, params }) => {
      const change: UserChange = {}
      if (body.role !== undefined) change.role = body.role
      if (body.password !== undefined) change.password = body.password
      if (body.disabled !== undefined) change.disabled = body.disabled
      const record = () =>
        auditAs(
          d,
          req,
          ctx,
        )('user.change', {
          user: normaliseName(params.name),
          ...(change.role ? { role: change.role } : {}),
          ...(change.password !== undefined ? { passwordReset: true } : {}),
          ...(change.disabled !== undefined ? { disabled: change.disabled } : {}),
        })
      const user = await changeUser(d.db, params.name, change, { now: new Date(d.now()), scrypt: d.scrypt, record })
      sendJson(res, 200, { user } satisfies AccessAnswer<'user'>)
    }),
  }),
  route({
    method: 'DELETE',
    path: '/api/auth/users/:name',
    access: PERMISSIONS.manageUsers,
    reads: null,
    schema: { querystring: NO_QUERY, params: USER_PATH },
    response: ACCESS_ANSWERS.removed,
    handle: userErrors(async (req, res, _url, ctx, { params }) => {
      // What goes, read first: the entry is stored before the removal (a refusal is not logged).
      const going = await removalOf(d.db, params.name)
      await auditAs(d, req, ctx)('user.remove', { user: normaliseName(params.name), ...going })
      const gone = await removeUser(d.db, params.name)
      sendJson(res, 200, { removed: normaliseName(params.name), ...gone } satisfies AccessAnswer<'removed'>)
    }),
  }),
]
