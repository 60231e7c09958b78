import type { IncomingMessage, ServerResponse } from 'node:http'
import { finished } from 'node:stream/promises'
import type { Db } from '../db/types.ts'
import { ProxyError, invalid } from '../errors.ts'
import type { AccessGate, Principal, RequestContext, Route } from '../http-types.ts'
import { readJsonBody, SECURITY_HEADERS, sendError, sendJson } from '../http.ts'
import { csvCell } from '../../contract/csv.ts'
import { CSV_HEADER, csvLine, decodeCursor, encodeCursor, listEntries, verifyLog, type LogFilters } from './access-log.ts'
import type { AccessConfig } from './config.ts'
import { checkLimit, clearNameFailures, recordFailure, type LimitRules } from './limits.ts'
import { verifyPassword, PASSWORD_MAX, type ScryptParams } from './passwords.ts'
import {
  clearSessionCookie,
  createSession,
  deleteSession,
  lookupSession,
  sessionCookie,
  sessionSetCookie,
  type SessionTimes,
} from './sessions.ts'
import {
  addUser,
  changeUser,
  checkName,
  checkPassword,
  checkRole,
  credentialsOf,
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
  log: (line: string) => void
}

const LIST_LIMIT_MAX = 500
const EXPORT_BATCH = 500

const methodNotAllowed = (allow: string) => new ProxyError(405, { kind: 'invalid_request', field: 'method', message: `Use ${allow} here.` })
const notFound = (path: string) => new ProxyError(404, { kind: 'not_found', field: 'path', message: `Nothing at ${path.slice(0, 80)}.` })
const forbidden = () => new ProxyError(403, { kind: 'forbidden', message: 'Only admins may do this.' })

function fromUserError(err: UserError): ProxyError {
  if (err.code === 'not_found') return new ProxyError(404, { kind: 'not_found', field: err.field, message: err.message })
  if (err.code === 'exists' || err.code === 'last_admin')
    return new ProxyError(409, { kind: 'invalid_request', field: err.field, message: err.message })
  return invalid(err.field, err.message)
}

/** Query parameters: only the known ones, each at most once (a repeated filter is ambiguous). */
function queryParams(url: URL, known: readonly string[]): Map<string, string> {
  const out = new Map<string, string>()
  for (const [k, v] of url.searchParams) {
    if (!known.includes(k)) throw invalid(k.slice(0, 40), `Unknown parameter ${k.slice(0, 40)}; this path takes ${known.join(', ')}.`)
    if (out.has(k)) throw invalid(k, `${k} was sent more than once.`)
    out.set(k, v.trim())
  }
  return out
}

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

function stringField(body: Record<string, unknown>, field: string, max: number): string {
  const v = body[field]
  if (typeof v !== 'string' || v === '') throw invalid(field, `${field} is required.`)
  if (v.length > max) throw invalid(field, `${field} must be at most ${max} characters.`)
  return v
}

