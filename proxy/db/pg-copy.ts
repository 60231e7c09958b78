import type pg from 'pg'

/**
 * COPY … FROM STDIN on a node-postgres client, without a library: node-postgres runs any object
 * with submit() as a query and hands it the COPY messages of the protocol (CopyInResponse, then
 * CommandComplete or ErrorResponse, then ReadyForQuery). The whole of `data` goes as one CopyData
 * message: the sync's batches are a few megabytes, far below the protocol's 1 GB bound.
 *
 * The one COPY form the Db knows is PGlite's, `COPY … FROM '/dev/blob' …`; on a PostgreSQL
 * server the same statement reads standard input instead.
 */

const BLOB_SOURCE = /FROM\s+'\/dev\/blob'/i

export function stdinCopySql(sql: string): string {
  if (!BLOB_SOURCE.test(sql)) throw new Error(`copyFrom takes COPY … FROM '/dev/blob' statements, not: ${sql.slice(0, 80)}`)
  return sql.replace(BLOB_SOURCE, 'FROM STDIN')
}

/** What node-postgres calls on the query it is running (lib/client.js). */
interface CopyConnection {
  query: (text: string) => void
  sendCopyFromChunk: (chunk: Buffer) => void
  endCopyFrom: () => void
  sendCopyFail: (message: string) => void
}

class CopyIn {
  callback: ((err: Error | null) => void) | undefined
  private settled = false
  constructor(
    private readonly text: string,
    private readonly data: Buffer,
  ) {}

  private settle(err: Error | null): void {
    if (this.settled) return
    this.settled = true
    this.callback?.(err)
  }

  submit(connection: CopyConnection): void {
    connection.query(this.text)
  }
  handleCopyInResponse(connection: CopyConnection): void {
    connection.sendCopyFromChunk(this.data)
    connection.endCopyFrom()
  }
  // An error ends the query here (node-postgres forgets the query before ReadyForQuery comes).
  handleError(err: Error): void {
    this.settle(err)
  }
  handleReadyForQuery(): void {
    this.settle(null)
  }
  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  // A COPY … TO STDOUT is not what this sends; refuse its data rather than hang.
  handleCopyData(_msg: unknown, connection: CopyConnection): void {
    connection.sendCopyFail('COPY TO is not supported here')
  }
}

/** Runs `sql` (COPY … FROM '/dev/blob', as on PGlite) with `data` as its input, on `client`. */
export function copyFromStdin(client: pg.PoolClient, sql: string, data: string | Uint8Array): Promise<void> {
  const q = new CopyIn(
    stdinCopySql(sql),
    typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength),
  )
  return new Promise<void>((resolve, reject) => {
    q.callback = (err) => (err ? reject(err) : resolve())
    client.query(q as unknown as pg.Submittable)
  })
}
