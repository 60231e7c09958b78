import { lookup as dnsLookup } from 'node:dns/promises'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { isIP } from 'node:net'
import { pipeline, Transform, type Readable } from 'node:stream'
import { ProxyError } from '../errors.ts'
import { describeFailure } from '../forward.ts'
import { addressProblem } from '../kernel/outbound-address.ts'

/**
 * One media fetch on behalf of a reader. The host name is resolved here, every address is
 * checked, and the connection is handed exactly those addresses through the socket's `lookup`
 * hook, so a second DNS answer (DNS rebinding) can never swap in an address nobody checked.
 * Redirects are followed by hand, each hop checked the same way. Nothing of the reader's
 * request (cookies, referrer, user agent, range) is sent on.
 */

export interface Resolved {
  address: string
  family: 4 | 6
}

/** Host name to addresses. Tests pass their own to make a name point at a private address. */
export type Resolver = (hostname: string) => Promise<Resolved[]>

export interface FetchOptions {
  maxBytes: number
  timeoutMs: number
  maxRedirects: number
  /** Hosts that may be private (the upstream's own, MEDIA_ALLOWED_HOSTS): their addresses are not checked. */
  trusted: (url: URL) => boolean
  /** Media types worth reading; anything else is refused (415) before its body is read. */
  accepts: (essence: string) => boolean
  resolve?: Resolver
}

export interface Fetched {
  /** The media type's essence (type/subtype, lower case, parameters dropped). */
  type: string
  /** The declared length (never over the cap), or null when the host sends it chunked. */
  length: number | null
  /**
   * The body as it arrives, under the same deadline and cap: it errors (the caller cuts its
   * answer) once it passes `maxBytes` or the time is up. The server holds a chunk at a time,
   * never a whole file, so many readers on large media cost no memory to speak of.
   */
  body: Readable
  /** Where the bytes came from after redirects. */
  url: URL
}

interface Head {
  type: string
  length: number | null
  response: IncomingMessage
  url: URL
}

const defaultResolve: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))

const ACCEPT = 'image/*, audio/*, video/*, application/pdf;q=0.8, text/vcard;q=0.8, */*;q=0.1'

const refusedAddress = (host: string, why: string) =>
  new ProxyError(403, {
    kind: 'forbidden',
    field: 'url',
    message: `Media on ${host} is not fetched: it resolves to ${why}. An operator can allow a private media host with MEDIA_ALLOWED_HOSTS.`,
  })

const tooLarge = (max: number) =>
  new ProxyError(413, { kind: 'bad_response', message: `The media is larger than ${max} bytes (MEDIA_MAX_BYTES); it was not fetched.` })

/** The addresses to connect to: all checked, or a 403 naming the first refused. */
async function addressesFor(url: URL, opts: FetchOptions): Promise<Resolved[]> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '')
  const literal = isIP(hostname)
  let found: Resolved[]
  if (literal) found = [{ address: hostname, family: literal === 6 ? 6 : 4 }]
  else {
    try {
      found = await (opts.resolve ?? defaultResolve)(hostname)
    } catch (err) {
      throw new ProxyError(502, {
        kind: 'unreachable',
        message: 'The media host could not be reached.',
        cause: describeFailure(err, url.host),
      })
    }
  }
  if (found.length === 0)
    throw new ProxyError(502, { kind: 'unreachable', message: 'The media host could not be reached.', cause: `${url.host} has no address` })
  if (!opts.trusted(url))
    for (const a of found) {
      // One refused address refuses the name: a connection may be tried on any of them.
      const why = addressProblem(a.address)
      if (why) throw refusedAddress(url.host, why)
    }
  return found
}

/** A `lookup` that answers only with the addresses already checked, never asking DNS again. */
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

interface Hop {
  response: IncomingMessage
  abort: () => void
}

function requestOnce(url: URL, addresses: Resolved[], signal: AbortSignal): Promise<Hop> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      // A fresh connection per fetch: a pooled socket would have been checked for another name.
      agent: false,
      lookup: pinnedLookup(addresses),
      signal,
      headers: { accept: ACCEPT, 'accept-encoding': 'identity', 'user-agent': 'Switchboard-media/1' },
    })
    req.once('response', (response) => resolve({ response, abort: () => req.destroy() }))
    // `on`, not `once`: the deadline's abort can fail a request again after its answer came.
    req.on('error', reject)
    req.end()
  })
}

