import type { IncomingMessage, ServerResponse } from 'node:http'
import { MAX_FAULTS, parseFault, send } from './faults.ts'
import { TooLarge, readBody, type SimState } from './operations.ts'
import { applyQuirks, noQuirks } from './quirks.ts'

/**
 * The control doors (/__sim/*): switch faults on, add messages, read the request log. They are
 * off unless a test opens them (createSimulator({ control: true }) or SIMULATOR_CONTROL=1),
 * and when open they answer only to loopback names from no foreign page: a DNS-rebinding page
 * (Host: evil.example) or a cross-origin form post (Origin: https://evil.example, text/plain)
 * is refused, as the proxy refuses them.
 */

/** Numbers with added messages; a test uses a handful. */
export const MAX_ADDED_NUMBERS = 1000
const MAX_CONTROL_BODY = 64 * 1024

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]'])

function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase()
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1)
  return h.split(':')[0] ?? ''
}

function refusal(req: IncomingMessage): string | undefined {
  if (!LOOPBACK_HOSTNAMES.has(hostnameOf(String(req.headers.host ?? '')))) return 'control answers only to a loopback Host'
  const origin = req.headers.origin
  if (origin !== undefined) {
    let name = ''
    try {
      name = new URL(origin).host
    } catch {
      /* refused below */
    }
    if (!LOOPBACK_HOSTNAMES.has(hostnameOf(name))) return 'control refuses requests from other origins'
  }
  const site = req.headers['sec-fetch-site']
  if (site === 'cross-site' || site === 'same-site') return 'control refuses cross-site requests'
  return undefined
}

const json = (res: ServerResponse, status: number, body: unknown) => send(res, status, JSON.stringify(body))

export async function control(req: IncomingMessage, res: ServerResponse, path: string, state: SimState, reset: () => void): Promise<void> {
  const refused = refusal(req)
  if (refused) {
    req.resume()
    return json(res, 403, { error: refused })
  }
  let body: Buffer
  try {
    body = req.method === 'POST' ? await readBody(req, MAX_CONTROL_BODY) : Buffer.alloc(0)
  } catch (err) {
    if (err instanceof TooLarge) return json(res, 413, { error: `control bodies are at most ${MAX_CONTROL_BODY} bytes` })
    throw err
  }
  if (!req.method || !['GET', 'POST', 'DELETE'].includes(req.method)) return json(res, 405, { error: 'GET, POST or DELETE' })
  let input: Record<string, unknown> = {}
  if (body.length > 0) {
    // JSON only: a cross-site form can send text/plain without a preflight, never application/json.
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
      return json(res, 415, { error: 'send control bodies as application/json' })
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'))
      if (!parsed || typeof parsed !== 'object') return json(res, 400, { error: 'a JSON object or array is expected' })
      input = parsed as Record<string, unknown>
    } catch {
      return json(res, 400, { error: 'the body is not valid JSON' })
    }
  }

  if (path === '/__sim/reset' && req.method === 'POST') {
    reset()
    return json(res, 200, { ok: true })
  }
  if (path === '/__sim/faults' && req.method === 'POST') {
    const list: unknown[] = Array.isArray(input) ? input : Array.isArray(input.faults) ? (input.faults as unknown[]) : [input]
    if (state.faults.length + list.length > MAX_FAULTS)
      return json(res, 400, { error: `at most ${MAX_FAULTS} faults at once; clear some first (DELETE /__sim/faults)` })
    const faults = []
    for (const item of list) {
      const f = parseFault(item)
      if (typeof f === 'string') return json(res, 400, { error: f })
      faults.push(f)
    }
    state.faults.push(...faults)
    return json(res, 200, { ok: true, faults: state.faults.length })
  }
  if (path === '/__sim/faults' && req.method === 'DELETE') {
    state.faults = []
    return json(res, 200, { ok: true })
  }
  if (path === '/__sim/faults' && req.method === 'GET') return json(res, 200, { faults: state.faults })
  if (path === '/__sim/messages' && req.method === 'POST') {
    const number = typeof input.number === 'string' ? input.number : ''
    const add = input.add === undefined ? 1 : input.add
    if (!/^\+?\d{4,15}$/.test(number)) return json(res, 400, { error: 'number must be digits' })
    if (typeof add !== 'number' || !Number.isInteger(add) || add < 0 || add > 1_000_000)
      return json(res, 400, { error: 'add must be a whole number from 0 to 1000000' })
    if (!state.added.has(number) && state.added.size >= MAX_ADDED_NUMBERS)
      return json(res, 400, { error: `messages may be added to at most ${MAX_ADDED_NUMBERS} numbers` })
    state.added.set(number, Math.min((state.added.get(number) ?? 0) + add, 10_000_000))
    return json(res, 200, { ok: true })
  }
  if (path === '/__sim/quirks' && req.method === 'POST') {
    if (Array.isArray(input)) return json(res, 400, { error: 'quirks are a JSON object' })
    const problem = applyQuirks(state.quirks, input)
    return problem ? json(res, 400, { error: problem }) : json(res, 200, { ok: true })
  }
  if (path === '/__sim/quirks' && req.method === 'DELETE') {
    state.quirks = noQuirks()
    return json(res, 200, { ok: true })
  }
  if (path === '/__sim/requests' && (req.method === 'GET' || req.method === 'DELETE')) {
    if (req.method === 'DELETE') {
      state.requests = []
      state.calls = 0
    }
    return json(res, 200, { calls: state.calls, requests: state.requests })
  }
  return json(res, 404, { error: 'unknown control' })
}
