import { Pool, errors as undiciErrors, type Dispatcher } from 'undici'
import type { Operation } from '../contract/api.ts'
import { listedNumbers, listingHolds, type ListedNumber } from '../contract/owned-numbers.ts'
import { withoutBom } from '../contract/upstream-values.ts'
import { ProxyError } from './errors.ts'

/**
 * Forward one validated operation upstream and map every way that can fail onto the error
 * envelope. One keep-alive pool per upstream origin: per-request agent set-up costs more
 * than the proxy's whole latency budget.
 */

export type { Operation }

export interface ForwardResult {
  /** The upstream's JSON, byte for byte: the proxy is transparent on success. */
  body: Buffer
  /**
   * The same body as parsed to check it for a refusal, when it was JSON: the index's sync reads
   * its pages from it rather than decoding and parsing each megabyte-sized page a second time
   * on the server's thread. Read it, do not change it.
   */
  json?: unknown
}

const MAX_UPSTREAM_BYTES = 64 * 1024 * 1024
const MAX_MESSAGE_CHARS = 300

/** Replace every occurrence of each secret, also URL-encoded, so quoted credentials never leave. */
export function scrub(text: string, secrets: string[]): string {
  let out = text
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join('[redacted]')
  }
  return out
}

function upstreamMessage(json: unknown): string | undefined {
  if (!json || typeof json !== 'object') return undefined
  const o = json as Record<string, unknown>
  for (const key of ['message', 'error_message', 'msg', 'error', 'errors']) {
    const v = o[key]
    if (typeof v === 'string' && v.trim()) return v.trim()
  }
  return undefined
}

function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const v = Array.isArray(header) ? header[0] : header
  if (!v) return undefined
  if (/^\d+$/.test(v.trim())) return Math.min(Number(v) * 1000, 60_000)
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.min(at - Date.now(), 60_000))
}

/** The first `code` on an error or its causes (undici wraps the socket's errno error). */
function errorCode(err: unknown): string | undefined {
  let e: unknown = err
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && code !== 'UND_ERR_ABORTED') return code
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_OSSL)/

/**
 * What failed and where, in words an operator can act on, from the failure's error code: e.g.
 * "Could not connect to api.example.com:443 (connection refused)". Built from the configured
 * host and port and a fixed vocabulary, so it can never carry a credential.
 */
export function describeFailure(err: unknown, where: string): string {
  const code = errorCode(err)
  switch (code) {
    case 'ECONNREFUSED':
      return `Could not connect to ${where} (connection refused)`
    case 'ENOTFOUND':
      return `Could not connect to ${where} (DNS lookup failed: no such host)`
    case 'EAI_AGAIN':
      return `Could not connect to ${where} (DNS lookup failed: temporary DNS failure)`
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `Could not connect to ${where} (no route to host)`
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `Could not connect to ${where} (connection timed out)`
    case 'ECONNRESET':
    case 'EPIPE':
      return `The connection to ${where} was reset`
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return `The connection to ${where} was closed by the other side`
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `${where} accepted the connection but sent no answer in time`
    case 'UND_ERR_BODY_TIMEOUT':
      return `${where} stopped sending its answer part-way`
    default:
      if (code && TLS_CODE.test(code)) return `Could not connect to ${where} (TLS handshake failed: ${code})`
      return code ? `Could not connect to ${where} (${code})` : `Could not reach ${where}`
  }
}

export interface Forwarder {
  forward: (op: Operation, fields: Array<[string, string]>, signal?: AbortSignal) => Promise<ForwardResult>
  /**
   * forward, except that a 2xx answer comes back as its bytes and status, neither decoded, parsed
   * nor judged: for a caller that parses it off the server's thread (the sync's page worker). The
   * caller must pass the bytes to `judge` whenever they are not the spec's success object.
   */
  forwardBytes: (op: Operation, fields: Array<[string, string]>, signal?: AbortSignal) => Promise<Bytes>
  /** Judges a forwardBytes answer as forward would have: its refusal thrown, else its bytes and JSON. */
  judge: (op: Operation, fields: Array<[string, string]>, body: Buffer, status: number, signal?: AbortSignal) => Promise<ForwardResult>
  close: () => Promise<void>
}

