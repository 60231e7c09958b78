import { spawn } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { openDb, type OpenedDb } from '../db/open.ts'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { KILL_STEP_MS, KILL_T0, killEntries, killWebhook } from '../testing/kill-entries.ts'
import { recordListing } from './record-listing.ts'

/**
 * kill -9 mid-watch, on both engines: a process of its own (watch-child.ts) stores listing after
 * listing, each changing every number's webhook, and is killed with SIGKILL just after a commit,
 * inside the next listing's transaction. The history it leaves is whole: every listing has all
 * its changes with the window between it and the one before, the state is the last listing's,
 * and the next start continues from there (the same listing again is no change; the other is
 * every number's change, windowed from the last listing the killed process stored).
 */

const engines = useEngines()
const NUMBERS = 3000
const PGLITE_KILL_AT = 0.8
const reopened: OpenedDb[] = []
afterAll(async () => {
  for (const db of reopened) await db.close().catch(() => {})
})

describe.each(ENGINES)('the watch killed with SIGKILL mid-listing on %s', { tags: ['long'] }, (engine) => {
  it('leaves no half-written listing, and the next start continues the history', async () => {
    let db = await engines.open(engine)
    let target: string
    if (engine === 'postgres') {
      const where = await db.query<{ port: string; name: string }>('SELECT current_setting($1) AS port, current_database() AS name', [
        'port',
      ])
      target = `postgres://postgres@127.0.0.1:${where.rows[0]!.port}/${where.rows[0]!.name}`
    } else {
      // The child needs the directory to itself.
      target = db.location
      await db.close()
    }
    const child = spawn(process.execPath, ['--import', 'tsx', 'proxy/testing/watch-child.ts', target, String(NUMBERS)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let err = ''
    let stored = 0
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    // When each listing was said stored: the time one takes, to kill the PGlite child inside one.
    const saidAt: number[] = []
    child.stdout.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n'))
        if (/^\d+$/.test(line)) {
          stored = Number(line)
          saidAt[stored] = performance.now()
        }
    })
    try {
      const deadline = Date.now() + 60_000
      while (stored < 3) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the child never stored 3 listings: ${err}`)
        await new Promise((ok) => setTimeout(ok, 2))
      }
      if (engine === 'postgres') {
        // Killed the moment another connection sees a listing the child has not yet said it stored:
        // a listing written outside one transaction would be cut between its row and its changes.
        for (;;) {
          const seen = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM watch_listings`)
          if (seen.rows[0]!.n > stored || Date.now() > deadline) break
        }
      } else {
        // One process per PGlite directory, so the child cannot be watched from here: killed most of
        // the way into the listing after the third (as long as the third took), its writes under way.
        const took = saidAt[3]! - saidAt[2]!
        await new Promise((ok) => setTimeout(ok, took * PGLITE_KILL_AT))
      }
    } finally {
      const exited = child.exitCode !== null || child.signalCode !== null ? null : new Promise((ok) => child.once('exit', ok))
      child.kill('SIGKILL')
      await exited
    }
    expect(child.signalCode).toBe('SIGKILL')
    if (engine === 'pglite') {
      // The dead process's lock file names a dead pid: taken over by the next open.
      db = await openDb({ dataDir: target })
      reopened.push(db)
    }

    const listings = (
      await db.query<{ id: string; at: Date; ok: boolean; baseline: boolean; prev_at: Date | null; changes: number; written: number }>(
        `SELECT l.id::text AS id, l.at, l.ok, l.baseline, l.prev_at, l.changes,
                (SELECT count(*)::int FROM watch_changes c WHERE c.listing_id = l.id AND c.window_start = l.prev_at AND c.window_end = l.at) AS written
           FROM watch_listings l ORDER BY l.at, l.id`,
      )
    ).rows
    // What it said it stored is there; at most the one it committed and was killed before saying.
    expect(listings.length).toBeGreaterThanOrEqual(stored)
    expect(listings.length).toBeLessThanOrEqual(stored + 1)
    listings.forEach((l, i) => {
      expect(new Date(l.at).getTime()).toBe(KILL_T0 + i * KILL_STEP_MS)
      expect(l.ok).toBe(true)
      expect(l.baseline).toBe(i === 0)
      expect(l.changes).toBe(i === 0 ? 0 : NUMBERS)
      expect(l.written).toBe(l.changes)
      if (i > 0) expect(new Date(l.prev_at!).getTime()).toBe(new Date(listings[i - 1]!.at).getTime())
    })
    const orphans = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM watch_changes c WHERE NOT EXISTS (SELECT 1 FROM watch_listings l WHERE l.id = c.listing_id)`,
    )
    expect(orphans.rows[0]!.n).toBe(0)
    const n = listings.length
    const state = await db.query<{ webhook: string; k: number }>(`SELECT webhook, count(*)::int AS k FROM watch_state GROUP BY webhook`)
    expect(state.rows).toEqual([{ webhook: killWebhook(n - 1), k: NUMBERS }])

    // The next start: the account as the last stored listing had it is no change; the other address is every number's.
    const same = await recordListing(db, killEntries(NUMBERS, n - 1), new Date(KILL_T0 + n * KILL_STEP_MS))
    expect(same).toMatchObject({ baseline: false, changes: [] })
    expect(same.prevAt?.getTime()).toBe(KILL_T0 + (n - 1) * KILL_STEP_MS)
    const next = await recordListing(db, killEntries(NUMBERS, n), new Date(KILL_T0 + (n + 1) * KILL_STEP_MS))
    expect(next.changes).toHaveLength(NUMBERS)
    expect(next.changes[0]).toMatchObject({ kind: 'webhook', from: killWebhook(n - 1), to: killWebhook(n) })
    expect(next.prevAt?.getTime()).toBe(KILL_T0 + n * KILL_STEP_MS)
  }, 120_000)
})
