import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import { normaliseAddress, type AccessConfig } from './config.ts'

/**
 * The client's address. The socket's, unless TRUST_PROXY=1 and the socket is one of
 * TRUSTED_PROXIES: then X-Forwarded-For is read right to left, skipping our own proxies, and
 * the first address not among them is the client (anything further left was written by the
 * client and could be anything; MDN "X-Forwarded-For", "Selecting an IP address").
 * Some proxies (Azure's, IIS's ARR) write a hop with its port, `203.0.113.9:51234` or
 * `[2001:db8::1]:443`: the port is taken off, so each client keeps an address of its own
 * instead of all of them counting as the proxy.
 */
export function clientAddress(req: IncomingMessage, cfg: Pick<AccessConfig, 'trustProxy' | 'trustedProxies'>): string {
  const socket = normaliseAddress(req.socket.remoteAddress)
  if (!cfg.trustProxy || !cfg.trustedProxies.has(socket)) return socket
  const header = req.headers['x-forwarded-for']
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((h) => normaliseAddress(withoutPort(h)))
    .filter(Boolean)
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] ?? ''
    if (isIP(hop) === 0) return socket // a garbled hop: trust nothing past it
    if (!cfg.trustedProxies.has(hop)) return hop
  }
  return hops[0] ?? socket
}

/** `1.2.3.4:5678` → `1.2.3.4`, `[::1]:443` or `[::1]` → `::1`; anything else as written. */
export function withoutPort(hop: string): string {
  const h = hop.trim()
  const m = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(h) ?? /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(h)
  if (!m || Number(m[2] ?? 0) > 65535) return h
  return m[1] ?? h
}