const essenceOf = (header: string | undefined) => (header ?? '').split(';')[0]!.trim().toLowerCase()

async function followHops(start: URL, opts: FetchOptions, signal: AbortSignal): Promise<Head> {
  let url = start
  for (let hop = 0; ; hop++) {
    const addresses = await addressesFor(url, opts)
    const { response, abort } = await requestOnce(url, addresses, signal)
    const status = response.statusCode ?? 0
    if (status >= 300 && status < 400 && status !== 304) {
      abort()
      const location = response.headers.location
      if (!location) throw new ProxyError(502, { kind: 'bad_response', message: `The media host answered ${status} without a Location.` })
      if (hop >= opts.maxRedirects)
        throw new ProxyError(502, { kind: 'bad_response', message: `The media host redirected more than ${opts.maxRedirects} times.` })
      let next: URL
      try {
        next = new URL(location, url)
      } catch {
        throw new ProxyError(502, { kind: 'bad_response', message: 'The media host redirected to an address that is not a URL.' })
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        throw new ProxyError(403, {
          kind: 'forbidden',
          field: 'url',
          message: 'The media host redirected to something other than http(s).',
        })
      // Credentials in a Location would go out as an Authorization header: nobody asked for that.
      next.username = ''
      next.password = ''
      url = next
      continue
    }
    if (status === 404 || status === 410) {
      abort()
      throw new ProxyError(404, { kind: 'not_found', upstreamStatus: status, message: 'The media host has no such file.' })
    }
    if (status < 200 || status >= 300) {
      abort()
      throw new ProxyError(502, { kind: 'upstream_rejected', upstreamStatus: status, message: `The media host answered ${status}.` })
    }
    const type = essenceOf(response.headers['content-type'])
    if (!opts.accepts(type)) {
      abort()
      throw new ProxyError(415, {
        kind: 'bad_response',
        message: `The media host answered with ${type ? `"${type.slice(0, 60)}"` : 'no media type'}, which is not an image, audio, video or known document type.`,
      })
    }
    const declared = response.headers['content-length'] === undefined ? null : Number(response.headers['content-length'])
    if (declared !== null && declared > opts.maxBytes) {
      abort()
      throw tooLarge(opts.maxBytes)
    }
    return { type, length: declared, response, url }
  }
}

/**
 * Fetch a media URL within the limits: at most `maxRedirects` checked redirects, `maxBytes` of
 * body and `timeoutMs` for the whole (every hop and the body included). Failures before the
 * body are ProxyErrors; the body stream fails with one past the cap.
 */
export async function fetchMedia(url: URL, opts: FetchOptions): Promise<Fetched> {
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const stop = () => {
    clearTimeout(timer)
    controller.abort()
  }
  // A race, not only the abort signal: a DNS lookup cannot be aborted, and must not outlast the limit either.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort()
      reject(
        new ProxyError(504, { kind: 'timeout', message: `The media host did not answer within ${opts.timeoutMs} ms.`, cause: url.host }),
      )
    }, opts.timeoutMs)
  })
  deadline.catch(() => undefined) // once the headers are in, the abort alone ends a slow body
  const work = followHops(url, opts, controller.signal)
  work.catch(() => undefined) // settled by the race; a late failure after the deadline is not news
  let head: Head
  try {
    head = await Promise.race([work, deadline])
  } catch (err) {
    stop()
    if (err instanceof ProxyError) throw err
    throw new ProxyError(502, {
      kind: 'unreachable',
      message: 'The media host could not be reached.',
      cause: describeFailure(err, url.host),
    })
  }
  let size = 0
  const body = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length
      if (size > opts.maxBytes) return done(tooLarge(opts.maxBytes))
      done(null, chunk)
    },
  })
  pipeline(head.response, body, stop)
  return { type: head.type, length: head.length, body, url: head.url }
}
