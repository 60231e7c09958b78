import type { IncomingMessage, ServerResponse } from 'node:http'
import { pipeline } from 'node:stream'
import {
  brotliCompressSync,
  brotliDecompressSync,
  constants as zlibConstants,
  createBrotliCompress,
  createGzip,
  gunzipSync,
  gzipSync,
  inflateSync,
} from 'node:zlib'
import { ProxyError, invalid, type ErrorBody } from './errors.ts'

/**
 * The small HTTP toolkit every /api room shares (the upstream operations, the index, team
 * access): the security headers, the JSON and error-envelope writers and the body readers with
 * one set of limits. Route handlers in other rooms import these names; keep them stable.
 */

/** Bodies the browser sends are a handful of fields; anything bigger is not ours. */
export const MAX_BODY_BYTES = 16 * 1024

/** Field names echoed back in messages are cut to this, so a hostile name cannot fill a page. */
export const FIELD_NAME_MAX = 40

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  // Everything from us only. Message media comes through /api/media, so the page never asks a
  // stranger's host for anything (it would learn who reads the message, or be a LAN address).
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; media-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
}

/** A field name safe to echo: cut to FIELD_NAME_MAX characters, never splitting a surrogate pair. */
export function safeFieldName(name: string): string {
  const chars = Array.from(name)
  return chars.length <= FIELD_NAME_MAX ? name : `${chars.slice(0, FIELD_NAME_MAX).join('')}…`
}

export function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string | string[]> = {}): void {
  sendJsonText(res, status, JSON.stringify(body), extra)
}

/** Answers below this go out as they are: compressing them would save less than it costs. */
export const COMPRESS_MIN_BYTES = 1024
/** Answers above this are compressed as a stream, off the event loop. */
export const STREAM_COMPRESS_BYTES = 64 * 1024
/**
 * Brotli's quality for JSON answers. A 100-row search page (about 40 KB) takes 0.22 ms at 2 and
 * 0.41 ms at 4 on this machine, for 97 % of 4's saving. Handing it to libuv's thread pool instead
 * cost more of the event loop's time than compressing it there (0.46–1.0 ms a page: a stream
 * and its buffers made per answer), and two to three times the CPU, so answers up to
 * STREAM_COMPRESS_BYTES are compressed in place.
 */
export const BROTLI_QUALITY = 2
/**
 * Gzip's level, for clients that do not take brotli (scripts, curl --compressed, Node's fetch).
 * The same page as above: 0.51 ms and 6,768 bytes at level 6, 0.23 ms and 7,556 bytes at 2 (as
 * quick as brotli at 2, 12 % larger). Under 50 concurrent searches on PGlite the event loop
 * answers some 240 a second, so level 6 held it about 0.07 s of every second longer.
 */
export const GZIP_LEVEL = 2

/**
 * The codings a client takes, from its Accept-Encoding: `br` first, then `gzip`; a coding
 * with q=0 is refused (RFC 9110 §12.5.3). Anything unparsable counts as not offered.
 */
export function pickEncoding(accept: string | string[] | undefined): 'br' | 'gzip' | null {
  const offered = new Set<string>()
  for (const part of String(accept ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)).find(Boolean)
    if (name && (!q || Number(q[1]) > 0)) offered.add(name.trim())
  }
  if (offered.has('br')) return 'br'
  if (offered.has('gzip') || offered.has('x-gzip')) return 'gzip'
  return null
}

