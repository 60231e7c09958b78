/**
 * One thin interface over both engines: PGlite (embedded, the default) and a PostgreSQL server
 * through node-postgres. Both take `query(sql, params)` with `$1…` placeholders, so every
 * statement is parameterised the same way and the SQL is shared.
 */

export interface Queryable {
  query<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<{ rows: R[] }>
}

/**
 * Which lane a statement goes in: requests are interactive; the index's sync, bulk loads and
 * exports are background. On PGlite (one connection) background statements wait while
 * interactive ones are queued; on PostgreSQL the background lane holds at most its share of the
 * pool, so requests always find connections.
 */
export type Lane = 'interactive' | 'background'

export interface Db extends Queryable {
  engine: 'pglite' | 'postgres'
  /** Runs `fn` in one transaction on one connection; rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  /**
   * Runs `fn` with one dedicated connection held for its duration (session-level advisory
   * locks and cursors need the same connection throughout). PGlite has only one.
   */
  withConnection<T>(fn: (conn: Queryable) => Promise<T>): Promise<T>
  /**
   * Runs `statements` in order in one transaction and gives each one's rows: a transaction whose
   * statements do not depend on one another's answers (a SET LOCAL before a read). On PGlite it
   * is one message to the worker and one turn on the connection instead of a turn per statement.
   */
  batch?: (statements: ReadonlyArray<{ sql: string; params?: readonly unknown[] }>) => Promise<Array<{ rows: Record<string, unknown>[] }>>
  close(): Promise<void>
  /**
   * The same database with its statements in `lane` (closing either handle closes both).
   * Absent where a Db has no lanes (a test's stand-in).
   */
  lane?: (lane: Lane) => Db
  /**
   * The same database, its statements waiting as work asked for at `since` (performance.now() at
   * a request's arrival): where statements queue for a connection, the oldest request's go first,
   * so a request's second statement does not wait behind every request that arrived after it.
   * Absent where a Db has no queue of its own.
   */
  turn?: (since: number) => Db
}

/** `db`'s background handle where it has one, else `db` itself. */
export const background = (db: Db): Db => db.lane?.('background') ?? db