/** How long the account's listing is trusted when deciding "no such number". */
const LISTING_TTL_MS = 30_000
/**
 * How long a listing that holds the refused number is believed: a number removed from the
 * account since the last read was refused in the upstream's own words for up to LISTING_TTL_MS.
 */
const HOLDS_TTL_MS = 2_000

/** What every request to one upstream shares: where it goes, how long it may take, what it must never show. */
interface Upstream {
  pool: Pool
  basePath: string
  /** `host:port`, for causes an operator can act on. */
  where: string
  sysId: string
  authToken: string
  timeoutMs: number
  /** Credentials scrubbed and length bounded: every upstream word that reaches a client passes here. */
  clean: (s: string) => string
}

function openUpstream(upstream: { baseUrl: string; sysId: string; authToken: string }, timeoutMs: number): Upstream {
  const base = new URL(upstream.baseUrl)
  const pool = new Pool(base.origin, {
    connections: 64,
    pipelining: 1,
    keepAliveTimeout: 10_000,
    connectTimeout: Math.min(timeoutMs, 10_000),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  })
  const secrets = [upstream.authToken, upstream.sysId]
  return {
    pool,
    basePath: base.pathname.replace(/\/+$/, ''),
    where: `${base.hostname}:${base.port || (base.protocol === 'https:' ? '443' : '80')}`,
    sysId: upstream.sysId,
    authToken: upstream.authToken,
    timeoutMs,
    clean: (s: string) => scrub(s, secrets).slice(0, MAX_MESSAGE_CHARS),
  }
}

/** Set once the request's own deadline fired, so an abort is told apart from the client leaving. */
interface Deadline {
  aborted: boolean
}

type UpstreamResponse = Dispatcher.ResponseData

/** Send the form with the credentials attached; a failure to get an answer becomes 504 or 502. */
async function sendForm(u: Upstream, op: Operation, fields: Array<[string, string]>, signal: AbortSignal, deadline: Deadline) {
  const form = new URLSearchParams(fields)
  // Credentials are attached here and only here (spec §5: they travel as body fields).
  form.set('sys_id', u.sysId)
  form.set('auth_token', u.authToken)
  try {
    return await u.pool.request({
      path: `${u.basePath}/api/${op}`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal,
      // undici's request() never follows redirects: a 3xx is reported below, not chased.
    })
  } catch (err) {
    if (
      deadline.aborted ||
      err instanceof undiciErrors.HeadersTimeoutError ||
      err instanceof undiciErrors.BodyTimeoutError ||
      err instanceof undiciErrors.ConnectTimeoutError
    ) {
      const cause = deadline.aborted ? `${u.where} did not answer within ${u.timeoutMs / 1000} s` : describeFailure(err, u.where)
      throw new ProxyError(504, {
        kind: 'timeout',
        message: `The messaging service did not answer within ${u.timeoutMs / 1000} s.`,
        cause: u.clean(cause),
      })
    }
    throw new ProxyError(502, {
      kind: 'unreachable',
      message: 'The messaging service could not be reached.',
      cause: u.clean(describeFailure(err, u.where)),
    })
  }
}

/**
 * A 2xx answer not judged yet (Forwarder.forwardBytes). `owned`: the body is the only view of a
 * memory block of its own (never Node's shared pool, nor undici's chunk), so the caller may
 * transfer it to another thread instead of copying it.
 */
export type Bytes = { body: Buffer; status: number; owned: boolean }

