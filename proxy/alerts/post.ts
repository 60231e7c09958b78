import { lookup as dnsLookup } from 'node:dns/promises'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import type { Delivery } from './types.ts'

/**
 * One POST to a webhook target. A target is typed by an admin, but it is still a URL the server
 * connects to: resolved here, every address checked by the media rules (OWASP SSRF prevention
 * cheat sheet; the ranges are IANA's special-purpose registries), and the connection handed
 * exactly the checked addresses through the socket's `lookup`, so a second DNS answer (DNS
 * rebinding) cannot swap in one nobody checked. ALERT_ALLOWED_HOSTS opens named private hosts.
 * Redirects are not followed: a receiver that moved is a receiver to reconfigure.
 */

export interface Resolved {
  address: string
  family: 4 | 6
}

export interface TargetRules {
  allowedHosts: readonly string[]
  /** Why an address may not be reached (media's rules), or null. */
  addressProblem: (address: string) => string | null
  resolve?: (hostname: string) => Promise<Resolved[]>
}

const defaultResolve = async (hostname: string): Promise<Resolved[]> =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))

export class TargetRefused extends Error {}

const allowed = (u: URL, hosts: readonly string[]) => hosts.includes(u.host.toLowerCase()) || hosts.includes(u.hostname.toLowerCase())

/** The addresses a URL may be reached at, or a TargetRefused naming why not. */
export async function checkTarget(url: URL, rules: TargetRules): Promise<Resolved[]> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TargetRefused('The address must be an http(s) URL.')
  if (url.username || url.password) throw new TargetRefused('The address must not carry a user name or password.')
  const hostname = url.hostname.replace(/^\[|\]$/g, '')
  const literal = isIP(hostname)
  let found: Resolved[]
  if (literal) found = [{ address: hostname, family: literal === 6 ? 6 : 4 }]
  else {
    try {
      found = await (rules.resolve ?? defaultResolve)(hostname)
    } catch {
      throw new TargetRefused(`${url.host} could not be resolved.`)
    }
  }
  if (found.length === 0) throw new TargetRefused(`${url.host} has no address.`)
  if (!allowed(url, rules.allowedHosts))
    for (const a of found) {
      const why = rules.addressProblem(a.address)
      if (why) throw new TargetRefused(`${url.host} resolves to ${why}; an operator can allow it with ALERT_ALLOWED_HOSTS.`)
    }
  return found
}

function pinnedLookup(addresses: Resolved[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family
    const wanted = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses
    if (wanted.length === 0) {
      const err = Object.assign(new Error('no checked address of the wanted family'), { code: 'ENOTFOUND' })
      return (callback as (e: Error) => void)(err)
    }
    if (options.all) return (callback as (e: null, a: Resolved[]) => void)(null, wanted)
    const first = wanted[0]!
    ;(callback as (e: null, a: string, f: number) => void)(null, first.address, first.family)
  }
}

/** POSTs `body`; an answer of 2xx is delivered, anything else (or none within `timeoutMs`) is not. */
export async function postJson(
  target: string,
  body: string,
  headers: Record<string, string>,
  rules: TargetRules,
  timeoutMs = 10_000,
): Promise<Delivery> {
  const t0 = performance.now()
  const took = () => Math.round(performance.now() - t0)
  let url: URL
  try {
    url = new URL(target)
  } catch {
    return { ok: false, status: null, ms: took(), error: 'The address is not a URL.' }
  }
  let addresses: Resolved[]
  try {
    addresses = await checkTarget(url, rules)
  } catch (err) {
    return { ok: false, status: null, ms: took(), error: err instanceof Error ? err.message : String(err) }
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise<Delivery>((resolve) => {
    const req = request(url, {
      method: 'POST',
      // A fresh connection per attempt: a pooled socket was checked for another name.
      agent: false,
      lookup: pinnedLookup(addresses),
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'Switchboard-alerts/1',
        ...headers,
      },
    })
    req.once('response', (res) => {
      const status = res.statusCode ?? 0
      // The answer's body is not read beyond what the socket holds: nothing in it is used.
      res.resume()
      res.once('end', () => undefined)
      resolve({
        ok: status >= 200 && status < 300,
        status,
        ms: took(),
        error: status >= 200 && status < 300 ? null : `The receiver answered HTTP ${status}.`,
      })
    })
    req.on('error', (err: NodeJS.ErrnoException) => {
      const why =
        err.name === 'AbortError' || err.name === 'TimeoutError'
          ? `No answer within ${timeoutMs / 1000} s.`
          : `${err.code ?? err.name}: ${err.message}`
      resolve({ ok: false, status: null, ms: took(), error: `Could not reach ${url.host}: ${why}` })
    })
    req.end(body)
  })
}
