/**
 * One server's sync of one number in a process of its own, for the test that kills it with
 * SIGKILL mid-walk (sync.test.ts):
 *   node --import tsx proxy/index/sync-child.ts DATABASE_URL SIMULATOR_URL NUMBER TID
 */
import { openDb } from '../db/open.ts'
import { createForwarder } from '../forward.ts'
import { DEMO_CREDENTIALS } from '../simulator/dataset.ts'
import { createSyncer } from './sync.ts'

const [databaseUrl, simUrl, number, tid] = process.argv.slice(2)
if (!databaseUrl || !simUrl || !number || !tid) throw new Error('usage: sync-child.ts DATABASE_URL SIMULATOR_URL NUMBER TID')
const db = await openDb({ databaseUrl })
const fw = createForwarder({ baseUrl: simUrl, ...DEMO_CREDENTIALS }, 10_000)
// Slow and in small batches (each with its checkpoint), so the test can kill it between any two.
const s = createSyncer({ db, forwarder: fw, pageCap: 100, concurrency: 1, rate: 25, bulkMin: 1000, storeRows: 200 })
await s.request({ number, tid })
await s.idle()
await s.close()
await fw.close()
await db.close()