/** The answer's body, bounded by MAX_UPSTREAM_BYTES; a cut or stalled body becomes 504 or 502. */
async function readBytes(u: Upstream, res: UpstreamResponse, deadline: Deadline): Promise<{ body: Buffer; owned: boolean }> {
  try {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length
      if (size > MAX_UPSTREAM_BYTES) {
        res.body.destroy()
        throw new ProxyError(502, {
          kind: 'bad_response',
          message: 'The messaging service answered with an oversized response.',
          upstreamStatus: res.statusCode,
        })
      }
      chunks.push(chunk as Buffer)
    }
    if (chunks.length === 1) return { body: chunks[0]!, owned: false }
    // Joined into a block of its own (allocUnsafeSlow never hands out Node's shared pool): a
    // megabyte page can then move to the sync's page worker rather than be copied there.
    const body = Buffer.allocUnsafeSlow(size)
    let at = 0
    for (const c of chunks) at += c.copy(body, at)
    return { body, owned: true }
  } catch (err) {
    if (err instanceof ProxyError) throw err
    if (deadline.aborted || err instanceof undiciErrors.BodyTimeoutError)
      throw new ProxyError(504, {
        kind: 'timeout',
        message: `The messaging service did not finish answering within ${u.timeoutMs / 1000} s.`,
        cause: u.clean(`${u.where} stopped sending its answer part-way`),
      })
    throw new ProxyError(502, {
      kind: 'unreachable',
      message: 'The connection to the messaging service broke mid-answer.',
      upstreamStatus: res.statusCode,
      cause: u.clean(describeFailure(err, u.where)),
    })
  }
}

/** The body as JSON, when it is JSON at all. */
function parseJson(text: string): { parsed: boolean; json?: unknown } {
  if (!text.trim()) return { parsed: false }
  try {
    return { parsed: true, json: JSON.parse(withoutBom(text)) }
  } catch {
    return { parsed: false }
  }
}

/** A refusal's words that name a rate limit. */
const RATE_LIMIT_WORDS = /\brate[ -]?limit|\btoo many requests\b|\bthrottl/i

/** An HTTP status that is not success, as the envelope's refusal (undefined for 2xx). */
function statusFailure(u: Upstream, status: number, said: string | undefined, retryAfter: string | string[] | undefined) {
  const upstreamStatus = status
  if (status === 401 || status === 403)
    return new ProxyError(401, {
      kind: 'unauthorized',
      message: u.clean(
        `${said ? `The messaging service rejected the account credentials: ${said}${/[.!?]$/.test(said) ? '' : '.'}` : 'The messaging service rejected the account credentials.'} Check API_SYS_ID and API_AUTH_TOKEN.`,
      ),
      upstreamStatus,
    })
  if (status >= 300 && status < 400)
    return new ProxyError(502, {
      kind: 'bad_response',
      message: `The messaging service answered with a redirect (HTTP ${status}); redirects are not followed.`,
      upstreamStatus,
    })
  // Too many requests, or the request timed out there: the service is busy, not refusing. Worth a
  // retry, after Retry-After when it says.
  if (status === 429 || status === 408) {
    const after = retryAfterMs(retryAfter)
    return new ProxyError(504, {
      kind: 'timeout',
      message:
        status === 429
          ? 'The messaging service is busy and asked for fewer requests (HTTP 429).'
          : 'The messaging service gave up waiting for the request (HTTP 408).',
      upstreamStatus,
      cause: `${u.where} answered HTTP ${status}`,
      ...(after !== undefined ? { retryAfterMs: after } : {}),
    })
  }
  if (status >= 500) {
    const after = retryAfterMs(retryAfter)
    return new ProxyError(502, {
      kind: 'unreachable',
      message: `The messaging service is failing (HTTP ${status}).`,
      upstreamStatus,
      cause: `${u.where} answered HTTP ${status}`,
      ...(after !== undefined ? { retryAfterMs: after } : {}),
    })
  }
  if (status >= 400)
    return new ProxyError(502, {
      kind: 'upstream_rejected',
      message: u.clean(
        said ? `The messaging service refused the request: ${said}` : `The messaging service refused the request (HTTP ${status}).`,
      ),
      upstreamStatus,
    })
  return undefined
}

