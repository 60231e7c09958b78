import { createPublicKey } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { IDLE_HEADER, LEAST_ROLE, MOST_ROLE } from '../../contract/roles.ts'
import type { Db } from '../db/types.ts'
import type { AccessGate, Principal } from '../http-types.ts'
import { readHead, type NewEntry } from './access-log.ts'
import { purgeAccessLog } from './log-purge.ts'
import { logAnchor, verifyLog, type LogVerdict } from './log-verify.ts'
import { appendSignedHead, headsFileOf, loadSigningKey, readSignedHeads, signHead, type SignedHead } from './signed-heads.ts'
import { clientAddress } from './address.ts'
import { normaliseAddress, type AccessConfig } from './config.ts'
import { DEFAULT_LIMITS, purgeLimits, type LimitRules } from './limits.ts'
import { createDummyCheck, DEFAULT_SCRYPT, type ScryptParams } from './passwords.ts'
import { journalPathOf } from './log-journal.ts'
import { createLogWriter, type LogWriter } from './log-writer.ts'
import { createAuthRoutes } from './routes.ts'
import { lookupSession, purgeSessions, sessionCookie, type SessionTimes } from './sessions.ts'

/**
 * Team access: the AccessGate app.ts consults for every /api/* request, and the
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
  /**
   * One read's entry, stored (PostgreSQL: committed; PGlite: journaled, which survives a kill but not a power cut): resolves with the entry's number in the chain only once it is
   * committed, rejects if it cannot be written (the read must then be refused, not answered).
   * Entries arriving together are committed in one transaction, each caller awaiting its own.
   */
  recordRead: (principal: Principal | null, address: string, action: string, details: Record<string, unknown>) => Promise<string>
  /**
   * An export's second entry, `export.done`, linked to the one `recordRead` returned when it
   * started (the log is append-only, so completion is a new entry): rows written and whether
   * the export finished. `details` may repeat number/party so the log's filters find it too.
   */
  completeExport: (
    principal: Principal | null,
    address: string,
    started: string,
    result: { rows: number; complete: boolean },
    details?: Record<string, unknown>,
  ) => Promise<string>
  /** Recomputes the access log's hash chain (see verifyLog in access-log.ts). */
  verifyLog: () => Promise<LogVerdict>
  /**
   * The log's head signed now (every entry written so far in it), appended to the heads file like
   * the hourly ones, with the public key (SPKI PEM) that verifies it: what a witness keeps. Null
   * without LOG_SIGNING_KEY_FILE (there is no signed head to give).
   */
  latestSignedHead: (() => Promise<SignedHead & { publicKey: string }>) | null
  /** Resolves when every access-log write started so far has finished (tests, shutdown). */
  flush: () => Promise<void>
  /** The retention purge (access log, expired sessions, old sign-in failures); runs at start and daily. */
  purge: () => Promise<void>
  close: () => Promise<void>
}

export const LOCAL_PRINCIPAL: Principal = Object.freeze({ name: 'local', role: MOST_ROLE, via: 'local' })

const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000
/** An identity header value worth believing: one value, printable, of sane length (emails, logins). */
const IDENTITY = /^[^\s,;\u0000-\u001f\u007f]{1,320}$/

/**
 * Who a request comes from, by the mode: the local admin; the single-sign-on header, believed
 * only from a trusted proxy's socket; or the session its cookie names.
 */
async function identifyRequest(
  req: IncomingMessage,
  cfg: AccessConfig,
  db: Db,
  now: () => number,
  times: SessionTimes,
): Promise<Principal | null> {
  if (cfg.mode === 'local') return LOCAL_PRINCIPAL
  if (cfg.mode === 'header') {
    // Only the socket's own address counts here: X-Forwarded-For is written by the client.
    const peer = req.socket.remoteAddress ?? ''
    if (!cfg.trustedProxies.has(peer) || !cfg.authHeader) return null
    const value = req.headers[cfg.authHeader]
    if (typeof value !== 'string') return null
    const name = value.trim().toLowerCase()
    if (!IDENTITY.test(name)) return null
    return { name, role: cfg.admins.has(name) ? MOST_ROLE : LEAST_ROLE, via: 'header' }
  }
  const id = sessionCookie(req)
  if (!id) return null
  // A request the app made while its person had not acted lately is checked, not counted as use (IDLE_HEADER).
  const user = await lookupSession(db, id, now(), times, req.headers[IDLE_HEADER] !== '1')
  return user ? { name: user.name, role: user.role, via: 'password', sessionId: user.sessionId } : null
}

