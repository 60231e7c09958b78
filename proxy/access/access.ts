import type { IncomingMessage } from 'node:http'
import type { Db } from '../db/types.ts'
import type { AccessGate, Principal } from '../http-types.ts'
import { insertEntries, purgeAccessLog, type NewEntry } from './access-log.ts'
import { clientAddress } from './address.ts'
import { normaliseAddress, type AccessConfig } from './config.ts'
import { DEFAULT_LIMITS, purgeLimits, type LimitRules } from './limits.ts'
import { createDummyCheck, DEFAULT_SCRYPT, type ScryptParams } from './passwords.ts'
import { createAuthRoutes } from './routes.ts'
import { lookupSession, purgeSessions, sessionCookie } from './sessions.ts'

/**
 * Team access (issue 15): the AccessGate app.ts consults for every /api/* request, and the
 * /api/auth/* routes. Three modes:
 * - local: nobody signs in; every request is "local" with the admin role (loopback only, see
 *   checkExposure).
 * - password: a session cookie from POST /api/auth/signin.
 * - header: AUTH_HEADER set by a single-sign-on proxy, believed only on connections whose socket
 *   address is in TRUSTED_PROXIES; the same header from anywhere else identifies nobody (401).
 */

export interface AccessDeps {
  db: Db
  log?: (line: string) => void
  /** The clock (ms since the epoch); tests move it to expire sessions. */
  now?: () => number
  /** Hash cost for new passwords and the unknown-name dummy check; tests lower it. */
  scrypt?: ScryptParams
  limits?: LimitRules
  /** Called once per password checked at sign-in (tests count them). */
  onPasswordCheck?: () => void
}

export interface Access extends AccessGate {
  config: AccessConfig
  /** The client's address as the access log records it (X-Forwarded-For only via a trusted proxy). */
  clientAddress: (req: IncomingMessage) => string
  /** For `/api/meta`: the mode, so the browser knows whether to show sign-in. */
  meta: () => { accessMode: AccessConfig['mode'] }
  /** Resolves when every access-log write started so far has finished (tests, shutdown). */
  flush: () => Promise<void>
  /** The retention purge (access log, expired sessions, old sign-in failures); runs at start and daily. */
  purge: () => Promise<void>
  close: () => Promise<void>
}

export const LOCAL_PRINCIPAL: Principal = Object.freeze({ name: 'local', role: 'admin', via: 'local' })

const DAY_MS = 86_400_000
/** An identity header value worth believing: one value, printable, of sane length (emails, logins). */
const IDENTITY = /^[^\s,;\u0000-\u001f\u007f]{1,320}$/

export function createAccess(cfg: AccessConfig, deps: AccessDeps): Access {
  const { db } = deps
  const log = deps.log ?? ((line: string) => console.error(line))
  const now = deps.now ?? Date.now
  const scrypt = deps.scrypt ?? DEFAULT_SCRYPT
  const limits = deps.limits ?? DEFAULT_LIMITS
  const times = { idleMs: cfg.sessionIdleMs, maxMs: cfg.sessionMaxMs }
  const dummyCheck = createDummyCheck(scrypt)
  const pending = new Set<Promise<void>>()

  const addressOf = (req: IncomingMessage) => clientAddress(req, cfg)

  async function identify(req: IncomingMessage): Promise<Principal | null> {
    if (cfg.mode === 'local') return LOCAL_PRINCIPAL
    if (cfg.mode === 'header') {
      // Only the socket's own address counts here: X-Forwarded-For is written by the client.
      const peer = req.socket.remoteAddress ?? ''
      if (!cfg.trustedProxies.has(peer) || !cfg.authHeader) return null
      const value = req.headers[cfg.authHeader]
      if (typeof value !== 'string') return null
      const name = value.trim().toLowerCase()
      if (!IDENTITY.test(name)) return null
      return { name, role: cfg.admins.has(name) ? 'admin' : 'viewer', via: 'header' }
    }
    const id = sessionCookie(req)
    if (!id) return null
    const user = await lookupSession(db, id, now(), times)
    return user ? { name: user.name, role: user.role, via: 'password', sessionId: user.sessionId } : null
  }

  /**
   * One entry, written in the background: never throws, never holds up the response. Entries are
   * queued and written together, one statement per 100 ms at most (and at once past 500): with
   * PGlite the database runs on the server's own thread, and one INSERT per history request cost
   * every request about a millisecond. `flush()` and `close()` write what is queued.
   */
  let queue: NewEntry[] = []
  let flushTimer: ReturnType<typeof setTimeout> | null = null
  function writeQueued(): void {
    if (flushTimer) clearTimeout(flushTimer)
    flushTimer = null
    const batch = queue
    queue = []
    if (batch.length === 0) return
    let p: Promise<void>
    try {
      p = insertEntries(db, batch).catch((err: unknown) => {
        log(`access log: could not record ${what(batch)}: ${err instanceof Error ? err.message : String(err)}`)
      })
    } catch (err) {
      log(`access log: could not record ${what(batch)}: ${err instanceof Error ? err.message : String(err)}`)
      return
    }
    pending.add(p)
    void p.finally(() => pending.delete(p))
  }
  const what = (batch: NewEntry[]) =>
    batch
      .slice(0, 3)
      .map((e) => `${e.action} by ${e.actor}`)
      .join(', ') + (batch.length > 3 ? ` and ${batch.length - 3} more` : '')
  function record(actor: string, via: string, address: string, action: string, details: Record<string, unknown>): void {
    queue.push({ at: new Date(now()), actor, via, address, action, details })
    if (queue.length >= 500) writeQueued()
    else flushTimer ??= setTimeout(writeQueued, 100).unref()
  }

  const audit: AccessGate['audit'] = (principal, address, action, details) => {
    record(principal?.name ?? '(nobody)', principal?.via ?? 'anonymous', normaliseAddress(address), action, details)
  }

  async function flushLog(): Promise<void> {
    writeQueued()
    while (pending.size) await Promise.all([...pending])
  }

  const routes = createAuthRoutes({
    cfg,
    db,
    now,
    times,
    scrypt,
    limits,
    identify,
    addressOf,
    record,
    audit,
    flushLog,
    dummyCheck,
    log,
    onPasswordCheck: deps.onPasswordCheck,
  })

  async function purge(): Promise<void> {
    const t = now()
    try {
      const entries = await purgeAccessLog(db, cfg.accessLogRetainDays, t)
      const sessions = await purgeSessions(db, t, times)
      await purgeLimits(db, t, limits)
      if (entries || sessions)
        log(`access: purged ${entries} access-log entries older than ${cfg.accessLogRetainDays} days, ${sessions} expired sessions`)
    } catch (err) {
      log(`access: the retention purge failed: ${err instanceof Error ? err.message : String(err)}`)
    }
  }

  const started = purge()
  pending.add(started)
  void started.finally(() => pending.delete(started))
  const timer = setInterval(() => void purge(), DAY_MS)
  timer.unref()

  return {
    config: cfg,
    identify,
    routes,
    audit,
    recordRead: async (principal, address, action, details) => {
      audit(principal, address, action, details)
      await flushLog()
    },
    clientAddress: addressOf,
    meta: () => ({ accessMode: cfg.mode }),
    flush: flushLog,
    purge,
    close: async () => {
      clearInterval(timer)
      await flushLog()
    },
  }
}
