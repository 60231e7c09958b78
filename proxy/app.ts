import { createReadStream, existsSync, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, normalize, resolve, sep } from 'node:path'
import type { Config } from './config.ts'
import { ProxyError, invalid, type ErrorBody } from './errors.ts'
import type { Forwarder, Operation } from './forward.ts'
import { validate, type Fields } from './validate.ts'

/**
 * The request handler: security checks, validation, forwarding, static files. It never
 * listens (server.ts does), so tests drive it on an ephemeral port or in-process.
 */

export interface AppDeps {
  forwarder: Forwarder
  /** Built SPA; when absent, only /api is served (dev mode mounts Vite in front). */
  staticDir?: string
  log?: (line: string) => void
}

export type Handler = (req: IncomingMessage, res: ServerResponse, next?: () => void) => void

const OPERATIONS = new Set<Operation>(['smshistory', 'allownednumbers', 'ownednumbers'])
const MAX_BODY_BYTES = 16 * 1024

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  // Media comes from the provider's media hosts (any http/https origin); scripts only from us.
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https: http: blob:; media-src 'self' https: http:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...extra,
  })
  res.end(text)
}

function sendError(res: ServerResponse, err: ProxyError, extra: Record<string, string> = {}) {
  const body: { error: ErrorBody } = { error: err.body }
  sendJson(res, err.status, body, extra)
}

function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase()
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1)
  return h.split(':')[0] ?? ''
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0')
    if (declared > MAX_BODY_BYTES) return reject(new ProxyError(413, { kind: 'invalid_request', message: `Request body over ${MAX_BODY_BYTES} bytes.` }))
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_BODY_BYTES) {
        reject(new ProxyError(413, { kind: 'invalid_request', message: `Request body over ${MAX_BODY_BYTES} bytes.` }))
        req.removeAllListeners('data')
        req.resume()
        return
      }
      chunks.push(c)
    })
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

function parseFields(body: Buffer, contentType: string): Fields {
  const fields: Fields = new Map()
  const add = (k: string, v: string) => fields.set(k, [...(fields.get(k) ?? []), v])
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  if (body.length === 0) return fields
  if (type === 'application/x-www-form-urlencoded') {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) add(k, v)
    return fields
  }
  if (type === 'application/json') {
    let json: unknown
    try {
      json = JSON.parse(body.toString('utf8'))
    } catch {
      throw invalid('body', 'The request body is not valid JSON.')
    }
    if (!json || typeof json !== 'object' || Array.isArray(json)) throw invalid('body', 'The request body must be a JSON object.')
    for (const [k, v] of Object.entries(json)) {
      if (typeof v === 'string' || typeof v === 'number') add(k, String(v))
      else throw invalid(k, `${k} must be a string or a number.`)
    }
    return fields
  }
  throw new ProxyError(415, { kind: 'invalid_request', field: 'content-type', message: 'Send the parameters as application/x-www-form-urlencoded or application/json.' })
}

/**
 * Reject anything that is not a plain absolute path. Path tricks (`..`, encoded dots or
 * slashes, `//host`, absolute URIs, `\`, `@`) are refused before routing, so nothing that
 * could be re-interpreted upstream is ever forwarded (OWASP SSRF prevention cheat sheet).
 */
function pathProblem(rawUrl: string): string | undefined {
  if (!rawUrl.startsWith('/')) return 'absolute URIs are not accepted'
  if (rawUrl.startsWith('//')) return 'network-path references are not accepted'
  const path = rawUrl.split('?')[0] ?? ''
  if (/%(2e|2f|5c|25|00|40)/i.test(path)) return 'encoded dots, slashes or percent signs are not accepted'
  if (/\.\.|\\|@|\/\/|[\u0000-\u001f]/.test(path)) return 'path traversal characters are not accepted'
  return undefined
}

