import type { IncomingMessage } from 'node:http'
import { notRecorded } from '../errors.ts'
import type { RequestContext } from '../http-types.ts'
import type { AccessConfig } from './config.ts'
import type { RouteDeps } from './routes.ts'

/** What the /api/auth/* handlers share. */

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
