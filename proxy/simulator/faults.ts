import type { ServerResponse } from 'node:http'

/**
 * The fault switchboard: the ways the simulated upstream can be told to misbehave, so tests
 * exercise every failure mode over real HTTP. The list is bounded (a control request cannot
 * grow the process without limit) and each fault is checked field by field when it comes in.
 */

export const FAULT_KINDS = [
  'latency',
  'hang',
  'status',
  'html',
  'empty',
  'truncated',
  'malformed',
  'missing_fields',
  'reject',
  'auth',
  'redirect',
  'echo_token',
  'empty_data',
] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

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

/** At most this many faults switched on at once; more is refused. */
export const MAX_FAULTS = 100

/** A fault from a control request, checked field by field; a string saying what is wrong otherwise. */
export function parseFault(input: unknown): Fault | string {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return 'a fault must be a JSON object'
  const o = input as Record<string, unknown>
  if (typeof o.kind !== 'string' || !(FAULT_KINDS as readonly string[]).includes(o.kind))
    return `kind must be one of ${FAULT_KINDS.join(', ')}`
  const fault: Fault = { kind: o.kind as FaultKind }
  const str = (k: 'op' | 'number' | 'message', max: number) => {
    if (o[k] === undefined) return undefined
    if (typeof o[k] !== 'string' || o[k].length > max) return `${k} must be a string of at most ${max} characters`
    fault[k] = o[k]
    return undefined
  }
  const int = (k: 'ms' | 'status' | 'retryAfter' | 'times', min: number, max: number) => {
    if (o[k] === undefined) return undefined
    if (typeof o[k] !== 'number' || !Number.isInteger(o[k]) || o[k] < min || o[k] > max)
      return `${k} must be a whole number from ${min} to ${max}`
    fault[k] = o[k]
    return undefined
  }
  return (
    str('op', 40) ??
    str('number', 40) ??
    str('message', 1000) ??
    int('ms', 0, 3_600_000) ??
    int('status', 100, 599) ??
    int('retryAfter', 0, 86_400) ??
    int('times', 1, 1_000_000) ??
    fault
  )
}

/** The first fault that applies to this request, counted down (and dropped when used up). */
export function takeFault(faults: Fault[], op: string, number: string | undefined): Fault | undefined {
  const i = faults.findIndex((f) => (!f.op || f.op === op) && (!f.number || f.number === number))
  if (i < 0) return undefined
  const f = faults[i]!
  if (f.times !== undefined) {
    f.times -= 1
    if (f.times <= 0) faults.splice(i, 1)
  }
  return f
}

export function send(
  res: ServerResponse,
  status: number,
  body: string,
  type = 'application/json',
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra })
  res.end(body)
}

/** Wait out a latency or hang fault; false when the client left meanwhile. */
export async function delay(fault: Fault, res: ServerResponse): Promise<boolean> {
  const ms = fault.kind === 'hang' ? (fault.ms ?? 3_600_000) : (fault.ms ?? 2000)
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms)
    res.on('close', () => {
      clearTimeout(t)
      resolve()
    })
  })
  return !res.destroyed
}

/**
 * Answer as the fault says; false when this fault does not answer by itself (latency: the
 * normal answer follows). `one` reads a single field the proxy sent (echo_token quotes them).
 */
export function answerFault(fault: Fault, op: string, res: ServerResponse, one: (k: string) => string | undefined): boolean {
  switch (fault.kind) {
    case 'status':
      send(
        res,
        fault.status ?? 500,
        fault.status === 503 ? '<html><body>Service Unavailable</body></html>' : '{"error":"internal"}',
        fault.status === 503 ? 'text/html' : 'application/json',
        fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {},
      )
      return true
    case 'html':
      send(res, 200, '<!doctype html><html><body><h1>Maintenance</h1></body></html>', 'text/html')
      return true
    case 'empty':
      send(res, 200, '')
      return true
    case 'truncated':
      send(res, 200, '{"success":"1","data":[{"number":"183232')
      return true
    case 'malformed':
      send(res, 200, "{success: '1', data: [}")
      return true
    case 'missing_fields':
      send(res, 200, '{"success":"1"}')
      return true
    case 'reject':
      send(res, 200, JSON.stringify({ success: '0', error: true, message: fault.message ?? 'Request rejected by the messaging service' }))
      return true
    case 'auth':
      send(res, 401, JSON.stringify({ success: '0', error: true, message: 'Invalid credentials' }))
      return true
    case 'redirect':
      send(res, 302, '', 'text/plain', { location: 'http://127.0.0.1:1/steal' })
      return true
    case 'empty_data':
      // An account (or number) with nothing in it: a valid, empty answer.
      send(
        res,
        200,
        op === 'smshistory'
          ? JSON.stringify({ success: '1', 'message_count_requested ': 0, total_message_count: 0, messages: [] })
          : '{"success":"1","data":[]}',
      )
      return true
    case 'echo_token':
      // An upstream that quotes the credentials back in its error text.
      send(
        res,
        200,
        JSON.stringify({ success: '0', error: true, message: `Bad token ${one('auth_token') ?? ''} for ${one('sys_id') ?? ''}` }),
      )
      return true
    case 'latency':
    case 'hang':
      return false
  }
}