/**
 * Every entry goes through one writer (group commit, see log-writer.ts; on PGlite a journal first). Reads await
 * their entry (`recordRead`) so it is committed before the answer is sent; actions (sign-in, user
 * changes, forget, settings) await theirs before they take effect, and are refused when it cannot
 * be stored. Only a failed sign-in's entry is fire-and-forget: nothing happens that it could hide.
 */
function logEntries(writer: LogWriter, now: () => number, log: (line: string) => void) {
  const entryOf = (principal: Principal | null, address: string, action: string, details: Record<string, unknown>): NewEntry => ({
    at: new Date(now()),
    actor: principal?.name ?? '(nobody)',
    via: principal?.via ?? 'anonymous',
    address: normaliseAddress(address),
    action,
    details,
  })
  function record(actor: string, via: string, address: string, action: string, details: Record<string, unknown>): void {
    const entry: NewEntry = { at: new Date(now()), actor, via, address, action, details }
    writer.write(entry).catch((err: unknown) => {
      log(`access log: could not record ${action} by ${actor.slice(0, 64)}: ${err instanceof Error ? err.message : String(err)}`)
    })
  }

  // Awaited by the action before it takes effect: a rejection means the action does not happen.
  const audit: AccessGate['audit'] = (principal, address, action, details) => writer.write(entryOf(principal, address, action, details))

  const recordRead: Access['recordRead'] = (principal, address, action, details) =>
    writer.write(entryOf(principal, address, action, details))

  const completeExport: Access['completeExport'] = (principal, address, started, result, details = {}) =>
    writer.write(entryOf(principal, address, 'export.done', { ...details, export: started, rows: result.rows, complete: result.complete }))

  return { record, audit, recordRead, completeExport }
}

