import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import { normaliseAddress, type AccessConfig } from './config.ts'

/**
 * The client's address. The socket's, unless TRUST_PROXY=1 and the socket is one of
 * TRUSTED_PROXIES: then X-Forwarded-For is read right to left, skipping our own proxies, and
 * the first address not among them is the client (anything further left was written by the
 * client and could be anything; MDN "X-Forwarded-For", "Selecting an IP address").
 */
export function clientAddress(req: IncomingMessage, cfg: Pick<AccessConfig, 'trustProxy' | 'trustedProxies'>): string {
  const socket = normaliseAddress(req.socket.remoteAddress)
  if (!cfg.trustProxy || !cfg.trustedProxies.has(socket)) return socket
  const header = req.headers['x-forwarded-for']
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((h) => normaliseAddress(h))
    .filter(Boolean)
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] ?? ''
    if (isIP(hop) === 0) return socket // a garbled hop: trust nothing past it
    if (!cfg.trustedProxies.has(hop)) return hop
  }
  return hops[0] ?? socket
}