/**
 * A JSON answer, compressed when it is worth it and the client takes it: a page of history or
 * the index's status shrinks about sixfold, which a phone's slow link feels. Brotli at quality 2
 * and gzip at level 2 both take about a quarter of a millisecond for a 100-row search page. API
 * answers carry no secret of the server's (the credentials never leave it), so compression
 * reveals nothing a reader could not already see.
 */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string | Buffer,
  extra: Record<string, string | string[]> = {},
): void {
  let body = typeof text === 'string' ? Buffer.from(text) : text
  const coding = body.length >= COMPRESS_MIN_BYTES ? pickEncoding(res.req?.headers['accept-encoding']) : null
  const headers = {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    vary: 'accept-encoding',
    ...(coding ? { 'content-encoding': coding } : {}),
    ...extra,
  }
  const brotliParams = { [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length }
  if (coding && body.length > STREAM_COMPRESS_BYTES) {
    // A big answer (10,000 numbers is 1.6 MB, several ms of brotli) is compressed on libuv's thread
    // pool while it streams out, not on the event loop; the headers are sent now, so nothing
    // else can answer this request meanwhile. A client that leaves ends the pipeline.
    res.writeHead(status, headers)
    const zip = coding === 'br' ? createBrotliCompress({ params: brotliParams }) : createGzip({ level: GZIP_LEVEL })
    pipeline(zip, res, () => undefined)
    zip.end(body)
    return
  }
  if (coding === 'br') body = brotliCompressSync(body, { params: brotliParams })
  else if (coding === 'gzip') body = gzipSync(body, { level: GZIP_LEVEL })
  res.writeHead(status, { ...headers, 'content-length': body.length })
  res.end(body)
}

export function sendError(res: ServerResponse, err: ProxyError, extra: Record<string, string> = {}): void {
  const body: { error: ErrorBody } = { error: err.body }
  sendJson(res, err.status, body, extra)
}

const tooLarge = (limit: number) =>
  new ProxyError(413, { kind: 'invalid_request', field: 'body', message: `Request body over ${limit} bytes.` })

/** Decoders for the Content-Encodings we accept; each output is capped at the body limit. */
const DECODERS: Record<string, (b: Buffer, max: number) => Buffer> = {
  gzip: (b, max) => gunzipSync(b, { maxOutputLength: max }),
  'x-gzip': (b, max) => gunzipSync(b, { maxOutputLength: max }),
  deflate: (b, max) => inflateSync(b, { maxOutputLength: max }),
  br: (b, max) => brotliDecompressSync(b, { maxOutputLength: max }),
}

function decodeBody(body: Buffer, encodingHeader: string | undefined, limit: number): Buffer {
  const codings = (encodingHeader ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity')
  // Codings apply in the order listed, so they are undone last-first (RFC 9110 §8.4).
  let out = body
  for (const coding of codings.reverse()) {
    const decode = DECODERS[coding]
    if (!decode)
      throw new ProxyError(415, {
        kind: 'invalid_request',
        field: 'content-encoding',
        message: `Content-Encoding "${safeFieldName(coding)}" is not supported; send gzip, deflate, br or none.`,
      })
    try {
      out = decode(out, limit)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limit)
      throw invalid('body', `The request body is not valid ${coding} data.`)
    }
  }
  return out
}

/**
 * The request body, decoded (gzip, deflate, br), at most `limit` bytes before and after
 * decoding (413 otherwise). An unknown Content-Encoding is refused with 415 before the body is
 * read. Rejects if the client leaves before the body is complete.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const encoding = req.headers['content-encoding']
    try {
      decodeBody(Buffer.alloc(0), encoding, limit) // refuses unknown codings before reading
    } catch (err) {
      if (err instanceof ProxyError && err.status === 415) {
        req.resume()
        return reject(err)
      }
    }
    const declared = Number(req.headers['content-length'] ?? '0')
    if (declared > limit) {
      req.resume()
      return reject(tooLarge(limit))
    }
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const settle = (fn: () => void) => {
      if (settled) return
      settled = true
      req.off('data', onData)
      fn()
    }
    const onData = (c: Buffer) => {
      size += c.length
      if (size > limit) {
        settle(() => reject(tooLarge(limit)))
        req.resume()
        return
      }
      chunks.push(c)
    }
    req.on('data', onData)
    req.on('end', () =>
      settle(() => {
        try {
          resolve(decodeBody(Buffer.concat(chunks), encoding, limit))
        } catch (err) {
          reject(err)
        }
      }),
    )
    req.on('error', (err) => settle(() => reject(err)))
    req.on('close', () =>
      settle(() => reject(new ProxyError(400, { kind: 'invalid_request', field: 'body', message: 'The request body ended early.' }))),
    )
  })
}

/**
 * Throw the "sent more than once" 400 if any object in this (valid) JSON text repeats a key:
 * JSON.parse keeps the last one silently, and a repeated field must mean the same as in a form.
 */
export function refuseDuplicateKeys(text: string): void {
  const stack: Array<Set<string> | null> = []
  let i = 0
  while (i < text.length) {
    const ch = text[i]
    if (ch === '{') stack.push(new Set())
    else if (ch === '[') stack.push(null)
    else if (ch === '}' || ch === ']') stack.pop()
    else if (ch === '"') {
      let j = i + 1
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1
      const rawString = text.slice(i, j + 1)
      let k = j + 1
      while (k < text.length && (text[k] === ' ' || text[k] === '\t' || text[k] === '\n' || text[k] === '\r')) k++
      const keys = stack[stack.length - 1]
      if (text[k] === ':' && keys) {
        const key = JSON.parse(rawString) as string
        if (keys.has(key)) throw invalid(safeFieldName(key), `${safeFieldName(key)} was sent more than once.`)
        keys.add(key)
      }
      i = j
    }
    i++
  }
}

/** Parse JSON text as the API accepts it: a leading BOM is dropped, duplicate keys are refused. */
export function parseJsonText(text: string): unknown {
  const clean = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  let json: unknown
  try {
    json = JSON.parse(clean)
  } catch {
    throw invalid('body', 'The request body is not valid JSON.')
  }
  refuseDuplicateKeys(clean)
  return json
}

/**
 * A JSON object body (application/json; 415 for anything else), with the same limits as
 * readBody, a BOM accepted and duplicate keys refused. An empty body is an empty object.
 */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase()
  const body = await readBody(req, limit)
  if (body.length === 0) return {}
  if (type !== 'application/json')
    throw new ProxyError(415, { kind: 'invalid_request', field: 'content-type', message: 'Send the body as application/json.' })
  const json = parseJsonText(body.toString('utf8'))
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw invalid('body', 'The request body must be a JSON object.')
  return json as Record<string, unknown>
}
