/** The one error envelope the SPA understands: `{ error: { kind, message, upstreamStatus?, field?, retryAfterMs? } }`. */
export type ErrorKind = 'invalid_request' | 'unauthorized' | 'upstream_rejected' | 'timeout' | 'unreachable' | 'bad_response'

export interface ErrorBody {
  kind: ErrorKind
  message: string
  upstreamStatus?: number
  field?: string
  retryAfterMs?: number
}

export class ProxyError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message)
  }
}

export const invalid = (field: string, message: string) => new ProxyError(400, { kind: 'invalid_request', field, message })
