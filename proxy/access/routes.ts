import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Db } from '../db/types.ts'
import { ProxyError, invalid } from '../errors.ts'
import type { AccessGate, Principal, RequestContext, RouteSpec } from '../http-types.ts'
import { readJsonBody, readQuery, SECURITY_HEADERS, sendJson } from '../http.ts'
import { csvCell } from '../../contract/csv.ts'
import { CSV_HEADER, csvLine, decodeCursor, encodeCursor, listEntries, type LogFilters } from './access-log.ts'
import type { AccessConfig } from './config.ts'
import type { LimitRules } from './limits.ts'
import type { ScryptParams } from './passwords.ts'
import { createSignIn } from './signin.ts'
import { clearSessionCookie, deleteSession, lookupSession, sessionCookie, type SessionTimes } from './sessions.ts'
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
  /** Writes the entries still queued, so a reader of the log sees everything up to now. */
  flushLog: () => Promise<void>
  dummyCheck: (password: string) => Promise<false>
  /** Called once per password checked at sign-in (tests count them). */
  onPasswordCheck?: () => void
  log: (line: string) => void
}

const LIST_LIMIT_MAX = 500
const EXPORT_BATCH = 500

function fromUserError(err: UserError): ProxyError {
  if (err.code === 'not_found') return new ProxyError(404, { kind: 'not_found', field: err.field, message: err.message })
  if (err.code === 'exists' || err.code === 'last_admin')
    return new ProxyError(409, { kind: 'invalid_request', field: err.field, message: err.message })
  return invalid(err.field, err.message)
}

/** Query parameters: only the known ones, each at most once, trimmed. */
const queryParams = (url: URL, known: readonly string[]) => readQuery(url, known, { trim: true })

const PRINTABLE = /^[^\u0000-\u001f\u007f]*$/

function textFilter(q: Map<string, string>, field: string, max: number): string | undefined {
  const v = q.get(field)
  if (v === undefined || v === '') return undefined
  if (v.length > max || !PRINTABLE.test(v)) throw invalid(field, `${field} must be at most ${max} printable characters.`)
  return v
}