export function createAuthRoutes(d: RouteDeps): Route[] {
  const { cfg, db } = d
  const secureFor = (req: IncomingMessage) => ({ secure: cfg.trustProxy || Boolean((req.socket as { encrypted?: boolean }).encrypted) })

  async function signIn(req: IncomingMessage, res: ServerResponse) {
    if (cfg.mode !== 'password')
      throw new ProxyError(404, { kind: 'not_found', field: 'path', message: `There is no sign-in form with ACCESS=${cfg.mode}.` })
    const body = await readJsonBody(req)
    const rawName = stringField(body, 'name', 320)
    const password = stringField(body, 'password', PASSWORD_MAX * 4)
    const address = d.addressOf(req)
    const key = normaliseName(rawName).slice(0, 100)
    const limited = await checkLimit(db, key, address, d.now(), d.limits)
    if (limited) {
      // Refused before any password work, so a flood costs no hashing.
      return sendError(
        res,
        new ProxyError(429, {
          kind: 'unauthorized',
          field: limited.scope === 'name' ? 'name' : 'address',
          message: limited.message,
          retryAfterMs: limited.retryAfterMs,
        }),
        {
          'retry-after': String(Math.ceil(limited.retryAfterMs / 1000)),
        },
      )
    }
    let name: string | null
    try {
      name = checkName(rawName)
    } catch {
      name = null
    }
    const user = name ? await credentialsOf(db, name) : null
    // Unknown names, disabled users: the same scrypt work and the same answer as a wrong password.
    const ok = user && !user.disabled ? await verifyPassword(password, user.passwordHash) : await d.dummyCheck(password)
    if (!ok || !user) {
      await recordFailure(db, key, address, d.now())
      d.record(name ?? '(invalid name)', 'password', address, 'signin.fail', { name: key.slice(0, 64) })
      return sendError(
        res,
        new ProxyError(401, {
          kind: 'unauthorized',
          field: 'password',
          message: 'That name and password do not match a user who may sign in.',
        }),
      )
    }
    await clearNameFailures(db, key)
    // Session fixation (OWASP): whatever id the browser held before is ended, and a new one issued.
    const before = sessionCookie(req)
    if (before) await deleteSession(db, before)
    const session = await createSession(db, user.name, address, d.now(), d.times)
    d.record(user.name, 'password', address, 'signin.ok', {})
    sendJson(
      res,
      200,
      { mode: cfg.mode, user: { name: user.name, role: user.role } },
      { 'set-cookie': sessionSetCookie(session.id, secureFor(req)) },
    )
  }

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

  async function users(req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, rest: string) {
    const actorAddress = d.addressOf(req)
    const audit = (action: string, details: Record<string, unknown>) => d.audit(ctx.principal, actorAddress, action, details)
    if (rest === '') {
      if (req.method === 'GET') {
        queryParams(url, [])
        return sendJson(res, 200, { users: await listUsers(db) })
      }
      if (req.method === 'POST') {
        const body = await readJsonBody(req)
        const input = { name: checkName(body.name), role: checkRole(body.role), password: checkPassword(body.password) }
        const user = await addUser(db, input, { now: new Date(d.now()), scrypt: d.scrypt })
        audit('user.add', { user: user.name, role: user.role })
        return sendJson(res, 201, { user })
      }
      throw methodNotAllowed('GET or POST')
    }
    let target: string
    try {
      target = decodeURIComponent(rest)
    } catch {
      throw invalid('name', 'The user name in the path is not valid.')
    }
    if (req.method === 'DELETE') {
      await removeUser(db, target)
      audit('user.remove', { user: normaliseName(target) })
      return sendJson(res, 200, { removed: normaliseName(target) })
    }
    if (req.method === 'POST') {
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
      audit('user.change', {
        user: user.name,
        ...(change.role ? { role: change.role } : {}),
        ...(change.password !== undefined ? { passwordReset: true } : {}),
        ...(change.disabled !== undefined ? { disabled: change.disabled } : {}),
      })
      return sendJson(res, 200, { user })
    }
    throw methodNotAllowed('POST or DELETE')
  }

  async function accessLog(req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext, rest: string) {
    if (req.method !== 'GET') throw methodNotAllowed('GET')
    await d.flushLog()
    if (rest === '') {
      const q = queryParams(url, [...FILTER_KEYS, 'limit', 'cursor'])
      const filters = logFilters(q)
      const limitText = q.get('limit') || '100'
      if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > LIST_LIMIT_MAX)
        throw invalid('limit', `limit must be a whole number from 1 to ${LIST_LIMIT_MAX}.`)
      const cursorText = q.get('cursor')
      const cursor = cursorText ? decodeCursor(cursorText) : null
      if (cursorText && !cursor) throw invalid('cursor', 'cursor is not one this server gave out.')
      const page = await listEntries(db, filters, Number(limitText), cursor)
      return sendJson(res, 200, { entries: page.entries, nextCursor: page.next ? encodeCursor(page.next) : null })
    }
    if (rest === 'verify') {
      queryParams(url, [])
      return sendJson(res, 200, await verifyLog(db))
    }
    if (rest === 'export') {
      const q = queryParams(url, [...FILTER_KEYS])
      const filters = logFilters(q)
      const address = d.addressOf(req)
      const what = { what: 'access-log', filters: filtersRecord(q) }
      // The export's entry is committed before the first row leaves; no entry, no export.
      let started: string
      try {
        started = await d.recordRead(ctx.principal, address, 'export', what)
      } catch (err) {
        d.log(
          `access log: could not record an access-log export by ${ctx.principal.name}: ${err instanceof Error ? err.message : String(err)}`,
        )
        throw new ProxyError(503, {
          kind: 'server_error',
          message: 'The access log could not record this export, so it was not started. Try again.',
        })
      }
      const day = new Date(d.now()).toISOString().slice(0, 10)
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
      try {
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
        await finished(res).catch(() => {})
      } finally {
        await d
          .completeExport(ctx.principal, address, started, { rows, complete: !aborted && res.writableFinished }, what)
          .catch((err: unknown) => {
            d.log(`access log: could not record the end of export ${started}: ${err instanceof Error ? err.message : String(err)}`)
          })
      }
      return
    }
    throw notFound(url.pathname)
  }

  const handle = async (req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) => {
    const path = url.pathname
    try {
      if (path === '/api/auth/signin') {
        if (req.method !== 'POST') throw methodNotAllowed('POST')
        return await signIn(req, res)
      }
      if (path === '/api/auth/signout') {
        if (req.method !== 'POST') throw methodNotAllowed('POST')
        return await signOut(req, res)
      }
      if (path === '/api/auth/me') {
        if (req.method !== 'GET') throw methodNotAllowed('GET')
        return await me(req, res)
      }
      const admin = /^\/api\/auth\/(users|access-log)(?:\/(.*))?$/.exec(path)
      if (!admin) throw notFound(path)
      // app.ts refuses viewers on adminOnly routes; checked again here so these paths never rely on one check.
      if (ctx.principal.role !== 'admin') throw forbidden()
      if (admin[1] === 'users') return await users(req, res, url, ctx, admin[2] ?? '')
      return await accessLog(req, res, url, ctx, admin[2] ?? '')
    } catch (err) {
      if (res.headersSent) throw err
      if (err instanceof UserError) return sendError(res, fromUserError(err))
      if (err instanceof ProxyError) {
        req.resume()
        return sendError(
          res,
          err,
          err.status === 405 ? { allow: err.body.message.replace(/^Use (.*) here\.$/, '$1').replace(' or ', ', ') } : {},
        )
      }
      throw err
    }
  }

  return [
    { prefix: '/api/auth/', handle },
    { prefix: '/api/auth/users', handle, adminOnly: true },
    { prefix: '/api/auth/access-log', handle, adminOnly: true },
  ]
}
