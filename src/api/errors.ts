import * as z from 'zod/mini'

/** The one error type the UI sees. Words are chosen from `kind`, never from the message text. */
export const ERROR_KINDS = ['invalid_request', 'unauthorized', 'upstream_rejected', 'timeout', 'unreachable', 'bad_response'] as const
export type ErrorKind = (typeof ERROR_KINDS)[number]

export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly status: number,
    readonly extra: { upstreamStatus?: number; field?: string; retryAfterMs?: number } = {},
  ) {
    super(message)
  }
}

export const errorEnvelope = z.object({
  error: z.object({
    kind: z.enum(ERROR_KINDS),
    message: z.string(),
    upstreamStatus: z.optional(z.number()),
    field: z.optional(z.string()),
    retryAfterMs: z.optional(z.number()),
  }),
})

export const ERROR_WORDS: Record<ErrorKind, { title: string; hint: string }> = {
  invalid_request: { title: 'Switchboard sent a request the server refused', hint: 'Check the link you followed; the details below name the field.' },
  unauthorized: {
    title: 'The messaging service rejected the account credentials',
    hint: 'Ask whoever runs this Switchboard to check API_SYS_ID and API_AUTH_TOKEN.',
  },
  upstream_rejected: { title: 'The messaging service refused the request', hint: 'Its own explanation is below.' },
  timeout: { title: 'The messaging service took too long to answer', hint: 'It may be busy. Try again in a moment.' },
  unreachable: { title: 'The messaging service could not be reached', hint: 'It may be down or failing. Try again in a moment.' },
  bad_response: { title: 'The messaging service sent an answer Switchboard could not read', hint: 'This is usually temporary. Try again.' },
}

/** Transport failures and 5xx are worth retrying; a rejection or a bad request is not. */
export function isRetryable(err: unknown): boolean {
  return err instanceof ApiError && err.kind === 'unreachable'
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err
  return new ApiError('bad_response', err instanceof Error ? err.message : 'Unexpected error', 0)
}
