import { pipeline } from 'node:stream/promises'
import { ProxyError, invalid } from '../errors.ts'
import type { Config } from '../config.ts'
import type { z } from 'zod'
import { route, type RouteSpec, type RouteHandler } from '../http-types.ts'
import { SECURITY_HEADERS } from '../http.ts'
import { param, query } from '../schema.ts'
import { fetchMedia, type Resolver } from './fetch.ts'

/**
 * GET /api/media?url=<absolute http(s) URL>: a message's media, fetched by the server so the
 * reader's browser talks only to Switchboard. No stranger's host learns who reads the message
 * (their address, cookies, referrer), and no stranger's link can make every reader's browser
 * request a LAN address. The fetch itself is guarded in fetch.ts.
 */

export interface MediaOptions {
  /** The upstream's base URL (the embedded simulator's, or API_BASE_URL): its host serves media and may be private. */
  upstreamBaseUrl: string
  /** MEDIA_ALLOWED_HOSTS: `name` (any port) or `name:port`, lower case. */
  allowedHosts: readonly string[]
  maxBytes: number
  timeoutMs: number
  maxRedirects?: number
  /** Tests point a name at a private address with this. */
  resolve?: Resolver
}

const MAX_URL_CHARS = 2048

/** Rendered in the page (thumbnails, the viewer, <audio>, <video>). */
const INLINE = /^(image|audio|video)\/[a-z0-9.+-]+$/
/** Documents an MMS carries, offered as downloads. */
const DOCUMENTS = new Set(['application/pdf', 'text/vcard', 'text/x-vcard', 'text/directory', 'text/calendar'])

/**
 * SVG is an image that can hold script: opened from our origin it would run as us. Refused
 * outright rather than trusted to the sandbox below.
 */
const accepts = (type: string) => (INLINE.test(type) && !type.includes('svg') && !type.endsWith('+xml')) || DOCUMENTS.has(type)

/**
 * The media answer's policy: nothing in it may run or load anything, even when opened as a
 * page of its own (`sandbox` gives it an opaque origin). Inline style lets the browser's own
 * image and media documents lay themselves out.
 */
const MEDIA_CSP = "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox"

const effectivePort = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : '80')

/** `host` or `host:port` of an allowed entry, split. */
function parseEntry(entry: string): { hostname: string; port: string | null } {
  const m = /^(.*?)(?::(\d+))?$/.exec(entry)
  return { hostname: m?.[1] ?? entry, port: m?.[2] ?? null }
}

/** Which URLs may be on a private address: the upstream's own host and port, and MEDIA_ALLOWED_HOSTS. */
export function trustedHosts(upstreamBaseUrl: string, allowed: readonly string[]): (url: URL) => boolean {
  const upstream = new URL(upstreamBaseUrl)
  // The upstream's host *and port*: the simulator listens on loopback, and loopback's other
  // ports are this server's own, its database and whatever else runs on the machine.
  const entries = [{ hostname: upstream.hostname.toLowerCase(), port: effectivePort(upstream) }, ...allowed.map(parseEntry)]
  return (url) => {
    const hostname = url.hostname.toLowerCase()
    const port = effectivePort(url)
    return entries.some((e) => e.hostname === hostname && (e.port === null || e.port === port))
  }
}

