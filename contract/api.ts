/**
 * The wire contract between the browser (src/) and the server (proxy/): operation names,
 * error kinds and the error envelope. Both sides import this module; adding an operation or an
 * error kind is one edit here. Plain data and types only, no runtime dependencies, so it costs
 * the SPA's bundle nothing.
 */

/** The upstream's three read operations, served to the browser under the same names (spec §2). */
export const OPERATIONS = ['smshistory', 'allownednumbers', 'ownednumbers'] as const
export type Operation = (typeof OPERATIONS)[number]
export const isOperation = (s: string): s is Operation => (OPERATIONS as readonly string[]).includes(s)

/**
 * Each operation's parameters, as the browser sends them to /api/<op> and the upstream takes
 * them (spec §3–§5). The server checks them with `checkParams` before anything goes upstream;
 * the browser's client is typed by `OperationParams`. Adding a parameter is one edit here.
 */
export type ParamRule =
  { kind: 'oneOf'; values: readonly string[] } | { kind: 'phone' } | { kind: 'identifier'; max: number } | { kind: 'position' }

export const OPERATION_PARAMS = {
  allownednumbers: {},
  ownednumbers: { number_type: { kind: 'oneOf', values: ['local', 'tollfree'] } },
  smshistory: {
    number: { kind: 'phone' },
    tid: { kind: 'identifier', max: 64 },
    history_start: { kind: 'position' },
    history_end: { kind: 'position' },
  },
} as const satisfies Record<Operation, Record<string, ParamRule>>

export type OperationParams<Op extends Operation> = { [K in keyof (typeof OPERATION_PARAMS)[Op]]: string }

/**
 * Characters a parameter has no business holding: C0 and C1 controls, zero-width characters and
 * joiners (U+200B–U+200F), bidi embeddings and overrides (U+202A–U+202E), bidi isolates
 * (U+2066–U+2069) and the BOM/zero-width no-break space (U+FEFF). They can only be an attack on
 * something downstream (log injection, Trojan Source style display tricks).
 */
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/
/** A UTF-16 surrogate without its partner: not a character at all (JSON "\ud800" can carry one). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

export type ParamCheck = { ok: true; params: Array<[string, string]> } | { ok: false; field: string; message: string }

/**
 * Checks an operation's parameters: one value each, blank counts as missing, each rule, and for
 * `smshistory` a 1-based inclusive range of at most `pageCap` records. Only the operation's own
 * parameters come back, in the contract's order; anything else sent is dropped. Each failure names its field.
 */
export function checkParams(op: Operation, read: (name: string) => readonly string[] | undefined, pageCap: number): ParamCheck {
  const params: Array<[string, string]> = []
  for (const [name, rule] of Object.entries(OPERATION_PARAMS[op]) as Array<[string, ParamRule]>) {
    const values = read(name)
    if (values && values.length > 1) return { ok: false, field: name, message: `${name} was sent more than once.` }
    const value = values?.[0]?.trim() ?? ''
    if (value === '') return { ok: false, field: name, message: `${name} is required.` }
    const problem = ruleProblem(name, rule, value)
    if (problem) return { ok: false, field: name, message: problem }
    params.push([name, rule.kind === 'position' ? String(Number(value)) : value])
  }
  if (op === 'smshistory') {
    const read = (name: string) => Number(params.find(([n]) => n === name)?.[1])
    const start = read('history_start')
    const end = read('history_end')
    if (end < start) return { ok: false, field: 'history_end', message: 'history_end must not be less than history_start.' }
    if (end - start + 1 > pageCap)
      return {
        ok: false,
        field: 'history_end',
        message: `A history range may hold at most ${pageCap} records (history_end - history_start + 1).`,
      }
  }
  return { ok: true, params }
}

function ruleProblem(name: string, rule: ParamRule, value: string): string | null {
  switch (rule.kind) {
    case 'oneOf':
      return rule.values.includes(value) ? null : `${name} must be ${rule.values.map((v) => `"${v}"`).join(' or ')}.`
    case 'phone':
    case 'identifier':
      if (FORBIDDEN.test(value)) return `${name} must not contain control, zero-width or text-direction characters.`
      if (LONE_SURROGATE.test(value)) return `${name} is not well-formed text.`
      if (rule.kind === 'phone') return /^\+?\d{4,15}$/.test(value) ? null : `${name} must be digits, with an optional leading +.`
      return value.length > rule.max ? `${name} must be at most ${rule.max} characters.` : null
    case 'position':
      if (!/^\d{1,9}$/.test(value)) return `${name} must be a whole number, got "${JSON.stringify(value.slice(0, 20)).slice(1, -1)}".`
      return Number(value) >= 1 ? null : `${name} must be 1 or more (record numbers are 1-based).`
  }
}

export const ERROR_KINDS = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'upstream_rejected',
  'timeout',
  'unreachable',
  'bad_response',
  'index_off',
  'server_error',
] as const
export type ErrorKind = (typeof ERROR_KINDS)[number]

/** `{ error: ErrorBody }` is the one error shape every /api path answers with. */
export interface ErrorBody {
  kind: ErrorKind
  message: string
  upstreamStatus?: number
  field?: string
  retryAfterMs?: number
  /** For `unreachable`/`timeout`: what failed and where, e.g. "connection refused by api.example.com:443". */
  cause?: string
}
