import * as z from 'zod/mini'
import type { Operation, OperationParams } from '../../contract/api'
import { IDLE_HEADER } from '../../contract/roles'
import { needsPhoneLibrary, phoneFormatting } from '../lib/phone'
import { ApiError, errorEnvelope, isSessionError } from './errors'

/**
 * The only `fetch` calls in the SPA live in src/api. Credentials are never sent: the proxy
 * attaches them. Our own session (team access) travels as an HttpOnly cookie, same-origin.
 */

let onSessionLost: (() => void) | null = null
/** The app registers where to go when our own server says the session is gone (401 naming it). */
export function setSessionLostHandler(fn: (() => void) | null) {
  onSessionLost = fn
}

/** How long after the person's last key, click, touch or wheel a request still counts as their use of the session. */
export const ACTIVE_MS = 60_000
let lastInput = Date.now()
const acted = () => {
  lastInput = Date.now()
}
if (typeof window !== 'undefined') {
  // Keys, clicks, touches, the wheel, the browser's Back and Forward, and coming back to the tab.
  for (const type of ['pointerdown', 'keydown', 'wheel', 'touchstart', 'popstate'])
    window.addEventListener(type, acted, { capture: true, passive: true })
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') acted()
  })
}

/** Work the person started and is waiting on (an export): while any runs, its requests count as use. */
let holds = 0
export function holdActive(): () => void {
  holds++
  let released = false
  return () => {
    if (!released) {
      released = true
      holds--
    }
  }
}

/** The request's headers, marked as the app's own (IDLE_HEADER) when its person has not acted within ACTIVE_MS. */
export function withIdleMark(headers: HeadersInit | undefined, now = Date.now()): Headers {
  const h = new Headers(headers)
  if (holds === 0 && now - lastInput > ACTIVE_MS) h.set(IDLE_HEADER, '1')
  return h
}

async function send(url: string, init: RequestInit, signal?: AbortSignal): Promise<Response> {
  try {
    return await fetch(url, { ...init, headers: withIdleMark(init.headers), credentials: 'same-origin', signal })
  } catch (err) {
    if (signal?.aborted) throw err
    throw new ApiError('unreachable', 'The Switchboard server could not be reached.', 0, {
      cause: `no answer from ${window.location.host}`,
    })
  }
}

/** An error response → ApiError, from the envelope when there is one. */
export async function errorFrom(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '')
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  const env = errorEnvelope.safeParse(json)
  let err: ApiError
  if (env.success) {
    const e = env.data.error
    // A 401 that names no upstream status is our own server refusing the session (team access),
    // not the messaging service rejecting the account's credentials (which carries upstreamStatus).
    const session = res.status === 401 && e.kind === 'unauthorized' && (e.upstreamStatus === undefined || e.field === 'session')
    err = new ApiError(e.kind, e.message, res.status, {
      upstreamStatus: e.upstreamStatus,
      field: e.field,
      retryAfterMs: e.retryAfterMs,
      cause: e.cause,
      session,
    })
  } else if (res.status === 404) {
    err = new ApiError(
      'not_found',
      `The Switchboard server has no ${new URL(res.url || '/', window.location.href).pathname} (HTTP 404).`,
      404,
    )
  } else {
    err = new ApiError(
      res.status >= 500 ? 'server_error' : 'invalid_request',
      `The Switchboard server answered HTTP ${res.status}.`,
      res.status,
    )
  }
  if (isSessionError(err)) onSessionLost?.()
  return err
}

/**
 * Given an answer's text before it is parsed whole: `whole` false for the start of a long answer
 * that is still arriving (once, not awaited: the rest keeps coming in the meantime), then true
 * for all of it, awaited before the parse. A long listing's first rows are drawn from either.
 */
export type BeforeParse = (text: string, whole: boolean) => Promise<void>

/**
 * Characters of an answer, still arriving, after which its start is handed on (about 340 of a
 * listing's numbers): a smaller answer comes whole, or nearly, and is simply parsed.
 */