/** The one `url` parameter, checked: absolute http(s), no credentials, bounded. */
function targetOf(value: string | undefined): URL {
  const raw = value?.trim() ?? ''
  if (!raw) throw invalid('url', 'url is required: the media address to fetch.')
  if (raw.length > MAX_URL_CHARS) throw invalid('url', `url may hold at most ${MAX_URL_CHARS} characters.`)
  let target: URL
  try {
    target = new URL(raw)
  } catch {
    throw invalid('url', 'url must be an absolute http(s) URL.')
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw invalid('url', 'url must be an absolute http(s) URL.')
  if (target.username || target.password) throw invalid('url', 'url must not hold a user name or password.')
  target.hash = ''
  return target
}

/** A file name for Content-Disposition: the URL's last path segment, ASCII-safe, plus the UTF-8 form (RFC 6266). */
function disposition(kind: 'inline' | 'attachment', url: URL): string {
  let name = url.pathname.split('/').pop() ?? ''
  try {
    name = decodeURIComponent(name)
  } catch {
    /* keep it encoded */
  }
  name = name.replace(/[\u0000-\u001f\u007f"\\/]/g, '').slice(0, 120)
  if (!name) return kind
  const ascii = name.replace(/[^\u0020-\u007e]/g, '_')
  // RFC 8187's attr-char leaves out ' ( ) * that encodeURIComponent keeps.
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

/**
 * `number` and `party`: the account number and the customer of the message the page shows the
 * media with, for the access log's columns (the link names neither). Checked, and logged as the
 * page gave them: any signed-in person may fetch a link they have, and these say whose message
 * the page showed it in.
 */
const shownWith = (name: 'number' | 'party', digits: RegExp, words: string) =>
  param((v) => {
    if (v === undefined || v === '') return undefined
    if (!digits.test(v)) throw invalid(name, words)
    return v
  })

const MEDIA_QUERY = query(
  {
    url: param(targetOf),
    number: shownWith('number', /^\d{6,15}$/, 'number must be the account number the media was shown with: 6 to 15 digits.'),
    party: shownWith('party', /^\d{1,15}$/, 'party must be the customer the media was shown with: at most 15 digits.'),
  },
  { unknown: (name) => `Unknown parameter ${name}; /api/media takes url, and the number and party it is shown with.` },
)

function createMediaHandler(options: MediaOptions): RouteHandler<z.output<typeof MEDIA_QUERY>> {
  const trusted = trustedHosts(options.upstreamBaseUrl, options.allowedHosts)
  const fetchOptions = {
    maxBytes: options.maxBytes,
    timeoutMs: options.timeoutMs,
    maxRedirects: options.maxRedirects ?? 3,
    trusted,
    accepts,
    resolve: options.resolve,
  }
  return async function handleMedia(req, res, _url, ctx, { query: { url: target, number, party } }) {
    req.resume()
    const media = await fetchMedia(target, fetchOptions)
    // The host only: a media URL's path and query often carry an access token.
    try {
      await ctx.logRead({ host: target.host, ...(number ? { number } : {}), ...(party ? { party } : {}) })
    } catch (err) {
      media.body.destroy()
      throw err
    }
    if (res.destroyed) return void media.body.destroy()
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-security-policy': MEDIA_CSP,
      'content-type': media.type,
      ...(media.length !== null ? { 'content-length': String(media.length) } : {}),
      'content-disposition': disposition(INLINE.test(media.type) ? 'inline' : 'attachment', media.url),
      // Other sites may not embed what we fetched for a signed-in reader.
      'cross-origin-resource-policy': 'same-origin',
      // Each view is a read of customer data and is logged; a cached copy would be an unlogged one.
      'cache-control': 'private, no-store',
    })
    try {
      await pipeline(media.body, res)
    } catch (err) {
      // Past the cap (a chunked body declares no length): the app cuts the answer and logs why.
      if (err instanceof ProxyError) throw err
      // The media host or the reader left mid-body (a thumbnail scrolled away), or the time ran
      // out: the answer is cut, and there is no one to tell.
      res.destroy()
    }
  }
}

/** The route as the app mounts it: the upstream's host (simulator or API_BASE_URL) plus the MEDIA_* variables. */
export const mediaRoute = (config: Config, upstreamBaseUrl: string): RouteSpec => createMediaRoute({ upstreamBaseUrl, ...config.media })

/** The media route over these options. */
export const createMediaRoute = (options: MediaOptions): RouteSpec =>
  route({
    method: 'GET',
    path: '/api/media',
    // A message's media is customer data: any signed-in reader, and each view is logged.
    access: 'signed-in',
    reads: 'media.view',
    schema: { querystring: MEDIA_QUERY },
    handle: createMediaHandler(options),
  })
