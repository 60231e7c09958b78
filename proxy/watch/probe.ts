import { Resolver } from 'node:dns/promises'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { connect as netConnect, isIP, type Socket } from 'node:net'
import { connect as tlsConnect, rootCertificates, type TLSSocket } from 'node:tls'
import { addressProblem } from '../kernel/outbound-address.ts'
import { maskUrl } from './mask.ts'
import type { Failure, Outcome } from './types.ts'

/**
 * One check of one callback URL, harmless by construction: DNS (A/AAAA), a TCP connection to an
 * address DNS gave, each in turn until one accepts (never a second lookup a rebinding name could answer differently), TLS with
 * the URL's name, then HEAD (GET only when HEAD is refused with 405/501, its body never read).
 * No body, cookies or credentials are sent; a URL's user:password is never used. A redirect is
 * reported, not followed: providers do not follow them either, so a 301 loses the callback.
 * Private, loopback and link-local addresses are not contacted unless allow-listed, as for
 * media (proxy/kernel/outbound-address.ts: OWASP SSRF prevention).
 */

export const USER_AGENT = 'Switchboard-CallbackWatch/1 (endpoint check; HEAD, no body)'

export interface ProbeOptions {
  timeoutMs: number
  /** Whether this URL's host may be on a private address (WATCH_ALLOWED_HOSTS). */
  allowed: (url: URL) => boolean
  /** Certificates trusted beside the system's (tests' own CA); NODE_EXTRA_CA_CERTS works too. */
  ca?: ReadonlyArray<string | Buffer>
  /** Name resolution (tests may answer for names of their own). */
  lookup?: (hostname: string) => Promise<Array<{ address: string; family: number }>>
  now?: () => number
}

export interface TlsFacts {
  protocol: string | null
  validTo: Date | null
  /** Whole days until the certificate expires (negative once it has). */
  days: number | null
  /** Node's verify error code (CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID, …), null when valid. */
  error: string | null
}

export interface CheckResult {
  url: string
  at: Date
  outcome: Outcome
  failure: Failure | null
  detail: string
  status: number | null
  latencyMs: number | null
  addresses: string[]
  tls: TlsFacts | null
  location: string | null
}

class CheckFailed extends Error {
  constructor(
    readonly failure: Failure,
    message: string,
  ) {
    super(message)
  }
}

const DAY_MS = 86_400_000

function errCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : err instanceof Error ? err.message : String(err)
}

/** A TLS verify error in words. */
function tlsWords(code: string, validTo: Date | null, host: string): string {
  if (code === 'CERT_HAS_EXPIRED') return `its TLS certificate expired${validTo ? ` on ${validTo.toISOString().slice(0, 10)}` : ''}`
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') return `its TLS certificate does not name ${host}`
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'SELF_SIGNED_CERT_IN_CHAIN')
    return 'its TLS certificate is self-signed (not trusted)'
  if (code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY')
    return 'its TLS certificate chain does not lead to a trusted authority'
  if (code === 'CERT_NOT_YET_VALID') return 'its TLS certificate is not valid yet'
  return `its TLS certificate is not accepted (${code})`
}

/** A connection that did not open: which address, and why in words. */
class ConnectRefused extends CheckFailed {
  constructor(
    readonly address: string,
    readonly why: string,
    port: number,
  ) {
    super('connection', `could not connect to ${address} port ${port} (${why})`)
  }
}

/**
 * Every address the name gave, in order, until one accepts the connection: a provider's client
 * tries the next address when one refuses or is unreachable (as Happy Eyeballs, RFC 8305 §5, and
 * getaddrinfo-order clients do), so a name whose first address is down still receives callbacks.
 * Only a refused connection moves on; the check's one deadline bounds the whole walk.
 */
async function connectAny(
  addresses: readonly string[],
  port: number,
  signal: AbortSignal,
): Promise<{ socket: Socket; address: string; refused: ConnectRefused[] }> {
  const refused: ConnectRefused[] = []
  for (const address of addresses) {
    try {
      return { socket: await connectTcp(address, port, signal), address, refused }
    } catch (err) {
      if (!(err instanceof ConnectRefused) || signal.aborted) throw err
      refused.push(err)
    }
  }
  if (refused.length === 1) throw refused[0]!
  const whys = [...new Set(refused.map((r) => r.why))]
  const list = (xs: string[]) => `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]!}`
  throw new CheckFailed(
    'connection',
    whys.length === 1
      ? `could not connect to ${list(refused.map((r) => r.address))} port ${port} (${whys[0]!})`
      : `could not connect to ${list(refused.map((r) => `${r.address} (${r.why})`))} port ${port}`,
  )
}

function connectTcp(address: string, port: number, signal: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: address, port })
    const onAbort = () => socket.destroy()
    signal.addEventListener('abort', onAbort, { once: true })
    socket.once('connect', () => {
      signal.removeEventListener('abort', onAbort)
      resolve(socket)
    })
    socket.once('error', (err) => {
      signal.removeEventListener('abort', onAbort)
      const code = errCode(err)
      const why = code === 'ECONNREFUSED' ? 'connection refused' : code === 'EHOSTUNREACH' ? 'host unreachable' : code
      reject(new ConnectRefused(address, why, port))
    })
    socket.once('close', () => reject(new CheckFailed('timeout', 'the connection was closed')))
  })
}

