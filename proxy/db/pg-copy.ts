import type pg from 'pg'
import type { CopyData } from './migrate.ts'

/**
 * COPY … FROM STDIN on a node-postgres client, without a library: node-postgres runs any object
 * with submit() as a query and hands it the COPY messages of the protocol (CopyInResponse, then
 * CommandComplete or ErrorResponse, then ReadyForQuery).
 *
 * The data goes as CopyData messages of at most PIECE bytes, each written straight to the
 * connection's socket (as pg-copy-streams does), and the thread is let go between two: requests
 * run while a sync's batch is sent. Sent whole through node-postgres, a batch of a few megabytes
 * was copied into its message buffer and written in one task, and a batch's data was made in one
 * too: together 10 to 25 ms of the server's thread at a time, each batch of a million-message
 * sync (a CPU profile of it).
 *
 * The one COPY form the Db knows is PGlite's, `COPY … FROM '/dev/blob' …`; on a PostgreSQL
 * server the same statement reads standard input instead.
 */

const BLOB_SOURCE = /FROM\s+'\/dev\/blob'/i

/** The largest CopyData message sent: bytes handed over whole are sent in views of this size. */
export const PIECE = 256 * 1024

/** The protocol's CopyData message type ('d'). */
const COPY_DATA = 0x64

export function stdinCopySql(sql: string): string {
  if (!BLOB_SOURCE.test(sql)) throw new Error(`copyFrom takes COPY … FROM '/dev/blob' statements, not: ${sql.slice(0, 80)}`)
  return sql.replace(BLOB_SOURCE, 'FROM STDIN')
}

/** `data` as pieces of at most PIECE bytes, views of it where it is whole; pieces it came in stay as they are. */
function* piecesOf(data: CopyData): Generator<Uint8Array> {
  const whole = typeof data === 'string' ? Buffer.from(data, 'utf8') : data instanceof Uint8Array ? data : null
  if (whole === null) return yield* data as Iterable<Uint8Array>
  for (let at = 0; at < whole.byteLength; at += PIECE) yield whole.subarray(at, at + PIECE)
}

/** What node-postgres calls on the query it is running (lib/client.js), and the socket it writes to (lib/connection.js). */
interface CopyConnection {
  query: (text: string) => void
  endCopyFrom: () => void
  sendCopyFail: (message: string) => void
  stream: {
    write: (chunk: Uint8Array) => boolean
    once: (event: 'drain', fn: () => void) => unknown
    off: (event: 'drain', fn: () => void) => unknown
  }
}

class CopyIn {
  callback: ((err: Error | null) => void) | undefined
  private settled = false
  /** Wakes the sender waiting between two pieces, when the answer came first (an error ends the COPY). */
  private wake: (() => void) | null = null
  constructor(
    private readonly text: string,
    private readonly data: CopyData,
  ) {}

  private settle(err: Error | null): void {
    if (this.settled) return
    this.settled = true
    this.wake?.()
    this.callback?.(err)
  }

  submit(connection: CopyConnection): void {
    connection.query(this.text)
  }
  handleCopyInResponse(connection: CopyConnection): void {
    void this.send(connection)
  }

  /**
   * Each piece as a CopyData message, then CopyDone; CopyFail when making a piece throws. The
   * next piece waits for a turn of the event loop, or for the socket to drain when it is full.
   * After an error from the server nothing more is sent (the server drops CopyData then anyway).
   */
  private async send(connection: CopyConnection): Promise<void> {
    const { stream } = connection
    try {
      for (const piece of piecesOf(this.data)) {
        if (this.settled) return
        if (piece.byteLength === 0) continue
        const header = Buffer.allocUnsafe(5)
        header[0] = COPY_DATA
        header.writeUInt32BE(piece.byteLength + 4, 1)
        stream.write(header)
        const room = stream.write(piece)
        await new Promise<void>((resolve) => {
          const go = () => {
            this.wake = null
            stream.off('drain', go)
            resolve()
          }
          this.wake = go
          if (room) setImmediate(go)
          else stream.once('drain', go)
        })
      }
      if (!this.settled) connection.endCopyFrom()
    } catch (e) {
      if (!this.settled) connection.sendCopyFail(e instanceof Error ? e.message : String(e))
    }
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
export function copyFromStdin(client: pg.PoolClient, sql: string, data: CopyData): Promise<void> {
  const q = new CopyIn(stdinCopySql(sql), data)
  return new Promise<void>((resolve, reject) => {
    q.callback = (err) => (err ? reject(err) : resolve())
    client.query(q as unknown as pg.Submittable)
  })
}
