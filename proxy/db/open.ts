import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import pg from 'pg'
import { acquireDataDirLock } from './lock.ts'
import { migrate, type CopyData, type MigratableDb, type ScriptRunner } from './migrate.ts'
import { copyFromStdin } from './pg-copy.ts'
import { openPgliteWorker, type DiskFaults, type ScriptDb } from './pglite-client.ts'
import type { Lane } from './types.ts'
import { ownTurn } from './turns.ts'

/**
 * Opens the database: PGlite (embedded PostgreSQL in WebAssembly) under `dataDir` by default,
 * in a worker thread so its work never holds the server's event loop, or a PostgreSQL server
 * through a node-postgres pool when `databaseUrl` is set. Both run the same SQL and the same
 * migrations; the rest of the server sees only the Db interface.
 */

export interface OpenDbOptions {
  /**
   * PGlite's data directory (created owner-only, locked to this process: see lock.ts). Ignored
   * when `databaseUrl` is set.
   */
  dataDir?: string
  /** `postgres://…` or `postgresql://…`: use that server instead of PGlite. */
  databaseUrl?: string
  log?: (line: string) => void
  /**
   * Bound on every statement on a server connection (ms); writes raise it with SET LOCAL. On
   * PGlite, which cannot stop a running statement, it bounds how long an interactive statement
   * waits for its turn (the same error, code 57014).
   */
  statementTimeoutMs?: number
  /** Pool size for a server (default 4; the server passes DATABASE_POOL_SIZE). */
  poolSize?: number
  /**
   * Connections of that pool the background lane (the sync, index builds, exports) may hold at
   * once; the others stay for requests. Default half the pool, always leaving requests one.
   */
  backgroundConnections?: number
  /** Apply migrations (default true). */
  migrate?: boolean
  /**
   * What the rooms need done once the migrations are in and before anyone uses the database, in
   * order (the access log puts in the entries its journal holds: accessOnOpen). The composition
   * root and the command line register them; this module knows no room. Run only with migrate.
   */
  onOpen?: ReadonlyArray<OnOpen>
  /** PGlite only, for tests: the returned Db's `faults` can make the data directory's disk act full (DiskFaults). */
  diskFaults?: boolean
}

/** One room's step on open (OpenDbOptions.onOpen); a failure closes the database and rejects the open. */
export type OnOpen = (db: OpenedDb, log?: (line: string) => void) => Promise<unknown>

export type OpenedDb = MigratableDb & {
  /** Where the data lives, for logs and the status page: the directory or the server's host/db. */
  location: string
  /** The test seam, where opened with `diskFaults`. */
  faults?: DiskFaults
}

const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000
/**
 * How long a request's statement may wait for its turn in PGlite's worker. A statement already
 * running there cannot be interrupted, and building a secondary index over a million messages
 * takes about 20 s: a request waits that out (off the event loop) rather than failing, and only
 * a longer wait answers 503 `timeout`.
 */
const DEFAULT_PGLITE_QUEUE_TIMEOUT_MS = 30_000

/**
 * Customer messages live in this directory: only the owner may read it. PGlite writes files
 * with the process umask, so the directory's own 0700 is what keeps others out; files found
 * readable by group or others are tightened too (defence in depth, e.g. after a copy).
 */
function secureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const walk = (d: string) => {
    const st = statSync(d)
    if ((st.mode & 0o077) !== 0) chmodSync(d, st.mode & 0o700)
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name)
      if (entry.isDirectory()) walk(p)
      else if (entry.isFile()) {
        const fst = statSync(p)
        if ((fst.mode & 0o077) !== 0) chmodSync(p, fst.mode & 0o700)
      }
    }
  }
  walk(dir)
}

