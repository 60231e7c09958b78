/**
 * One server's sync of one number in a process of its own, for the tests that kill it with
 * SIGKILL mid-walk (sync.test.ts):
 *   node --import tsx proxy/testing/sync-child.ts DATABASE_URL|DATA_DIR SIMULATOR_URL NUMBER TID
 * A postgres:// URL syncs into that server, anything else into the PGlite directory. The
 * messages it has stored so far are printed on stdout, one count per line: a PGlite directory
 * has one process at a time, so the test cannot watch the child's progress in the database.
 */
import { isPostgresUrl, openDb } from '../db/open.ts'
import { baselineWasmOnly } from '../db/pglite-spawn.ts'
import { background } from '../db/types.ts'
import { createForwarder } from '../forward.ts'
import { DEMO_CREDENTIALS } from '../simulator/dataset.ts'
import { createSyncer } from '../index/sync.ts'
import { deskIndexHooks } from '../desk/index-hooks.ts'

const [target, simUrl, number, tid] = process.argv.slice(2)
if (!target || !simUrl || !number || !tid) throw new Error('usage: sync-child.ts DATABASE_URL|DATA_DIR SIMULATOR_URL NUMBER TID')
// A process that lives a second or two, killed mid-walk: PGlite's code is not worth optimising here.
if (!isPostgresUrl(target)) baselineWasmOnly()
const db = isPostgresUrl(target) ? await openDb({ databaseUrl: target }) : await openDb({ dataDir: target })
const fw = createForwarder({ baseUrl: simUrl, ...DEMO_CREDENTIALS }, 10_000)
// Slow and in small batches (each with its checkpoint), so the test can kill it between any two.
const s = createSyncer({
  hooks: deskIndexHooks,
  db: background(db),
  forwarder: fw,
  pageCap: 100,
  concurrency: 1,
  rate: 25,
  bulkMin: 1000,
  storeRows: 200,
})
let told = -1
const tell = setInterval(() => {
  if (s.progress.messages !== told) process.stdout.write(`${(told = s.progress.messages)}\n`)
}, 5)
await s.request({ number, tid })
await s.idle()
clearInterval(tell)
await s.close()
await fw.close()
await db.close()
