import type { IncomingMessage } from 'node:http'
import type { RequestContext } from '../http-types.ts'
import type { AccessConfig } from './config.ts'
import type { RouteDeps } from './routes.ts'

/** What the /api/auth/* handlers share. */

/** An audit entry by whoever made this request, from their address. */
export const auditAs = (d: RouteDeps, req: IncomingMessage, ctx: RequestContext) => (action: string, details: Record<string, unknown>) =>
  d.audit(ctx.principal, d.addressOf(req), action, details)

/** The session cookie is Secure behind a TLS-terminating proxy (TRUST_PROXY) or on a TLS socket. */
export const secureFor = (cfg: AccessConfig, req: IncomingMessage) => ({
  secure: cfg.trustProxy || Boolean((req.socket as { encrypted?: boolean }).encrypted),
})