function startTls(
  socket: Socket,
  host: string,
  opts: ProbeOptions,
  now: number,
  signal: AbortSignal,
): Promise<{ tls: TLSSocket; facts: TlsFacts }> {
  return new Promise((resolve, reject) => {
    const ip = isIP(host) !== 0
    const tls = tlsConnect({
      socket,
      host,
      // SNI takes names only (RFC 6066 §3).
      ...(ip ? {} : { servername: host }),
      ...(opts.ca?.length ? { ca: [...rootCertificates, ...opts.ca] } : {}),
      // The verdict is read below and reported, so that an expired or wrong-host certificate is
      // a finding in words rather than a bare handshake error.
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    })
    const onAbort = () => tls.destroy()
    signal.addEventListener('abort', onAbort, { once: true })
    tls.once('secureConnect', () => {
      signal.removeEventListener('abort', onAbort)
      const cert = tls.getPeerCertificate()
      const validTo = cert?.valid_to ? new Date(cert.valid_to) : null
      const okDate = validTo && !Number.isNaN(validTo.getTime()) ? validTo : null
      const facts: TlsFacts = {
        protocol: tls.getProtocol() ?? null,
        validTo: okDate,
        days: okDate ? Math.floor((okDate.getTime() - now) / DAY_MS) : null,
        error: tls.authorized ? null : String(tls.authorizationError ?? 'UNKNOWN'),
      }
      resolve({ tls, facts })
    })
    tls.once('error', (err) => {
      signal.removeEventListener('abort', onAbort)
      reject(new CheckFailed('tls', `the TLS handshake failed (${errCode(err)})`))
    })
  })
}

function sendRequest(socket: Socket, method: 'HEAD' | 'GET', url: URL, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      method,
      path: `${url.pathname}${url.search}`,
      // Host as the URL names it (never the resolved address); nothing that identifies anyone.
      headers: { host: url.host, 'user-agent': USER_AGENT, accept: '*/*', connection: 'close' },
      createConnection: () => socket,
      signal,
    })
    req.once('response', (res) => {
      resolve(res)
      // Nothing of the body is wanted: the socket goes as soon as the headers are in.
      res.resume()
      socket.destroy()
    })
    req.once('error', (err) => reject(new CheckFailed(signal.aborted ? 'timeout' : 'connection', `no HTTP answer (${errCode(err)})`)))
    req.end()
  })
}

/**
 * A and AAAA through c-ares (dns.Resolver), not getaddrinfo: dns.lookup runs on libuv's four
 * threads, which the server's file reads share, and a thousand checks of names that answer slowly
 * would hold them. Names under `localhost` are loopback by definition (RFC 6761 §6.3) and asked of
 * no one. An error carries ENOTFOUND when the name does not exist.
 */
async function resolveAll(hostname: string): Promise<Array<{ address: string; family: number }>> {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (name === 'localhost' || name.endsWith('.localhost'))
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]
  const resolver = new Resolver({ timeout: 2_000, tries: 2 })
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)])
  const out = [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ]
  if (out.length > 0) return out
  const codes = [v4, v6].flatMap((r) => (r.status === 'rejected' ? [errCode(r.reason)] : []))
  const err = Object.assign(new Error('no address'), {
    code: codes.includes('ENOTFOUND') ? 'ENOTFOUND' : codes.every((c) => c === 'ENODATA') ? 'ENODATA' : (codes[0] ?? 'ENODATA'),
  })
  throw err
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

/** `name` (any port) or `name:port` entries, lower case, as a test of a URL's host. */
export function allowedHostsTest(entries: readonly string[]): (url: URL) => boolean {
  const parsed = entries.map((e) => {
    const m = /^(.*?)(?::(\d+))?$/.exec(e)
    return { hostname: m?.[1] ?? e, port: m?.[2] ?? null }
  })
  return (url) => {
    const hostname = url.hostname.toLowerCase()
    const port = url.port || (url.protocol === 'https:' ? '443' : '80')
    return parsed.some((e) => e.hostname === hostname && (e.port === null || e.port === port))
  }
}

