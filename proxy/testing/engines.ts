import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'
import { startCluster, type Cluster } from '../../scripts/pg-cluster.mjs'
import { openDb, type OpenDbOptions, type OpenedDb } from '../db/open.ts'
import { freshPgliteDir } from './pglite-template.ts'

/**
 * Both engines for a test file: PGlite in a temporary directory (a copy of a migrated template:
 * pglite-template.ts), and a real PostgreSQL server
 * (a throwaway cluster started once per test file in beforeAll, ~3 s, stopped in afterAll).
 * A file-level cluster rather than a vitest globalSetup keeps vitest.config.ts untouched and each
 * file self-contained; keep the files that use it few. Missing PostgreSQL binaries fail the file
 * with the command to install them: an engine is never skipped silently.
 *
 *   const engines = useEngines()
 *   describe.each(ENGINES)('%s', (engine) => { … await engines.open(engine) … })
 */

export const ENGINES = ['pglite', 'postgres'] as const
export type Engine = (typeof ENGINES)[number]

export type EngineOptions = Pick<OpenDbOptions, 'statementTimeoutMs' | 'poolSize'>

export interface EngineHandle {
  /** A fresh, migrated database on that engine (`options` as openDb takes them: bounds, pool size). */
  open: (engine: Engine, options?: EngineOptions) => Promise<OpenedDb>
  /** Another connection to a database opened by `open` (a second server on one PostgreSQL). */
  reopen: (db: OpenedDb) => Promise<OpenedDb>
}

export function useEngines(): EngineHandle {
  let cluster: Cluster | null = null
  const dbs: OpenedDb[] = []
  const dirs: string[] = []
  const urls = new WeakMap<OpenedDb, string>()
  let counter = 0

  beforeAll(async () => {
    cluster = await startCluster()
  }, 60_000)

  afterAll(async () => {
    for (const db of dbs.reverse()) await db.close().catch(() => {})
    cluster?.stop()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }, 60_000)

  return {
    open: async (engine, options = {}) => {
      let db: OpenedDb
      if (engine === 'pglite') {
        const dir = mkdtempSync(join(tmpdir(), 'switchboard-pglite-'))
        dirs.push(dir)
        await freshPgliteDir(join(dir, 'data'))
        db = await openDb({ ...options, dataDir: join(dir, 'data') })
      } else {
        if (!cluster) throw new Error('The PostgreSQL cluster did not start (see beforeAll).')
        const name = `t${process.pid}_${++counter}`
        const admin = new pg.Client({ connectionString: cluster.url })
        await admin.connect()
        try {
          await admin.query(`CREATE DATABASE ${name}`)
        } finally {
          await admin.end()
        }
        const url = cluster.url.replace(/\/postgres$/, `/${name}`)
        db = await openDb({ ...options, databaseUrl: url })
        urls.set(db, url)
      }
      dbs.push(db)
      return db
    },
    reopen: async (db) => {
      const url = urls.get(db)
      if (!url) throw new Error('reopen is for PostgreSQL databases opened by this helper')
      const again = await openDb({ databaseUrl: url })
      dbs.push(again)
      return again
    },
  }
}
