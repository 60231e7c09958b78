import * as z from 'zod/mini'
import { ApiError, errorEnvelope } from './errors'

/** The only `fetch` in the SPA. Credentials are never sent: the proxy attaches them. */
export async function postApi(op: 'smshistory' | 'allownednumbers' | 'ownednumbers', params: Record<string, string>, signal?: AbortSignal): Promise<unknown> {
  let res: Response
  try {
    res = await fetch(`/api/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(params).toString(),
      credentials: 'same-origin',
      signal,
    })
  } catch (err) {
    if (signal?.aborted) throw err
    throw new ApiError('unreachable', 'The Switchboard server could not be reached.', 0)
  }
  const text = await res.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  if (!res.ok) {
    const env = errorEnvelope.safeParse(json)
    if (env.success) {
      const e = env.data.error
      throw new ApiError(e.kind, e.message, res.status, { upstreamStatus: e.upstreamStatus, field: e.field, retryAfterMs: e.retryAfterMs })
    }
    throw new ApiError(res.status >= 500 ? 'unreachable' : 'invalid_request', `The Switchboard server answered HTTP ${res.status}.`, res.status)
  }
  if (json === undefined) throw new ApiError('bad_response', 'The Switchboard server answered with something that is not JSON.', res.status)
  return json
}

/** Parse at the edge; a shape mismatch is a `bad_response` naming the first bad field. */
export function parseWire<T extends z.ZodMiniType>(schema: T, json: unknown): z.output<T> {
  const r = schema.safeParse(json)
  if (!r.success) {
    const issue = r.error.issues[0]
    const where = issue?.path.length ? issue.path.join('.') : 'response'
    throw new ApiError('bad_response', `The messaging service's answer is missing or has a bad "${where}".`, 200)
  }
  return r.data
}

/** Optional text fields arrive as strings, numbers, null or nothing: one string-or-null. */
export const optText = z.pipe(
  z.nullish(z.union([z.string(), z.number()])),
  z.transform((v) => (v === null || v === undefined ? null : String(v))),
)