export function createApp(config: Config, deps: AppDeps): Handler {
  const { forwarder, log } = deps
  const staticRoot = deps.staticDir ? resolve(deps.staticDir) : undefined
  const allowedHostnames = new Set(['localhost', '127.0.0.1', '[::1]', ...config.allowedHosts])
  if (config.host !== '0.0.0.0' && config.host !== '::') allowedHostnames.add(config.host.includes(':') ? `[${config.host}]` : config.host.toLowerCase())

  function checkOrigin(req: IncomingMessage): ProxyError | undefined {
    const host = String(req.headers.host ?? '')
    // DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends Host: evil.example.
    if (!allowedHostnames.has(hostnameOf(host)))
      return new ProxyError(403, { kind: 'invalid_request', field: 'host', message: 'This server only answers to its own host name.' })
    const site = req.headers['sec-fetch-site']
    if (site === 'cross-site' || site === 'same-site')
      return new ProxyError(403, { kind: 'invalid_request', field: 'origin', message: 'Cross-site requests are refused.' })
    const origin = req.headers.origin
    if (origin !== undefined) {
      let ok: boolean
      try {
        ok = new URL(origin).host.toLowerCase() === host.toLowerCase()
      } catch {
        ok = false
      }
      if (!ok) return new ProxyError(403, { kind: 'invalid_request', field: 'origin', message: 'Cross-origin requests are refused.' })
    }
    return undefined
  }

  async function api(req: IncomingMessage, res: ServerResponse, op: Operation) {
    if (req.method !== 'POST') {
      sendError(res, new ProxyError(405, { kind: 'invalid_request', field: 'method', message: `Use POST for /api/${op}.` }), { allow: 'POST' })
      req.resume()
      return
    }
    const body = await readBody(req)
    const fields = parseFields(body, String(req.headers['content-type'] ?? ''))
    const params = validate(op, fields, config.historyPageCap)
    const controller = new AbortController()
    res.on('close', () => {
      if (!res.writableFinished) controller.abort()
    })
    const result = await forwarder.forward(op, params, controller.signal)
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'content-length': result.body.length,
      'cache-control': 'no-store',
    })
    res.end(result.body)
  }

  function serveStatic(req: IncomingMessage, res: ServerResponse, next?: () => void) {
    if (!staticRoot) {
      if (next) return next()
      return sendJson(res, 404, { error: { kind: 'invalid_request', message: 'Not found.' } })
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...SECURITY_HEADERS, allow: 'GET, HEAD', 'content-type': 'text/plain' })
      return res.end('Method not allowed')
    }
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/')
    let file = normalize(join(staticRoot, path))
    if (!file.startsWith(staticRoot + sep) && file !== staticRoot) file = join(staticRoot, 'index.html')
    let isFile: boolean
    try {
      isFile = existsSync(file) && statSync(file).isFile()
    } catch {
      isFile = false
    }
    // Client-side routes fall back to the app shell; missing assets are a real 404.
    if (!isFile) {
      if (path.startsWith('/assets/') || extname(path)) {
        res.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'text/plain' })
        return res.end('Not found')
      }
      file = join(staticRoot, 'index.html')
    }
    const immutable = file.includes(`${sep}assets${sep}`)
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    })
    if (req.method === 'HEAD') return res.end()
    createReadStream(file).pipe(res)
  }

  return (req, res, next) => {
    const started = performance.now()
    const rawUrl = req.url ?? '/'
    res.on('finish', () => {
      // Method, path and status only: bodies carry customer data and the response never holds credentials.
      if (log) log(`${req.method} ${rawUrl.split('?')[0]?.slice(0, 200)} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`)
    })
    const problem = pathProblem(rawUrl)
    if (problem) return sendError(res, new ProxyError(400, { kind: 'invalid_request', field: 'path', message: `Bad path: ${problem}.` }))
    const path = rawUrl.split('?')[0] ?? '/'
    if (path === '/api' || path.startsWith('/api/')) {
      const refused = checkOrigin(req)
      if (refused) return sendError(res, refused)
      if (rawUrl.includes('?')) return sendError(res, invalid('query', 'Send parameters in the POST body, not the query string.'))
      const op = path.slice('/api/'.length) as Operation
      if (!OPERATIONS.has(op)) return sendError(res, new ProxyError(404, { kind: 'invalid_request', field: 'path', message: `Unknown operation: /api/${op.slice(0, 40)}` }))
      api(req, res, op).catch((err: unknown) => {
        if (res.headersSent) return res.destroy()
        if (err instanceof ProxyError) return sendError(res, err)
        sendError(res, new ProxyError(500, { kind: 'bad_response', message: 'The proxy failed unexpectedly.' }))
      })
      return
    }
    serveStatic(req, res, next)
  }
}
