/**
 * The watch's listing history written by a process of its own, for the test that kills it with
 * SIGKILL mid-write (history-kill.engines.test.ts):
 *   node --import tsx proxy/testing/watch-child.ts DATABASE_URL|DATA_DIR NUMBERS
 * It stores listing after listing through recordListing (the path every listing takes), NUMBERS
 * numbers each, every webhook flipped between two addresses from one listing to the next, so each
 * listing after the baseline is a large transaction (NUMBERS changes and as many state rows). After
 * each commit it prints the count stored so far: a PGlite directory has one process at a time.
 */
import { isPostgresUrl, openDb } from '../db/open.ts'
import { baselineWasmOnly } from '../db/pglite-spawn.ts'
import { recordListing } from '../watch/record-listing.ts'
import { killEntries, KILL_T0, KILL_STEP_MS } from './kill-entries.ts'

const [target, count] = process.argv.slice(2)
if (!target || !count) throw new Error('usage: watch-child.ts DATABASE_URL|DATA_DIR NUMBERS')
if (!isPostgresUrl(target)) baselineWasmOnly()
const db = isPostgresUrl(target) ? await openDb({ databaseUrl: target }) : await openDb({ dataDir: target })
// Killed somewhere in here; the bound only stops a child the test forgot.
for (let i = 0; i < 500; i++) {
  await recordListing(db, killEntries(Number(count), i), new Date(KILL_T0 + i * KILL_STEP_MS))
  process.stdout.write(`${i + 1}\n`)
}
await db.close()