/** Checks `raw` once. It never throws: every way it can go is a result in words. */
export async function checkUrl(raw: string, opts: ProbeOptions): Promise<CheckResult> {
  const clock = opts.now ?? Date.now
  const started = clock()
  const t0 = performance.now()
  const base = {
    url: raw,
    at: new Date(started),
    status: null,
    latencyMs: null,
    addresses: [] as string[],
    tls: null as TlsFacts | null,
    location: null,
  }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ...base, outcome: 'invalid', failure: null, detail: 'Not checked: this is not a web address.' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ...base, outcome: 'invalid', failure: null, detail: `Not checked: ${url.protocol.replace(':', '')} is not http or https.` }
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
  const controller = new AbortController()
  let stage = 'resolving its name'
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs)
  const sockets: Socket[] = []
  let tls: TlsFacts | null = null
  let addresses: string[] = []
  // Said after an answer's words when an earlier address refused and a later one answered.
  let via = ''
  try {
    const work = async (): Promise<CheckResult> => {
      if (isIP(host)) addresses = [host]
      else {
        try {
          const found = await (opts.lookup ?? resolveAll)(host)
          addresses = found.map((a) => a.address)
        } catch (err) {
          const code = errCode(err)
          if (code === 'ENOTFOUND' || code === 'ENODATA')
            throw new CheckFailed('dns', `${host} does not resolve: no such name (NXDOMAIN) or no A/AAAA record`)
          throw new CheckFailed('dns', `the lookup of ${host} failed (${code})`)
        }
        if (addresses.length === 0) throw new CheckFailed('dns', `${host} has no A or AAAA record`)
      }
      const problem = addresses.map((a) => [a, addressProblem(a)] as const).find(([, why]) => why !== null)
      if (problem && !opts.allowed(url))
        return {
          ...base,
          addresses,
          outcome: 'private',
          failure: null,
          detail: `Not checked: ${host} is ${problem[1]} (${problem[0]}). An operator can allow it with WATCH_ALLOWED_HOSTS.`,
        }
      const attempt = async (method: 'HEAD' | 'GET') => {
        stage = 'connecting'
        const { socket, address, refused } = await connectAny(addresses, port, controller.signal)
        sockets.push(socket)
        via = refused.length ? ` ${refused.map((r) => r.address).join(', ')} refused the connection; ${address} answered.` : ''
        let carrier: Socket = socket
        if (url.protocol === 'https:') {
          stage = 'in the TLS handshake'
          const t = await startTls(socket, host, opts, started, controller.signal)
          sockets.push(t.tls)
          tls = t.facts
          if (t.facts.error) throw new CheckFailed('tls', `${host}: ${tlsWords(t.facts.error, t.facts.validTo, host)}`)
          carrier = t.tls
        }
        stage = `waiting for the answer to ${method}`
        return sendRequest(carrier, method, url, controller.signal)
      }
      let res = await attempt('HEAD')
      if (res.statusCode === 405 || res.statusCode === 501) res = await attempt('GET')
      const status = res.statusCode ?? 0
      const latencyMs = Math.round(performance.now() - t0)
      const location = typeof res.headers.location === 'string' ? res.headers.location.slice(0, 500) : null
      const done = { ...base, addresses, tls, status, latencyMs, location }
      if (status >= 200 && status < 300)
        return { ...done, outcome: 'up', failure: null, detail: `Up: answered ${status} in ${latencyMs} ms.${via}` }
      if (status >= 300 && status < 400) {
        let where = location ?? 'nowhere (no Location)'
        try {
          // Where it points may carry a secret of its own: shown masked, as the callback URLs are.
          if (location) where = maskUrl(new URL(location, url).toString())
        } catch {
          /* shown as sent */
        }
        return {
          ...done,
          outcome: 'redirect',
          failure: null,
          detail: `Redirects elsewhere: answered ${status} to ${where}. Providers do not follow redirects, so callbacks sent here are lost.${via}`,
        }
      }
      if (status >= 400 && status < 500)
        return {
          ...done,
          outcome: 'client-error',
          failure: null,
          detail: `Answers, but with ${status} (a client error) in ${latencyMs} ms.${via}`,
        }
      return { ...done, outcome: 'failing', failure: 'http', detail: `Failing: answered ${status} in ${latencyMs} ms.${via}` }
    }
    // The lookup cannot be cancelled: the check stops waiting for it at the deadline instead.
    const deadline = new Promise<never>((_, reject) =>
      controller.signal.addEventListener('abort', () => reject(new CheckFailed('timeout', 'timed out')), { once: true }),
    )
    return await Promise.race([work(), deadline])
  } catch (err) {
    const latencyMs = Math.round(performance.now() - t0)
    if (controller.signal.aborted)
      return {
        ...base,
        addresses,
        tls,
        latencyMs,
        outcome: 'failing',
        failure: 'timeout',
        detail: `Failing: no answer within ${plural(Math.round(opts.timeoutMs / 100) / 10, 'second')} (timed out ${stage}).`,
      }
    if (err instanceof CheckFailed)
      return { ...base, addresses, tls, latencyMs, outcome: 'failing', failure: err.failure, detail: `Failing: ${err.message}.` }
    return { ...base, addresses, tls, latencyMs, outcome: 'failing', failure: 'connection', detail: `Failing: ${errCode(err)}.` }
  } finally {
    clearTimeout(timer)
    // The outermost first: a TLS socket takes its TCP socket down with it (destroying the TCP socket
    // under a live TLS one first crashed Node 20 with a segmentation fault).
    for (const s of sockets.reverse()) s.destroy()
  }
}