/** YYYY-MM-DD (a whole UTC day; `to` inclusive) or a full ISO timestamp, as in contract/index-api.ts. */
function dateFilter(q: Map<string, string>, field: 'from' | 'to'): Date | undefined {
  const v = q.get(field)
  if (v === undefined || v === '') return undefined
  const day = /^\d{4}-\d{2}-\d{2}$/.test(v)
  const ms = day ? Date.parse(`${v}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T/.test(v) ? Date.parse(v) : NaN
  if (!Number.isFinite(ms) || (day && new Date(ms).toISOString().slice(0, 10) !== v))
    throw invalid(field, `${field} must be a date (YYYY-MM-DD) or an ISO 8601 timestamp.`)
  return new Date(day && field === 'to' ? ms + 86_400_000 : ms)
}

const FILTER_KEYS = ['user', 'number', 'party', 'action', 'from', 'to'] as const

function logFilters(q: Map<string, string>): LogFilters {
  const f: LogFilters = {}
  const user = textFilter(q, 'user', 320)
  if (user) f.user = user.toLowerCase()
  const number = textFilter(q, 'number', 64)
  if (number) f.number = number
  const party = textFilter(q, 'party', 64)
  if (party) f.party = party
  const action = textFilter(q, 'action', 60)
  if (action) {
    if (!/^[a-z][a-z._-]*$/.test(action)) throw invalid('action', 'action must be an action name such as signin.ok or history.view.')
    f.action = action
  }
  const from = dateFilter(q, 'from')
  if (from) f.from = from
  const to = dateFilter(q, 'to')
  if (to) f.to = to
  if (f.from && f.to && f.from >= f.to) throw invalid('to', 'to must be after from.')
  return f
}

/** The filters as written, for the access log's own record of an export or a read. */
const filtersRecord = (q: Map<string, string>) => Object.fromEntries(FILTER_KEYS.flatMap((k) => (q.get(k) ? [[k, q.get(k)]] : [])))

export function createAuthRoutes(d: RouteDeps): RouteSpec[] {
  const { cfg, db } = d
  const secureFor = (req: IncomingMessage) => ({ secure: cfg.trustProxy || Boolean((req.socket as { encrypted?: boolean }).encrypted) })

  const signIn = createSignIn(d)

  async function signOut(req: IncomingMessage, res: ServerResponse) {
    const id = sessionCookie(req)
    if (id) {
      const user = await lookupSession(db, id, d.now(), d.times)
      await deleteSession(db, id)
      if (user) d.record(user.name, 'password', d.addressOf(req), 'signout', {})
    }
    sendJson(res, 200, { mode: cfg.mode, user: null }, cfg.mode === 'password' ? { 'set-cookie': clearSessionCookie(secureFor(req)) } : {})
  }

  async function me(req: IncomingMessage, res: ServerResponse) {
    const p = await d.identify(req)
    sendJson(res, 200, { mode: cfg.mode, user: p ? { name: p.name, role: p.role } : null })
  }

  const auditAs = (req: IncomingMessage, ctx: RequestContext) => (action: string, details: Record<string, unknown>) =>
    d.audit(ctx.principal, d.addressOf(req), action, details)

  const listUsersRoute: RouteSpec['handle'] = async (_req, res, url) => {
    queryParams(url, [])
    sendJson(res, 200, { users: await listUsers(db) })
  }

  const addUserRoute: RouteSpec['handle'] = async (req, res, url, ctx) => {
    queryParams(url, [])
    const body = await readJsonBody(req)
    const input = { name: checkName(body.name), role: checkRole(body.role), password: checkPassword(body.password) }
    const user = await addUser(db, input, { now: new Date(d.now()), scrypt: d.scrypt })
    auditAs(req, ctx)('user.add', { user: user.name, role: user.role })
    sendJson(res, 201, { user })
  }

  const removeUserRoute: RouteSpec['handle'] = async (req, res, url, ctx, params) => {
    queryParams(url, [])
    const target = params.name ?? ''
    await removeUser(db, target)
    auditAs(req, ctx)('user.remove', { user: normaliseName(target) })
    sendJson(res, 200, { removed: normaliseName(target) })
  }

  const changeUserRoute: RouteSpec['handle'] = async (req, res, url, ctx, params) => {
    queryParams(url, [])
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
    const user = await changeUser(db, target, change, { now: new Date(d.now()), scrypt: d.scrypt })
    auditAs(req, ctx)('user.change', {
      user: user.name,
      ...(change.role ? { role: change.role } : {}),
      ...(change.password !== undefined ? { passwordReset: true } : {}),
      ...(change.disabled !== undefined ? { disabled: change.disabled } : {}),
    })
    sendJson(res, 200, { user })
  }

  const accessLogList: RouteSpec['handle'] = async (_req, res, url, ctx) => {
    await d.flushLog()
    const q = queryParams(url, [...FILTER_KEYS, 'limit', 'cursor'])
    const filters = logFilters(q)
    const limitText = q.get('limit') || '100'
    if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > LIST_LIMIT_MAX)
      throw invalid('limit', `limit must be a whole number from 1 to ${LIST_LIMIT_MAX}.`)
    const cursorText = q.get('cursor')
    const cursor = cursorText ? decodeCursor(cursorText) : null
    if (cursorText && !cursor) throw invalid('cursor', 'cursor is not one this server gave out.')
    const page = await listEntries(db, filters, Number(limitText), cursor)
    await ctx.logRead({ filters: filtersRecord(q), rows: page.entries.length })
    sendJson(res, 200, { entries: page.entries, nextCursor: page.next ? encodeCursor(page.next) : null })
  }

  const accessLogExport: RouteSpec['handle'] = async (req, res, url, ctx) => {
    await d.flushLog()
    const q = queryParams(url, [...FILTER_KEYS])
    const filters = logFilters(q)
    const day = new Date(d.now()).toISOString().slice(0, 10)
    await ctx.logRead({ what: 'access-log', filters: filtersRecord(q) })
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="switchboard-access-log-${day}.csv"`,
      'cache-control': 'no-store',
    })
    let aborted = false
    res.on('close', () => {
      if (!res.writableFinished) aborted = true
    })
    // A BOM so spreadsheet programs read UTF-8; batches over the keyset keep memory flat.
    res.write(`\uFEFF${CSV_HEADER.map(csvCell).join(',')}\r\n`)
    let rows = 0
    let cursor = null
    do {
      const page = await listEntries(db, filters, EXPORT_BATCH, cursor)
      const chunk = page.entries.map(csvLine).join('')
      rows += page.entries.length
      cursor = page.next
      if (chunk && !res.write(chunk) && !aborted)
        await new Promise<void>((ok) => {
          res.once('drain', ok)
          res.once('close', ok)
        })
    } while (cursor && !aborted)
    res.end()
    auditAs(req, ctx)('export.done', { what: 'access-log', rows, complete: !aborted, filters: filtersRecord(q) })
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
  const noQuery = (url: URL) => queryParams(url, [])
  // Sign-in, sign-out and "who am I" answer anyone; users and the access log only admins (the
  // log shows which customer numbers and parties were read, so reading it is a logged read too).
  return [
    {
      method: 'POST',
      path: '/api/auth/signin',
      access: 'public',
      reads: null,
      handle: (req, res, url) => (noQuery(url), signIn(req, res)),
    },
    {
      method: 'POST',
      path: '/api/auth/signout',
      access: 'public',
      reads: null,
      handle: (req, res, url) => (noQuery(url), signOut(req, res)),
    },
    { method: 'GET', path: '/api/auth/me', access: 'public', reads: null, handle: (req, res, url) => (noQuery(url), me(req, res)) },
    { method: 'GET', path: '/api/auth/users', access: 'admin', reads: null, handle: userErrors(listUsersRoute) },
    { method: 'POST', path: '/api/auth/users', access: 'admin', reads: null, handle: userErrors(addUserRoute) },
    { method: 'POST', path: '/api/auth/users/:name', access: 'admin', reads: null, handle: userErrors(changeUserRoute) },
    { method: 'DELETE', path: '/api/auth/users/:name', access: 'admin', reads: null, handle: userErrors(removeUserRoute) },
    { method: 'GET', path: '/api/auth/access-log', access: 'admin', reads: 'access-log.view', handle: accessLogList },
    { method: 'GET', path: '/api/auth/access-log/export', access: 'admin', reads: 'export', handle: accessLogExport },
  ]
}
