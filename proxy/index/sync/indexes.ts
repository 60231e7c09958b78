import type { Db } from '../../db/types.ts'

/**
 * Keys that hold (number, ordinal) are never equal, so b-tree deduplication finds nothing to merge:
 * off (migration 710), a build skips its pass (on PGlite, over the simulator's million: the thread
 * index 4.5-4.8 s instead of 4.8-5.1, number_date 1.9 s instead of 2.0-2.1) and an insert into a
 * full leaf splits it without trying first. An INCLUDE index never deduplicates.
 */
const UNIQUE_KEYS = 'WITH (deduplicate_items = off)'

/**
 * The secondary indexes of index_messages (as the migrations leave them). A first bulk load of
 * a large history into a small table drops them and builds them once at the end: building a
 * trigram index in one pass costs a fraction of maintaining it row by row.
 */
export const SECONDARY_INDEXES = [
  'CREATE INDEX IF NOT EXISTS index_messages_date ON index_messages (date DESC, number DESC, ordinal DESC) INCLUDE (status_code)',
  `CREATE INDEX IF NOT EXISTS index_messages_number_date ON index_messages (number, date DESC, ordinal DESC) ${UNIQUE_KEYS}`,
  `CREATE INDEX IF NOT EXISTS index_messages_thread ON index_messages (number, party_digits, date DESC, ordinal DESC) ${UNIQUE_KEYS}`,
  'CREATE INDEX IF NOT EXISTS index_messages_errors ON index_messages (date DESC) WHERE status_code >= 400',
  'CREATE INDEX IF NOT EXISTS index_messages_body ON index_messages (body_id)',
]
export const SECONDARY_NAMES = [
  'index_messages_date',
  'index_messages_number_date',
  'index_messages_thread',
  'index_messages_errors',
  'index_messages_body',
]

/**
 * The support desk's partial index on index_messages (quiet-hour sends, migration 320; the opt
 * messages' index of migration 335 gave way to desk_opt_messages in 510). A bulk load that keeps
 * the desk drops and builds it too: on the simulator's million, the two then kept row by row took
 * about 1 s of PGlite's storing, about what building them at the end costs, and on PostgreSQL the
 * whole sync took 1.2 s (7 %) longer than with them built at the end. One that does not keep the
 * desk leaves it (its rows have no desk facts, so nothing enters it, and a build would read the
 * whole table for nothing).
 */
export const DESK_INDEXES = [
  `CREATE INDEX IF NOT EXISTS index_messages_desk_quiet ON index_messages (number, date DESC, ordinal DESC) ${UNIQUE_KEYS} WHERE desk_quiet`,
]
const DESK_NAMES = ['index_messages_desk_quiet']
const ALL_NAMES = [...SECONDARY_NAMES, ...DESK_NAMES]

/**
 * Re-creates any secondary index that is missing (after a bulk load, or one cut short by a crash).
 * Each index is built in a transaction of its own (two at a time on PostgreSQL): on PGlite a transaction holds the one
 * connection, so requests' reads wait for one index build at most (seconds on a million rows), not
 * for all seven (up to a minute on a loaded machine, past the reads' 30 s queue limit). A crash
 * between two builds leaves the rest missing, and the next call builds them. `wanted`: whether to
 * go on (a sync's caller: no bulk load of this server has started meanwhile).
 *
 * One call at a time per database handle: two syncs ending together both found the same indexes
 * missing, and on PostgreSQL two sessions creating one index name at once fail one of them
 * (SQLSTATE 23505 on the catalog). An index another server created meanwhile counts as built.
 */
export function ensureIndexes(db: Db, log: (line: string) => void = () => {}, wanted: () => boolean = () => true): Promise<void> {
  const mine = (ensuring.get(db) ?? Promise.resolve()).catch(() => {}).then(() => buildMissing(db, log, wanted))
  ensuring.set(db, mine)
  return mine
}

const ensuring = new WeakMap<Db, Promise<void>>()

/** The index a CREATE INDEX statement of this file names, without its table's prefix. */
const nameOf = (sql: string) => /INDEX IF NOT EXISTS index_messages_(\w+)/.exec(sql)?.[1] ?? sql

/** SQLSTATEs of a CREATE INDEX IF NOT EXISTS racing another session's: unique_violation (the catalog), duplicate_table. */
const CREATED_MEANWHILE = new Set(['23505', '42P07'])

async function buildMissing(db: Db, log: (line: string) => void, wanted: () => boolean): Promise<void> {
  const r = await db.query<{ indexname: string }>(
    `SELECT indexname FROM pg_indexes WHERE tablename = 'index_messages' AND indexname = ANY($1::text[])`,
    [ALL_NAMES],
  )
  const present = new Set(r.rows.map((x) => x.indexname))
  const missing = [...SECONDARY_INDEXES, ...DESK_INDEXES].filter((_, i) => !present.has(ALL_NAMES[i] ?? ''))
  if (missing.length === 0 || !wanted()) return
  const started = Date.now()
  const queue = [...missing]
  // Each build's own time, in the log line: which index costs what (docs/performance.md).
  const took: string[] = []
  const build = async () => {
    // `wanted` is asked before each build: a bulk load that started since (its indexes dropped)
    // builds them itself when it ends.
    for (let sql = queue.shift(); sql && wanted(); sql = queue.shift())
      await db
        .transaction(async (tx) => {
          await tx.query(`SET LOCAL statement_timeout = 0`)
          await tx.query(`SET LOCAL maintenance_work_mem = '128MB'`)
          const t = performance.now()
          await tx.query(sql)
          took.push(`${nameOf(sql)} ${Math.round(performance.now() - t)} ms`)
        })
        .catch((e: unknown) => {
          if (!CREATED_MEANWHILE.has(String((e as { code?: unknown } | null)?.code))) throw e
        })
  }
  // PostgreSQL builds two at once, on two of the background lane's connections (CREATE INDEX
  // locks allow it): on the simulator's million, 3.0 s for the seven against 3.5 s one by one.
  // PGlite has one connection.
  await Promise.all(Array.from({ length: db.engine === 'postgres' ? 2 : 1 }, build))
  log(
    `index: ${missing.length === ALL_NAMES.length ? 'secondary indexes' : `${missing.length} missing indexes`} built in ${Date.now() - started} ms (${took.join(', ')})`,
  )
}

/** Drops the secondary indexes (the desk's too when `desk`) for a bulk load; false when another session is using the table. */
export async function dropIndexes(db: Db, desk: boolean): Promise<boolean> {
  return db
    .transaction(async (tx) => {
      await tx.query(`SET LOCAL lock_timeout = '2s'`)
      for (const name of desk ? ALL_NAMES : SECONDARY_NAMES) await tx.query(`DROP INDEX IF EXISTS ${name}`)
      return true
    })
    .catch(() => false)
}
