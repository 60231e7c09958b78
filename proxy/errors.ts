import type { ErrorBody, ErrorKind } from '../contract/api.ts'

/** The error kinds and envelope come from the wire contract (contract/api.ts), the one source both sides read. */
export type { ErrorBody, ErrorKind }

export class ProxyError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message)
  }
}

export const invalid = (field: string, message: string) => new ProxyError(400, { kind: 'invalid_request', field, message })

/** An action whose access-log entry could not be stored is not taken (fail closed, as reads are). */
export const notRecorded = () =>
  new ProxyError(503, {
    kind: 'server_error',
    message: 'The access log could not record this change, so it was not made. Try again; if it persists, tell an admin.',
  })
