import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  DEMO_CREDENTIALS,
  LARGE_CREDENTIALS,
  hostileMessages,
  makeAccount,
  messageAt,
  type Account,
  type MessageRecord,
  type NumberProfile,
} from './dataset.ts'
import { MEDIA_FILES } from './media.ts'
import { apiDate } from './rng.ts'

/**
 * The embedded upstream. It speaks the three operations as the interface document and the
 * field notes describe them, quirks included, checks the credentials it is sent, and can be
 * told to misbehave through /__sim/* so tests exercise every failure mode over real HTTP.
 */

export type FaultKind =
  | 'latency'
  | 'hang'
  | 'status'
  | 'html'
  | 'empty'
  | 'truncated'
  | 'malformed'
  | 'missing_fields'
  | 'reject'
  | 'auth'
  | 'redirect'
  | 'echo_token'
  | 'empty_data'

export interface Fault {
  kind: FaultKind
  /** Limit to one operation (`smshistory`, `allownednumbers`, `ownednumbers`). */
  op?: string
  /** Limit to one number (history only). */
  number?: string
  ms?: number
  status?: number
  retryAfter?: number
  message?: string
  /** How many requests it applies to; unset = until cleared. */
  times?: number
}

export interface RecordedRequest {
  method: string
  path: string
  contentType: string
  fields: Record<string, string[]>
  headers: Record<string, string | string[] | undefined>
}

export interface SimulatorOptions {
  /** Size of the large account (10,000 by default). */
  largeCount?: number
  /** More accounts with the demo dataset under other credentials (tests plant sentinel tokens this way). */
  extraAccounts?: Array<{ sysId: string; authToken: string }>
}

export interface Simulator {
  handle: (req: IncomingMessage, res: ServerResponse) => void
  listen: (port?: number, host?: string) => Promise<{ server: Server; url: string }>
  reset: () => void
  state: { faults: Fault[]; added: Map<string, number>; requests: RecordedRequest[]; calls: number }
}

const OPS = new Set(['smshistory', 'allownednumbers', 'ownednumbers'])

function readBody(req: IncomingMessage, limit = 1_000_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > limit) {
        reject(new Error('too large'))
        req.destroy()
        return
      }
      chunks.push(c)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function parseMultipart(body: string, contentType: string): Record<string, string[]> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType)
  const b = boundary?.[1] ?? boundary?.[2]
  const out: Record<string, string[]> = {}
  if (!b) return out
  for (const part of body.split(`--${b}`)) {
    const m = /name="([^"]+)"\r?\n\r?\n([\s\S]*?)\r?\n?$/.exec(part.replace(/^\r?\n/, '').replace(/Content-Disposition: form-data; /i, ''))
    if (m?.[1]) (out[m[1]] ??= []).push(m[2] ?? '')
  }
  return out
}

function parseFields(body: string, contentType: string): Record<string, string[]> {
  // The provider's own PHP sample sends multipart; the documented form is urlencoded. Accept both.
  if (contentType.startsWith('multipart/form-data')) return parseMultipart(body, contentType)
  const out: Record<string, string[]> = {}
  for (const [k, v] of new URLSearchParams(body)) (out[k] ??= []).push(v)
  return out
}

/**
 * An account's number listings never change, so each is serialised once: 10,000 records are
 * 1.9 MB of JSON, and building it on every request left the simulator collecting garbage while
 * the browser under measurement was still working on the response (bench noise on two cores).
 */
const listings = new WeakMap<Account, Map<string, string>>()
function listing(account: Account, type: 'all' | 'local' | 'tollfree'): string {
  let byType = listings.get(account)
  if (!byType) listings.set(account, (byType = new Map()))
  let body = byType.get(type)
  if (body === undefined) {
    const data =
      type === 'all'
        ? account.numbers.map((n) => ({ number: n.number, tid: n.tid, type: n.type, country: n.country, webhook: n.webhook, dlr: n.dlr }))
        : account.numbers.filter((n) => n.type === type).map((n) => ({ number: n.number, tid: n.tid, type: n.type, webhook: n.webhook, dlr: n.dlr }))
    body = JSON.stringify({ success: '1', data })
    byType.set(type, body)
  }
  return body
}

