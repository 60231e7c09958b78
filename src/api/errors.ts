import * as z from 'zod/mini'
import { ERROR_KINDS, type ErrorKind } from '../../contract/api'
import { ERROR_BODY } from '../../contract/error-body'

/** The one error type the UI sees. Words are chosen from `kind`, never from the message text. */
export { ERROR_KINDS, type ErrorKind }

export interface ApiErrorExtra {
  upstreamStatus?: number
  field?: string
  retryAfterMs?: number
  /** What failed and where ("connection refused by api.example.com:443"), when the server knows. */
  cause?: string
  /** The server named our own session as the problem (sign in again), not the upstream's credentials. */
  session?: boolean
}

export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly status: number,
    readonly extra: ApiErrorExtra = {},
  ) {
    super(message)
  }
}

export const errorEnvelope = z.object({ error: ERROR_BODY })

/**
 * What went wrong (title), what the user can do (hint), and whether Retry can help. Where it
 * cannot (a rejection, a bad link, a switched-off index), the hint says what to do instead and
 * no Retry button is shown. Hints never point at text "below" or "above": the details are named.
 */
export const ERROR_WORDS: Record<ErrorKind, { title: string; hint: string; retry: boolean }> = {
  invalid_request: {
    title: 'Switchboard sent a request the server refused',
    hint: 'Check the link you followed: the details name the field.',
    retry: false,
  },
  unauthorized: {
    title: 'The messaging service rejected the account credentials',
    hint: 'Ask whoever runs this Switchboard to check API_SYS_ID and API_AUTH_TOKEN.',
    retry: false,
  },
  forbidden: { title: 'Your role does not allow this', hint: 'Ask an administrator of this Switchboard if you need it.', retry: false },
  not_found: { title: 'Not found', hint: 'The account has no such number or message. Open it again from the numbers list.', retry: false },
  upstream_rejected: {
    title: 'The messaging service refused the request',
    hint: "The details give the service's reason. Retrying the same request gets the same answer; once the reason is dealt with, use Refresh.",
    retry: false,
  },
  timeout: { title: 'The messaging service took too long to answer', hint: 'It may be busy. Try again in a moment.', retry: true },
  unreachable: {
    title: 'The messaging service could not be reached',
    hint: 'It may be down or failing. Try again in a moment.',
    retry: true,
  },
  bad_response: {
    title: 'The messaging service sent an answer Switchboard could not read',
    hint: 'This is usually temporary. Try again.',
    retry: true,
  },
  index_off: {
    title: 'The message index is off',
    hint: 'Search, whole threads, charts and uncapped exports need it. Whoever runs this Switchboard can turn it on (INDEX=on).',
    retry: false,
  },
  server_error: {
    title: 'The Switchboard server hit an error',
    hint: 'It has been logged. Try again; if it keeps happening, tell whoever runs this Switchboard.',
    retry: true,
  },
}

/**
 * The words for one error: its kind's, unless the error says more precisely whose failure it is.
 * The kinds are shared by the messaging service's failures and Switchboard's own, and their
 * titles blamed the service for a Switchboard server that stopped, an index that was slow and an
 * export line that was full; a service asking us to slow down read as "took too long".
 */
export function wordsFor(err: ApiError): { title: string; hint: string; retry: boolean } {
  const words = ERROR_WORDS[err.kind]
  const after = err.extra.retryAfterMs
  const when = after !== undefined ? `in about ${formatSeconds(after)}` : 'in a moment'
  // No answer at all from our own server (client.ts: status 0).
  if (err.kind === 'unreachable' && err.status === 0)
    return {
      title: 'The Switchboard server could not be reached',
      hint: 'It may have stopped or restarted, or this computer lost its connection. Try again in a moment.',
      retry: true,
    }
  if (err.kind === 'timeout' && err.extra.upstreamStatus === undefined && err.status === 429)
    return { title: 'Too many exports are running or waiting', hint: `Try again ${when}.`, retry: true }
  if (err.kind === 'timeout' && err.extra.upstreamStatus === undefined && err.status === 503)
    return { title: 'The message index took too long to answer', hint: `It may be busy with a sync. Try again ${when}.`, retry: true }
  if (err.kind === 'timeout' && (err.extra.upstreamStatus === 429 || /rate limit|fewer requests/i.test(err.message)))
    return {
      title: 'The messaging service asked Switchboard to slow down',
      hint: `It takes more requests ${when}: try again then.`,
      retry: true,
    }
  if (after !== undefined && words.retry)
    return { ...words, hint: `${words.hint.replace(/ ?Try again[^.]*\.$/, '')} Try again ${when}.`.trim() }
  return words
}

/** "30 s", "2 min": a wait as a person reads it. */
function formatSeconds(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000))
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`
}

/** Our own session expired or is missing (sign in again): 401 that names the session, not the upstream. */
export function isSessionError(err: unknown): boolean {
  return err instanceof ApiError && err.status === 401 && err.kind === 'unauthorized' && err.extra.session === true
}

/** Transport failures and 5xx are worth retrying; a rejection or a bad request is not. */
export function isRetryable(err: unknown): boolean {
  return err instanceof ApiError && (err.kind === 'unreachable' || err.kind === 'server_error')
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err
  return new ApiError('bad_response', err instanceof Error ? err.message : 'Unexpected error', 0)
}