/** The retention purge: access-log entries past their days, expired sessions, old sign-in failures. A failure is a log line. */
async function purgeRetained(
  db: Db,
  writer: LogWriter,
  cfg: AccessConfig,
  times: SessionTimes,
  limits: LimitRules,
  log: (line: string) => void,
  t: number,
) {
  try {
    // It moves the chain's head itself: no entry takes a place meanwhile. Nothing is chained in at
    // start: a row put in outside the log stays outside the chain, and verification names it.
    const entries = await writer.exclusive(() => purgeAccessLog(db, cfg.accessLogRetainDays, t))
    const sessions = await purgeSessions(db, t, times)
    await purgeLimits(db, t, limits)
    if (entries || sessions)
      log(`access: purged ${entries} access-log entries older than ${cfg.accessLogRetainDays} days, ${sessions} expired sessions`)
  } catch (err) {
    log(`access: the retention purge failed: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/**
 * Journaled entries go into PGlite's table once none has come for this long (a pause between
 * bursts of reads), and at most JOURNAL_MAX_WAIT_MS after the oldest of them. Each entry is on
 * the disk once journaled (fdatasync before its read is answered: log-journal.ts), and every
 * reader of the table (the access-log routes, the control socket, the retention purge, shutdown)
 * flushes first, so nothing reads a log that lacks an answered read. Put in at once, a burst of
 * reads sent one small insert after another to the database thread, whose work and wake-ups then
 * slowed the reads themselves: on the 2-core machine, 10 clients' proxied history reads had a
 * median latency of 3.7 ms with 0 ms against 2.6 ms with a 250 ms window, and the added p99 read
 * 6.6 against 4.7 ms (five interleaved runs each). A window counted from the first entry still put
 * a 300–500-row insert (65–90 ms of the database thread) into every quarter second of a burst;
 * waiting for the pause moves it between bursts (docs/performance.md).
 */
export const JOURNAL_PUT_IN_MS = 100
/** However long the reads keep coming, journaled entries go in this long after the oldest of them. */
export const JOURNAL_MAX_WAIT_MS = 2_000

/**
 * The access log's writer for this database: on PGlite, journaled and put in the table at the
 * next pause (JOURNAL_PUT_IN_MS); on PostgreSQL, no journal, so each read's entry is committed before
 * the read is answered, at once. The wait was given to both: every read on PostgreSQL waited
 * 250 ms for its entry (the desk bench's reads, 4–5 ms before, read 254 ms).
 */
export function logWriterOptions(db: Db): { journal: string | undefined; gatherMs: number; maxWaitMs?: number } {
  const journal = journalPathOf(db)
  return journal ? { journal, gatherMs: JOURNAL_PUT_IN_MS, maxWaitMs: JOURNAL_MAX_WAIT_MS } : { journal: undefined, gatherMs: 0 }
}

export function createAccess(cfg: AccessConfig, deps: AccessDeps): Access {
  const { db } = deps
  const log = deps.log ?? ((line: string) => console.error(line))
  const now = deps.now ?? Date.now
  const scrypt = deps.scrypt ?? DEFAULT_SCRYPT
  const limits = deps.limits ?? DEFAULT_LIMITS
  const times: SessionTimes = { idleMs: cfg.sessionIdleMs, maxMs: cfg.sessionMaxMs }
  const dummyCheck = createDummyCheck(scrypt)
  const pending = new Set<Promise<void>>()

  const addressOf = (req: IncomingMessage) => clientAddress(req, cfg)
  const identify = (req: IncomingMessage) => identifyRequest(req, cfg, db, now, times)
  // PGlite: entries are journaled in the data directory before a read is answered (log-journal.ts),
  // and go into the table together at the next pause in them (JOURNAL_PUT_IN_MS).
  const writer = createLogWriter(db, { ...logWriterOptions(db), log })
  const { record, audit, recordRead, completeExport } = logEntries(writer, now, log)

  async function flushLog(): Promise<void> {
    await writer.flush()
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
    recordRead,
    completeExport,
    flushLog,
    // Defined below with the signing key; called only once requests arrive.
    verifyLog: () => verifyHere(),
    dummyCheck,
    log,
    onPasswordCheck: deps.onPasswordCheck,
  })

  const purge = () => purgeRetained(db, writer, cfg, times, limits, log, now())
  const started = purge()
  pending.add(started)
  void started.finally(() => pending.delete(started))
  const timer = setInterval(() => void purge(), DAY_MS)
  timer.unref()
  // The chain's head in this server's own log, outside the database, at start, every hour and
  // at close: with one kept, `verify-log --anchor` shows a cut of the newest entries that set the
  // head row back too (a chain like that verifies by itself).
  // With LOG_SIGNING_KEY_FILE, each such head is also signed and appended beside the key, where
  // an edit of the database cannot reach it (signed-heads.ts); the empty log's head is signed too.
  const key = cfg.logSigningKeyFile ? loadSigningKey(cfg.logSigningKeyFile) : null
  const signHeadNow = async () => {
    if (!key || !cfg.logSigningKeyFile) return
    appendSignedHead(headsFileOf(cfg.logSigningKeyFile), signHead(key, await readHead(db), new Date(now())))
  }
  const publicKey = key ? String(createPublicKey(key).export({ type: 'spki', format: 'pem' })) : null
  const keyFile = cfg.logSigningKeyFile
  const latestSignedHead =
    key && publicKey && keyFile
      ? async () => {
          // Flushed first: the head then covers every entry already awaited, such as the one that
          // records the admin asking for this head.
          await flushLog()
          const head = signHead(key, await readHead(db), new Date(now()))
          appendSignedHead(headsFileOf(keyFile), head)
          return { ...head, publicKey }
        }
      : null
  const verifyHere = async (): Promise<LogVerdict> => {
    let heads: SignedHead[] = []
    if (key && cfg.logSigningKeyFile && existsSync(headsFileOf(cfg.logSigningKeyFile))) {
      try {
        heads = readSignedHeads(readFileSync(headsFileOf(cfg.logSigningKeyFile), 'utf8'), key)
      } catch (err) {
        const message = `The signed heads kept beside the key do not verify: ${err instanceof Error ? err.message : String(err)}`
        return { intact: false, first: null, last: null, checked: 0, problem: { seq: null, kind: 'anchor', message }, message }
      }
    }
    return verifyLog(db, null, { heads, retainDays: cfg.accessLogRetainDays })
  }
  const noteAnchor = async () => {
    try {
      await signHeadNow()
      const a = await logAnchor(db)
      if (a)
        log(
          `access log: head entry ${a.seq}, hash ${a.hash} (npm run users -- verify-log --anchor ${a.seq}:${a.hash} checks the log still holds it)`,
        )
    } catch (err) {
      log(`access log: could not read the chain head: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  // Not among `pending`: flushLog waits for those, and the head is read after the start's purge.
  void started.then(noteAnchor)
  const anchorTimer = setInterval(() => void noteAnchor(), HOUR_MS)
  anchorTimer.unref()

  return {
    config: cfg,
    identify,
    routes,
    audit,
    recordRead,
    completeExport,
    verifyLog: verifyHere,
    latestSignedHead,
    clientAddress: addressOf,
    meta: () => ({ accessMode: cfg.mode }),
    flush: flushLog,
    purge,
    close: async () => {
      clearInterval(timer)
      clearInterval(anchorTimer)
      await flushLog()
      await noteAnchor()
      await writer.close()
    },
  }
}