export const EARLY_CHARS = 64 * 1024

/**
 * The body's text, as `res.text()` gives it; with `early`, read as it arrives, and its start
 * given to `early` once EARLY_CHARS of it have come while more may follow. The rest of a 1.9 MB
 * listing arrives over a further 20 ms and more on loopback, longer from a real upstream: its
 * first rows need not wait for it.
 */
export async function readText(res: Response, early?: (head: string) => void): Promise<string> {
  if (!early || !res.body) return res.text()
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  // Appending makes a rope, not a copy each time; JSON.parse flattens it once.
  let text = ''
  let told = false
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    text += decoder.decode(value, { stream: true })
    if (!told && text.length >= EARLY_CHARS) {
      told = true
      early(text)
    }
  }
}

async function readJson(res: Response, beforeParse?: BeforeParse): Promise<unknown> {
  if (!res.ok) throw await errorFrom(res)
  // A start that needs libphonenumber's lazy chunk (src/lib/phone.ts) waits for the whole answer, as before.
  const early =
    beforeParse && ((head: string) => void (needsPhoneLibrary(head) ? undefined : beforeParse(head, false).catch(() => undefined)))
  const text = await readText(res, early)
  // An answer with a number only libphonenumber formats waits for its lazy chunk (src/lib/phone.ts).
  if (needsPhoneLibrary(text)) await phoneFormatting()
  if (beforeParse) await beforeParse(text, true)
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError('bad_response', 'The Switchboard server answered with something that is not JSON.', res.status)
  }
}

/** The upstream's operations, relayed by the proxy (form fields, as the upstream takes them). */
export async function postApi<Op extends Operation>(
  op: Op,
  params: OperationParams<Op>,
  signal?: AbortSignal,
  headers: Record<string, string> = {},
  beforeParse?: BeforeParse,
): Promise<unknown> {
  const res = await send(
    `/api/${op}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
      body: new URLSearchParams(params).toString(),
    },
    signal,
  )
  return readJson(res, beforeParse)
}

/** Build a same-origin GET URL; empty values are left out. */
export function apiUrl(path: string, params: Record<string, string | number | undefined | null> = {}): string {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v))
  const s = p.toString()
  return s ? `${path}?${s}` : path
}

/** A GET of our own server's JSON API (/api/meta, /api/index/*). */
export async function getJson(
  path: string,
  params: Record<string, string | number | undefined | null> = {},
  signal?: AbortSignal,
): Promise<unknown> {
  const res = await send(apiUrl(path, params), { method: 'GET', headers: { accept: 'application/json' } }, signal)
  return readJson(res)
}

/** A POST of JSON to our own server (index sync). */
export async function postJson(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const res = await send(
    path,
    { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) },
    signal,
  )
  return readJson(res)
}

/** A streamed GET (exports): the caller reads the body. Errors come back as ApiError. */
export async function getStream(
  path: string,
  params: Record<string, string | number | undefined | null>,
  signal: AbortSignal,
): Promise<Response> {
  const res = await send(apiUrl(path, params), { method: 'GET' }, signal)
  if (!res.ok) throw await errorFrom(res)
  return res
}

/** Parse at the edge; a shape mismatch is a `bad_response` naming the first bad field. */
export function parseWire<T extends z.ZodMiniType>(schema: T, json: unknown, who = "The messaging service's"): z.output<T> {
  const r = schema.safeParse(json)
  if (!r.success) {
    const issue = r.error.issues[0]
    const where = issue?.path.length ? issue.path.join('.') : 'response'
    throw new ApiError('bad_response', `${who} answer is missing or has a bad "${where}".`, 200)
  }
  return r.data
}

/** Optional text fields arrive as strings, numbers, null or nothing: one string-or-null. */
export const optText = z.pipe(
  z.nullish(z.union([z.string(), z.number()])),
  z.transform((v) => (v === null || v === undefined ? null : String(v))),
)
