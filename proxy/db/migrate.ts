import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Db, Queryable } from './types.ts'

/**
 * Versioned SQL migrations: every `NNN-name.sql` in proxy/db/migrations, applied in numeric
 * order, each once, each in its own transaction, recorded in `schema_migrations`. The index
 * owns 001–099 and team access 100–199; one runner applies both.
 *
 * Several servers may start at once against one PostgreSQL: each migration's transaction first
 * takes a transaction-scoped advisory lock, then re-checks whether another server applied it
 * meanwhile, so a file never runs twice.
 */

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url))

/** Arbitrary constant: the advisory-lock key all Switchboard servers use for migrations. */
const MIGRATION_LOCK_KEY = 7_349_210_001

export interface Migration {
  version: number
  name: string
  sql: string
}

/** The migration files of a folder, sorted by number; a duplicate number is a start-up error. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const out: Migration[] = []
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.sql')) continue
    const m = /^(\d+)-[\w.-]+\.sql$/.exec(file)
    if (!m?.[1]) throw new Error(`Migration file ${file} must be named NNN-name.sql`)
    out.push({ version: Number(m[1]), name: file, sql: readFileSync(`${dir}/${file}`, 'utf8') })
  }
  out.sort((a, b) => a.version - b.version)
  for (let i = 1; i < out.length; i++)
    if (out[i]!.version === out[i - 1]!.version)
      throw new Error(`Two migrations share the number ${out[i]!.version}: ${out[i - 1]!.name} and ${out[i]!.name}`)
  return out
}

/** A transaction handle that can also run a multi-statement script (a migration file). */
export interface ScriptRunner extends Queryable {
  exec(sql: string): Promise<void>
  /** In a transaction: COPY … FROM '/dev/blob' with `data` as the file (on a PostgreSQL server, as its standard input: pg-copy.ts). */
  copyFrom?: (sql: string, data: CopyData) => Promise<void>
}

/**
 * COPY's data: text, its UTF-8 bytes, or those bytes in pieces, made one at a time as they are
 * sent (a PostgreSQL server takes each as it comes; PGlite takes the whole file, the pieces
 * joined). Bytes are handed over as they are: the caller must not touch them after.
 */
export type CopyData = string | Uint8Array<ArrayBuffer> | Iterable<Uint8Array<ArrayBuffer>>

export interface MigratableDb extends Db {
  transaction<T>(fn: (tx: ScriptRunner) => Promise<T>): Promise<T>
}

/** Applies the pending migrations; returns the names applied now. */
export async function migrate(db: MigratableDb, opts: { dir?: string; log?: (line: string) => void } = {}): Promise<string[]> {
  const migrations = readMigrations(opts.dir)
  // Under the same lock: two servers creating the table at once would race on the catalog.
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY])
    await tx.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    )
  })
  const applied: string[] = []
  for (const m of migrations) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY])
      const seen = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [m.version])
      if (seen.rows.length > 0) return false
      // Schema changes may run longer than a query's 5 s bound (an index over a million rows).
      await tx.exec(`SET LOCAL statement_timeout = 0;\n${m.sql}`)
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name])
      return true
    })
    if (done) {
      applied.push(m.name)
      opts.log?.(`database: applied migration ${m.name}`)
    }
  }
  return applied
}