/** A 2xx body that is not the spec's JSON object with success "1", as the envelope's refusal (undefined when it is). */
function bodyFailure(u: Upstream, text: string, parsed: boolean, json: unknown, said: string | undefined, upstreamStatus: number) {
  if (!text.trim())
    return new ProxyError(502, { kind: 'bad_response', message: 'The messaging service answered with an empty body.', upstreamStatus })
  if (!parsed) {
    const looksHtml = /^\s*</.test(text)
    return new ProxyError(502, {
      kind: 'bad_response',
      message: looksHtml
        ? 'The messaging service answered with a web page instead of data.'
        : 'The messaging service answered with malformed JSON.',
      upstreamStatus,
    })
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    return new ProxyError(502, {
      kind: 'bad_response',
      message: 'The messaging service answered with JSON that is not an object.',
      upstreamStatus,
    })
  const success = (json as Record<string, unknown>).success
  // A refusal in an HTTP 200 that says it is a rate limit ("Rate limit exceeded", "Too many
  // requests"): busy, not refused, so retried as a 429 is. Any other wording stays a refusal.
  if (success !== '1' && success !== 1 && said && RATE_LIMIT_WORDS.test(said))
    return new ProxyError(504, {
      kind: 'timeout',
      message: u.clean(`The messaging service is busy and asked for fewer requests: ${said}`),
      upstreamStatus,
    })
  // Spec §4: success is the string "1". Anything else is a refusal, with the upstream's words kept.
  if (success !== '1' && success !== 1)
    return new ProxyError(502, {
      kind: 'upstream_rejected',
      message: u.clean(
        said ? `The messaging service refused the request: ${said}` : 'The messaging service refused the request without saying why.',
      ),
      upstreamStatus,
    })
  return undefined
}

/**
 * One request upstream, its answer read and judged: the upstream's JSON on success, else a
 * ProxyError. `bytes`: a 2xx answer comes back unjudged (Forwarder.forwardBytes).
 */
async function attempt(
  u: Upstream,
  op: Operation,
  fields: Array<[string, string]>,
  signal: AbortSignal,
  deadline: Deadline,
  bytes: boolean,
): Promise<ForwardResult | Bytes> {
  const res = await sendForm(u, op, fields, signal, deadline)
  const raw = await readBytes(u, res, deadline)
  if (bytes && res.statusCode >= 200 && res.statusCode < 300) return { ...raw, status: res.statusCode }
  return judged(u, raw.body, res.statusCode, res.headers['retry-after'])
}

/** An answer's bytes judged: its refusal thrown as a ProxyError, else the bytes and their JSON. */
function judged(u: Upstream, raw: Buffer, status: number, retryAfter: string | string[] | undefined): ForwardResult {
  const text = raw.toString('utf8')
  const { parsed, json } = parseJson(text)
  const said = parsed ? upstreamMessage(json) : undefined
  const refused = statusFailure(u, status, said, retryAfter) ?? bodyFailure(u, text, parsed, json, said, status)
  if (refused) throw refused
  // The bytes as they came (not the text encoded again), and the parse already done.
  return parsed ? { body: raw, json } : { body: raw }
}

/** `attempt` under the request's deadline, abandoned too when the client that asked goes away. */
function forwardOnce(u: Upstream, op: Operation, fields: Array<[string, string]>, clientSignal?: AbortSignal): Promise<ForwardResult>
function forwardOnce(
  u: Upstream,
  op: Operation,
  fields: Array<[string, string]>,
  clientSignal: AbortSignal | undefined,
  bytes: true,
): Promise<ForwardResult | Bytes>
async function forwardOnce(
  u: Upstream,
  op: Operation,
  fields: Array<[string, string]>,
  clientSignal?: AbortSignal,
  bytes = false,
): Promise<ForwardResult | Bytes> {
  // One controller and one timer per request. AbortSignal.timeout plus AbortSignal.any were
  // measurably slower: `npm run bench` p99 added latency at concurrency 10 went from
  // 2.5–2.9 ms to 1.0–1.6 ms (two paired runs) when they were replaced.
  const controller = new AbortController()
  const deadline: Deadline = { aborted: false }
  const timer = setTimeout(() => {
    deadline.aborted = true
    controller.abort()
  }, u.timeoutMs)
  const onClientGone = () => controller.abort()
  clientSignal?.addEventListener('abort', onClientGone, { once: true })
  const signal = controller.signal
  try {
    return await attempt(u, op, fields, signal, deadline, bytes)
  } finally {
    clearTimeout(timer)
    clientSignal?.removeEventListener('abort', onClientGone)
  }
}

export function createForwarder(upstream: { baseUrl: string; sysId: string; authToken: string }, timeoutMs: number): Forwarder {
  const u = openUpstream(upstream, timeoutMs)

  /**
   * The account's own listing, read at most every LISTING_TTL_MS: what decides whether a refused
   * history was for a number the account does not hold. The upstream's words for that refusal
   * are not documented and differ between providers (field-notes.md, "What is not known").
   */
  let listing: { at: number; numbers: ListedNumber[] } | null = null
  async function accountHolds(number: string, tid: string, signal?: AbortSignal): Promise<boolean | null> {
    const age = listing ? performance.now() - listing.at : Number.POSITIVE_INFINITY
    if (age < HOLDS_TTL_MS && listingHolds(listing!.numbers, number, tid)) return true
    // A listing that lacks it is believed as long: a flood of refused made-up numbers reads it once per period.
    if (age < LISTING_TTL_MS && !listingHolds(listing!.numbers, number, tid)) return false
    try {
      const { body, json } = await forwardOnce(u, 'allownednumbers', [], signal)
      listing = { at: performance.now(), numbers: listedNumbers(json ?? JSON.parse(body.toString('utf8'))) }
    } catch {
      return null
    }
    return listingHolds(listing.numbers, number, tid)
  }

  /**
   * A refused history for a number or tid the account does not hold is the user's mistake (a
   * stale link, a mistyped tid), not the service failing: 404 in words, decided from the
   * account's own listing. A refusal of a number it does hold keeps its kind and the upstream's words.
   */
  async function forward(op: Operation, fields: Array<[string, string]>, clientSignal?: AbortSignal): Promise<ForwardResult> {
    try {
      return await forwardOnce(u, op, fields, clientSignal)
    } catch (err) {
      throw await refusal(op, fields, err, clientSignal)
    }
  }

  /** What to throw for a failed request: a refused history of a number the account does not hold becomes not_found. */
  async function refusal(op: Operation, fields: Array<[string, string]>, err: unknown, clientSignal?: AbortSignal): Promise<unknown> {
    if (op !== 'smshistory' || !(err instanceof ProxyError) || err.body.kind !== 'upstream_rejected') return err
    const field = (name: string) => fields.find(([k]) => k === name)?.[1] ?? ''
    if ((await accountHolds(field('number'), field('tid'), clientSignal)) !== false) return err
    return new ProxyError(404, {
      kind: 'not_found',
      message: 'This account has no such number (or the tid does not belong to it).',
      ...(err.body.upstreamStatus !== undefined ? { upstreamStatus: err.body.upstreamStatus } : {}),
      ...(err.body.message ? { cause: err.body.message.slice(0, 200) } : {}),
    })
  }

  async function forwardBytes(op: Operation, fields: Array<[string, string]>, clientSignal?: AbortSignal): Promise<Bytes> {
    try {
      const got = await forwardOnce(u, op, fields, clientSignal, true)
      return 'status' in got ? got : { body: got.body, status: 200, owned: false }
    } catch (err) {
      throw await refusal(op, fields, err, clientSignal)
    }
  }

  async function judge(op: Operation, fields: Array<[string, string]>, body: Buffer, status: number, clientSignal?: AbortSignal) {
    try {
      return judged(u, body, status, undefined)
    } catch (err) {
      throw await refusal(op, fields, err, clientSignal)
    }
  }

  return { forward, forwardBytes, judge, close: () => u.pool.close() }
}