function send(res: ServerResponse, status: number, body: string, type = 'application/json', extra: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra })
  res.end(body)
}

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const accounts: Account[] = [
    makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60),
    makeAccount(LARGE_CREDENTIALS.sysId, LARGE_CREDENTIALS.authToken, options.largeCount ?? 10_000),
    ...(options.extraAccounts ?? []).map((a) => makeAccount(a.sysId, a.authToken, 60)),
  ]
  const state: Simulator['state'] = { faults: [], added: new Map(), requests: [], calls: 0 }
  let mediaBase = 'http://127.0.0.1'

  const reset = () => {
    state.faults = []
    state.added.clear()
    state.requests = []
    state.calls = 0
  }

  function findFault(op: string, number: string | undefined): Fault | undefined {
    const i = state.faults.findIndex((f) => (!f.op || f.op === op) && (!f.number || f.number === number))
    if (i < 0) return undefined
    const f = state.faults[i]!
    if (f.times !== undefined) {
      f.times -= 1
      if (f.times <= 0) state.faults.splice(i, 1)
    }
    return f
  }

  function history(profile: NumberProfile, start: number, end: number) {
    const added = state.added.get(profile.number) ?? 0
    let messages: MessageRecord[]
    let total: number
    let newest: MessageRecord | undefined
    if (profile.kind === 'hostile') {
      const all = hostileMessages(profile, mediaBase)
      total = all.length
      messages = all.slice(start - 1, end)
      newest = all[0]
    } else {
      total = profile.baseTotal + added
      messages = []
      // Record numbers are 1-based positions, newest first; seq counts from the oldest.
      for (let pos = start; pos <= Math.min(end, total); pos++) messages.push(messageAt(profile, total - pos + 1, total, mediaBase, added))
      newest = total > 0 ? messageAt(profile, total, total, mediaBase, added) : undefined
    }
    return {
      success: '1',
      'message_count_requested ': end - start + 1,
      total_message_count: total,
      created_date: apiDate(profile.createdMs),
      most_recent_msg_id: newest ? newest.system_id : 0,
      most_recent_date: newest ? newest.GMTdate : '',
      tid: profile.tid,
      number: profile.number,
      optin: 'yes',
      messages,
    }
  }

  async function control(req: IncomingMessage, res: ServerResponse, path: string) {
    const body = req.method === 'POST' ? await readBody(req) : ''
    const json = body ? (JSON.parse(body) as Record<string, unknown>) : {}
    if (path === '/__sim/reset') {
      reset()
      return send(res, 200, '{"ok":true}')
    }
    if (path === '/__sim/faults' && req.method === 'POST') {
      const list = Array.isArray(json.faults) ? (json.faults as Fault[]) : [json as unknown as Fault]
      state.faults.push(...list)
      return send(res, 200, JSON.stringify({ ok: true, faults: state.faults.length }))
    }
    if (path === '/__sim/faults' && req.method === 'DELETE') {
      state.faults = []
      return send(res, 200, '{"ok":true}')
    }
    if (path === '/__sim/messages' && req.method === 'POST') {
      const number = String(json.number ?? '')
      const add = Number(json.add ?? 1)
      state.added.set(number, (state.added.get(number) ?? 0) + add)
      return send(res, 200, '{"ok":true}')
    }
    if (path === '/__sim/requests') {
      if (req.method === 'DELETE') {
        state.requests = []
        state.calls = 0
      }
      return send(res, 200, JSON.stringify({ calls: state.calls, requests: state.requests }))
    }
    return send(res, 404, '{"error":"unknown control"}')
  }

  async function operation(req: IncomingMessage, res: ServerResponse, op: string) {
    const contentType = String(req.headers['content-type'] ?? '')
    const raw = await readBody(req)
    const fields = parseFields(raw, contentType)
    state.calls += 1
    state.requests.push({ method: req.method ?? '', path: req.url ?? '', contentType, fields, headers: req.headers })
    if (state.requests.length > 500) state.requests.shift()
    const one = (k: string) => (fields[k]?.length === 1 ? fields[k][0] : undefined)

    const fault = findFault(op, one('number'))
    if (fault?.kind === 'latency' || fault?.kind === 'hang') {
      const ms = fault.kind === 'hang' ? (fault.ms ?? 3_600_000) : (fault.ms ?? 2000)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms)
        res.on('close', () => {
          clearTimeout(t)
          resolve()
        })
      })
      if (res.destroyed) return
    }
    if (fault) {
      switch (fault.kind) {
        case 'status':
          return send(res, fault.status ?? 500, fault.status === 503 ? '<html><body>Service Unavailable</body></html>' : '{"error":"internal"}', fault.status === 503 ? 'text/html' : 'application/json', fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {})
        case 'html':
          return send(res, 200, '<!doctype html><html><body><h1>Maintenance</h1></body></html>', 'text/html')
        case 'empty':
          return send(res, 200, '')
        case 'truncated':
          return send(res, 200, '{"success":"1","data":[{"number":"183232')
        case 'malformed':
          return send(res, 200, "{success: '1', data: [}")
        case 'missing_fields':
          return send(res, 200, '{"success":"1"}')
        case 'reject':
          return send(res, 200, JSON.stringify({ success: '0', error: true, message: fault.message ?? 'Request rejected by the messaging service' }))
        case 'auth':
          return send(res, 401, JSON.stringify({ success: '0', error: true, message: 'Invalid credentials' }))
        case 'redirect':
          return send(res, 302, '', 'text/plain', { location: 'http://127.0.0.1:1/steal' })
        case 'empty_data':
          // An account (or number) with nothing in it: a valid, empty answer.
          return send(res, 200, op === 'smshistory' ? JSON.stringify({ success: '1', 'message_count_requested ': 0, total_message_count: 0, messages: [] }) : '{"success":"1","data":[]}')
        case 'echo_token':
          // An upstream that quotes the credentials back in its error text.
          return send(res, 200, JSON.stringify({ success: '0', error: true, message: `Bad token ${one('auth_token') ?? ''} for ${one('sys_id') ?? ''}` }))
        default:
          break
      }
    }

    const account = accounts.find((a) => a.sysId === one('sys_id') && a.authToken === one('auth_token'))
    if (!account) return send(res, 401, JSON.stringify({ success: '0', error: true, message: 'Authentication failed: unknown sys_id or auth_token' }))
    const reject = (message: string) => send(res, 200, JSON.stringify({ success: '0', error: true, message }))

    if (op === 'allownednumbers') return send(res, 200, listing(account, 'all'))
    if (op === 'ownednumbers') {
      const type = one('number_type')
      if (type !== 'local' && type !== 'tollfree') return reject('Missing or invalid parameter: number_type')
      return send(res, 200, listing(account, type))
    }
    // smshistory
    for (const k of ['number', 'tid', 'history_start', 'history_end']) if (!one(k)) return reject(`Missing parameter: ${k}`)
    const profile = account.byNumber.get(one('number')!.replace(/^\+/, ''))
    if (!profile || profile.tid !== one('tid')) return reject('Unknown number or tid')
    const start = Number(one('history_start'))
    const end = Number(one('history_end'))
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start) return reject('Invalid history range')
    return send(res, 200, JSON.stringify(history(profile, start, end)))
  }

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const run = async () => {
      if (path.startsWith('/__sim/')) return control(req, res, path)
      if (path.startsWith('/media/') && (req.method === 'GET' || req.method === 'HEAD')) {
        const file = MEDIA_FILES[path.slice('/media/'.length)]
        if (!file) return send(res, 404, 'not found', 'text/plain')
        res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length, 'cache-control': 'public, max-age=3600' })
        return res.end(req.method === 'HEAD' ? undefined : file.body)
      }
      const m = /^\/api\/([a-z]+)$/.exec(path)
      if (m?.[1] && OPS.has(m[1])) {
        if (req.method !== 'POST') return send(res, 405, '{"success":"0","message":"POST only"}')
        return operation(req, res, m[1])
      }
      return send(res, 404, '<html><body>Not found</body></html>', 'text/html')
    }
    run().catch(() => {
      if (!res.headersSent) send(res, 500, '{"error":"simulator failure"}')
      else res.destroy()
    })
  }

  const listen = (port = 0, host = '127.0.0.1') =>
    new Promise<{ server: Server; url: string }>((resolve, reject) => {
      const server = createServer({ keepAliveTimeout: 30_000 }, handle)
      server.once('error', reject)
      server.listen(port, host, () => {
        const addr = server.address() as AddressInfo
        const url = `http://${host}:${addr.port}`
        mediaBase = url
        resolve({ server, url })
      })
    })

  return { handle, listen, reset, state }
}
