import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LOCK_FILE } from '../db/lock.ts'
import { readMigrations } from '../db/migrate.ts'
import { openDb } from '../db/open.ts'

/**
 * For tests only: a fresh, migrated PGlite data directory made by copying one that was made the
 * ordinary way (openDb on an empty directory: initdb, then every migration) once per set of
 * migrations and PGlite version, as PostgreSQL's CREATE DATABASE copies template1. PGlite's
 * initdb takes 4–10 s of CPU on this 2-core machine and a copy about 1 s; the suites open a fresh
 * database about a hundred times. What a test then opens is the same directory openDb would
 * have left: the same files, the same catalog, no rows (nothing synced, no user, no log entry).
 * A test about the first start itself (initdb, the directory's permissions) opens an empty
 * directory instead.
 *
 * The template lives in node_modules/.cache. vitest makes it once before its workers start
 * (proxy/db/pglite-template.setup.ts): in a fresh clone its three workers otherwise each made it
 * at once, 30 CPU-s instead of 10. Two processes that both miss build it each under a private
 * name; the first rename wins.
 */

const root = fileURLToPath(new URL('../../', import.meta.url))

function templateKey(): string {
  const h = createHash('sha256')
  h.update(readFileSync(join(root, 'node_modules', '@electric-sql', 'pglite', 'package.json')))
  for (const m of readMigrations()) h.update(`${m.name}\0${m.sql}\0`)
  return h.digest('hex').slice(0, 16)
}

let made: Promise<string> | null = null

/** The template's directory, made first if it is missing (vitest's globalSetup calls this once, before its workers start). */
export function template(): Promise<string> {
  made ??= (async () => {
    const dir = join(root, 'node_modules', '.cache', 'switchboard-pglite-template', templateKey())
    if (existsSync(join(dir, 'PG_VERSION'))) return dir
    mkdirSync(dirname(dir), { recursive: true, mode: 0o700 })
    const mine = `${dir}.${process.pid}.tmp`
    rmSync(mine, { recursive: true, force: true })
    const db = await openDb({ dataDir: mine })
    await db.close()
    rmSync(join(mine, LOCK_FILE), { force: true })
    try {
      renameSync(mine, dir)
    } catch (err) {
      // Another process renamed its copy first: use that one.
      rmSync(mine, { recursive: true, force: true })
      if (!existsSync(join(dir, 'PG_VERSION'))) throw err
    }
    return dir
  })()
  made.catch(() => (made = null))
  return made
}

/** `dataDir` (which must not exist yet) becomes a fresh, migrated PGlite data directory. */
export async function freshPgliteDir(dataDir: string): Promise<void> {
  if (existsSync(dataDir)) throw new Error(`${dataDir} exists: a fresh data directory is made where there is none`)
  cpSync(await template(), dataDir, { recursive: true })
}
