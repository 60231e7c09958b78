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