async function openPglite(dataDir: string, opts: OpenDbOptions): Promise<OpenedDb> {
  const dir = resolve(dataDir)
  secureDir(dir)
  const lock = acquireDataDirLock(dir)
  let db: ScriptDb
  try {
    db = await openPgliteWorker({
      dataDir: dir,
      queueTimeoutMs: opts.statementTimeoutMs ?? DEFAULT_PGLITE_QUEUE_TIMEOUT_MS,
      log: opts.log,
      diskFaults: opts.diskFaults,
    })
  } catch (err) {
    lock.release()
    throw err
  }
  secureDir(dir)
  const close = async () => {
    try {
      await db.close()
    } finally {
      lock.release()
    }
  }
  const handles: Record<Lane, OpenedDb> = {
    interactive: {
      ...db,
      location: dir,
      close,
      lane: (l) => handles[l],
      turn: (at) => ({ ...db.turn(at), location: dir, close, lane: (l) => handles[l] }),
    },
    background: { ...db.lane('background'), location: dir, close, lane: (l) => handles[l] },
  }
  return handles.interactive
}

/** int8 as a JavaScript number (counts and ids here stay far below 2^53), as PGlite does. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === 20) return (v: string) => Number(v)
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text')
  }) as typeof pg.types.getTypeParser,
}

/**
 * A flat array of numbers, or of strings, with or without nulls, as PostgreSQL's array text
 * (what node-postgres sends for it), written in one join; anything else is left to
 * node-postgres. Its own encoder builds the text element by element: over a million-message
 * sync's roll-ups that was 75 MB of short-lived strings on the server's thread (a sampling heap
 * profile), whose collections stalled requests.
 */
export function pgParam(v: unknown): unknown {
  if (!Array.isArray(v) || v.length === 0) return v
  let numbers = true
  let strings = true
  const xs = v as unknown[]
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]
    if (x === null) continue
    if (typeof x !== 'number' || !Number.isFinite(x)) numbers = false
    if (typeof x !== 'string') strings = false
    if (!numbers && !strings) return v
  }
  const items = v as Array<number | string | null>
  if (numbers) return `{${items.map((x) => (x === null ? 'NULL' : String(x))).join(',')}}`
  return `{${items.map((x) => (x === null ? 'NULL' : `"${(x as string).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)).join(',')}}`
}

/** Holds a slot of a gate around `fn`; `since` orders the waiting (performance.now(); Db.turn). */
type Enter = <T>(fn: () => Promise<T>, since?: number) => Promise<T>

/**
 * At most `size` holders at once, the others waiting oldest first: in order of `since` (a
 * request's arrival, see Db.turn), else of their own arrival. The background lane's share of a
 * PostgreSQL pool (what it does not hold stays free for requests), and the requests' own turns.
 */
function createGate(size: number): Enter {
  let held = 0
  const waiting: Array<{ since: number; go: () => void }> = []
  return async <T>(fn: () => Promise<T>, since?: number): Promise<T> => {
    if (held < size) held++
    else
      await new Promise<void>((go) => {
        // The slot is handed over, `held` unchanged. Nearly always at the end: the walk back is short.
        const at = since ?? performance.now()
        let i = waiting.length
        while (i > 0 && waiting[i - 1]!.since > at) i--
        waiting.splice(i, 0, { since: at, go })
      })
    let out: { ok: true; value: T } | { ok: false; err: unknown }
    try {
      out = { ok: true, value: await fn() }
    } catch (err) {
      out = { ok: false, err }
    } finally {
      const next = waiting.shift()
      if (next) next.go()
      else held--
    }
    // The connection is free already; the caller goes on on a turn of its own (turns.ts).
    await ownTurn()
    if (!out.ok) throw out.err
    return out.value
  }
}

