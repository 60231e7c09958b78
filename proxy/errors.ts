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
export const notRecorded = (cause?: unknown) =>
  isDiskFull(cause)
    ? diskFull('change')
    : new ProxyError(503, {
        kind: 'server_error',
        message: 'The access log could not record this change, so it was not made. Try again; if it persists, tell an admin.',
      })

/**
 * A full disk under the database: PostgreSQL's SQLSTATE disk_full (53100: a PostgreSQL server
 * raises it, and the PGlite worker gives it to every failure its file layer saw as ENOSPC or
 * EDQUOT), or the access log's journal file refused for the same reason.
 */
export function isDiskFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === '53100' || code === 'ENOSPC' || code === 'EDQUOT'
}

/** The one answer to a full disk, whatever the engine: what failed, why, and that it mends itself. */
export const diskFull = (what: 'request' | 'change' | 'read' = 'request') =>
  new ProxyError(503, {
    kind: 'server_error',
    cause: 'no space left on the disk that holds DATA_DIR (or the PostgreSQL server’s data)',
    message: `No space left on the disk that holds the database (DATA_DIR, or the PostgreSQL server’s data directory), so this ${what === 'read' ? 'read could not be recorded and was refused' : what === 'change' ? 'change could not be recorded and was not made' : 'request could not be completed'}. It works again by itself once space is freed; tell an admin.`,
  })
