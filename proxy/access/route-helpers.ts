import type { IncomingMessage } from 'node:http'
import { notRecorded } from '../errors.ts'
import type { AccessConfig } from './config.ts'
import type { Db } from '../db/types.ts'
import type { AccessGate, Principal, RequestContext } from '../http-types.ts'
import type { LimitRules } from './limits.ts'
import type { LogVerdict } from './log-verify.ts'
import type { ScryptParams } from './passwords.ts'
import type { SessionTimes } from './sessions.ts'

/** What the /api/auth/* handlers share. */

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

/** An audit entry by whoever made this request, from their address; rejects with a 503 when it cannot be stored. */
export const auditAs =
  (d: RouteDeps, req: IncomingMessage, ctx: RequestContext) =>
  async (action: string, details: Record<string, unknown>): Promise<void> => {
    try {
      await d.audit(ctx.principal, d.addressOf(req), action, details)
    } catch (err) {
      d.log(`access log: could not record ${action}: ${err instanceof Error ? err.message : String(err)}`)
      throw notRecorded(err)
    }
  }

/** The session cookie is Secure behind a TLS-terminating proxy (TRUST_PROXY) or on a TLS socket. */
export const secureFor = (cfg: AccessConfig, req: IncomingMessage) => ({
  secure: cfg.trustProxy || Boolean((req.socket as { encrypted?: boolean }).encrypted),
})