async function openPostgres(databaseUrl: string, opts: OpenDbOptions): Promise<OpenedDb> {
  const poolSize = opts.poolSize ?? 4
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    // Every statement on every connection is bounded; longer writes raise it with SET LOCAL.
    statement_timeout: opts.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    types,
    application_name: 'switchboard',
  })
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', (err) => opts.log?.(`database: idle connection error: ${err.message}`))
  const wrapClient = (c: pg.PoolClient | pg.Pool): ScriptRunner => ({
    query: async <R extends Record<string, unknown>>(sql: string, params?: readonly unknown[]) => {
      const r = await c.query(sql, params ? params.map(pgParam) : undefined)
      return { rows: r.rows as R[] }
    },
    exec: async (sql: string) => {
      // The simple protocol (no parameters) runs a multi-statement script.
      await c.query(sql)
    },
    // On one connection only (a transaction's): a pool would run the COPY on whichever it picks.
    ...(c instanceof pg.Pool ? {} : { copyFrom: (sql: string, data: CopyData) => copyFromStdin(c, sql, data) }),
  })
  const main = wrapClient(pool)
  let location = 'PostgreSQL server'
  try {
    const u = new URL(databaseUrl)
    location = `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`
  } catch {
    /* keep the generic label: never log a URL that may hold a password */
  }
  let ended: Promise<void> | null = null
  const close = () => (ended ??= pool.end())
  /** `fn` in one transaction on one connection of the pool; rolled back when it throws. */
  const inTransaction = async <T>(fn: (tx: ScriptRunner) => Promise<T>): Promise<T> => {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      const out = await fn(wrapClient(client))
      await client.query('COMMIT')
      return out
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {})
      throw err
    } finally {
      client.release()
    }
  }
  /** Every use of a connection by `lane`'s handle goes through `gate`; with `since`, as asked for then (Db.turn). */
  const handle = (gate: Enter, since?: number): OpenedDb => {
    const enter = <T>(fn: () => Promise<T>) => gate(fn, since)
    return {
      engine: 'postgres',
      location,
      query: (sql, params) => enter(() => main.query(sql, params)),
      transaction: (fn) => enter(() => inTransaction(fn)),
      batch: (statements) =>
        enter(() =>
          inTransaction(async (tx) => {
            const out: Array<{ rows: Record<string, unknown>[] }> = []
            for (const st of statements) out.push(await tx.query(st.sql, st.params))
            return out
          }),
        ),
      withConnection: (fn) =>
        enter(async () => {
          const client = await pool.connect()
          let broken = false
          try {
            return await fn(wrapClient(client))
          } catch (err) {
            // A connection that failed mid-use may hold session state (locks): do not reuse it.
            broken = true
            throw err
          } finally {
            client.release(broken)
          }
        }),
      close,
      lane: (l) => handles[l],
      turn: (at) => handle(gate, at),
    }
  }
  // One pool, and the background lane (sync, index builds, exports) holds at most its share of
  // it: however much of that work is running, requests find connections left. PGlite's lanes
  // order the one connection's turns for the same reason.
  const share = Math.max(1, Math.min(poolSize - 1, opts.backgroundConnections ?? Math.ceil(poolSize / 2)))
  // Requests hold at most the whole pool, and wait for it oldest request first rather than in
  // node-postgres's queue in arrival order (where a request's every statement queued afresh).
  const handles: Record<Lane, OpenedDb> = {
    interactive: handle(createGate(poolSize)),
    background: handle(createGate(share)),
  }
  return handles.interactive
}

export const isPostgresUrl = (url: string | undefined): url is string => !!url && /^postgres(?:ql)?:\/\//i.test(url)

export async function openDb(opts: OpenDbOptions): Promise<OpenedDb> {
  const db = isPostgresUrl(opts.databaseUrl)
    ? await openPostgres(opts.databaseUrl, opts)
    : await openPglite(opts.dataDir ?? '.switchboard-data', opts)
  if (opts.migrate !== false) {
    try {
      await migrate(db, { log: opts.log })
      for (const step of opts.onOpen ?? []) await step(db, opts.log)
    } catch (err) {
      await db.close().catch(() => {})
      throw err
    }
  }
  return db
}
