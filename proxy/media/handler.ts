import { LINE_KEY } from '../../contract/lines.ts'
import { pipeline } from 'node:stream/promises'
import { ProxyError, invalid } from '../errors.ts'
import type { Config } from '../config.ts'
import type { z } from 'zod'
import { route, type RequestContext, type RouteSpec, type RouteHandler } from '../http-types.ts'
import { SECURITY_HEADERS } from '../http.ts'
import { checked, param, query } from '../schema.ts'
import { fetchMedia, type Resolver } from './fetch.ts'
import type { KnownMedia, MediaRef, ServedMedia } from './locate.ts'

/**
 * GET /api/media?number=…&ordinal=… (or &system=…&message=…): a message's media, fetched by the
 * server so the reader's browser talks only to Switchboard. No stranger's host learns who reads the message
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
  /** The messages the server knows, by which it finds the address (locator below). */
  locate: Locate
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

/** The upstream's ids are digits or hex; printable ASCII without spaces keeps any other spelling a key, never text. */
const ID = /^[\x21-\x7e]{1,128}$/

/** One of a message's ids as the history page gave it: printable ASCII, bounded. */
const messageId = (name: 'system' | 'message', words: string) =>
  param((v) => {
    if (v === undefined || v === '') return null
    if (!ID.test(v)) throw invalid(name, `${name} must be ${words}: 1 to 128 printable characters, no spaces.`)
    return v
  })

/**
 * The message whose media to show, never its address: `number` with `ordinal` (a message of the
 * index), or `number` with `system` and `message` (the ids of a message on a history page this
 * sign-in was served). The server looks the address and the customer up (locate.ts).
 */
const MEDIA_QUERY = query(
  {
    number: param((v) => {
      if (!v) throw invalid('number', 'number is required: the account number of the message whose media to show.')
      if (!LINE_KEY.test(v)) throw invalid('number', 'number must be the account number of the message: 6 to 15 digits.')
      return v
    }),
    ordinal: param((v) => {
      if (v === undefined || v === '') return null
      if (!/^[1-9]\d{0,9}$/.test(v) || Number(v) > 2 ** 31 - 1) throw invalid('ordinal', 'ordinal must be a positive whole number.')
      return Number(v)
    }),
    system: messageId('system', "the message's system id"),
    message: messageId('message', "the message's id"),
  },
  {
    unknown: (name) =>
      `Unknown parameter ${name}; /api/media takes number with ordinal, or number with system and message: the server looks the media address up itself.`,
  },
).transform(
  checked(({ number, ordinal, system, message }): MediaRef => {
    if (ordinal !== null && (system !== null || message !== null))
      throw invalid('ordinal', 'Give ordinal (a message of the index) or system and message (a message of a history page), not both.')
    if (ordinal !== null) return { number, ordinal }
    if (system === null && message === null)
      throw invalid(
        'message',
        'message is required: the id of the message whose media to show (and system, its system id), or ordinal for an indexed message.',
      )
    return { number, system, message }
  }),
)

/** The one message the server knows under `ref`: none is a 404, two different ones a 409, each naming the field. */
function onlyOne(ref: MediaRef, found: readonly KnownMedia[]): KnownMedia {
  const field = 'ordinal' in ref ? 'ordinal' : 'message'
  const [first, ...rest] = found
  if (!first)
    throw new ProxyError(404, {
      kind: 'not_found',
      field,
      message:
        'ordinal' in ref
          ? `The index holds no message ${ref.ordinal} with media for number ${ref.number}.`
          : `No history page served to this sign-in holds a message of number ${ref.number} with those ids and media. Reload the page and try again.`,
    })
  if (rest.some((m) => m.url !== first.url || m.party !== first.party))
    throw new ProxyError(409, {
      kind: 'invalid_request',
      field,
      message: 'More than one message of this number carries those ids, with different media: open it from the message index instead.',
    })
  return first
}

/** A stored address, checked as a link from a stranger is: absolute http(s), no credentials, bounded. */
function targetOf(raw: string): URL {
  const refuse = () =>
    new ProxyError(422, {
      kind: 'bad_response',
      field: 'message',
      message: "That message's media address is not an absolute http(s) URL without credentials, so it is not fetched.",
    })
  if (raw.length > MAX_URL_CHARS) throw refuse()
  let target: URL
  try {
    target = new URL(raw.trim())
  } catch {
    throw refuse()
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw refuse()
  if (target.username || target.password) throw refuse()
  target.hash = ''
  return target
}

/** Where the route finds a message's media: the index by ordinal, the served pages by ids. */
export type Locate = (ctx: RequestContext, ref: MediaRef) => Promise<KnownMedia[]>

export function locator(
  served: ServedMedia | null,
  stored: ((number: string, ordinal: number) => Promise<KnownMedia | undefined>) | null,
): Locate {
  return async (ctx, ref) => {
    if ('ordinal' in ref) {
      const m = stored ? await stored(ref.number, ref.ordinal) : undefined
      return m ? [m] : []
    }
    return served ? served.find(ctx, ref) : []
  }
}

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
  return async function handleMedia(req, res, _url, ctx, { query: ref }) {
    req.resume()
    const known = onlyOne(ref, await options.locate(ctx, ref))
    const target = targetOf(known.url)
    const media = await fetchMedia(target, fetchOptions)
    // The host only: a media URL's path and query often carry an access token. The number and
    // customer are the message's, as the server knows it, whatever page asked.
    const which = 'ordinal' in ref ? { ordinal: ref.ordinal } : { systemId: ref.system, messageId: ref.message }
    try {
      await ctx.logRead({ host: target.host, number: known.number, ...(known.party ? { party: known.party } : {}), ...which })
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
export const mediaRoute = (config: Config, upstreamBaseUrl: string, locate: Locate): RouteSpec =>
  createMediaRoute({ upstreamBaseUrl, ...config.media, locate })

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
