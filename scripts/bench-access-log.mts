/**
 * The access log's write cost per read: the time a read waits for its own entry to commit
 * (recordRead through the group-commit writer), one read at a time and 20 at once, on PGlite
 * and on a throwaway PostgreSQL. Prints medians; no assertions.
 *   PG_BIN=/usr/lib/postgresql/15/bin npx tsx scripts/bench-access-log.mts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDb } from '../proxy/db/open.ts'
import { createLogWriter } from '../proxy/access/log-writer.ts'
import { startCluster } from './pg-cluster.mjs'

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const entry = (i: number) => ({
  at: new Date(),
  actor: 'bench',
  via: 'password',
  address: '127.0.0.1',
  action: 'thread.view',
  details: { number: '18323232323', party: `1555000${String(i % 10_000).padStart(4, '0')}` },
})

async function measure(name: string, db: Awaited<ReturnType<typeof openDb>>) {
  const w = createLogWriter(db)
  for (let i = 0; i < 20; i++) await w.write(entry(i))
  const one: number[] = []
  for (let i = 0; i < 300; i++) {
    const t = performance.now()
    await w.write(entry(i))
    one.push(performance.now() - t)
  }
  const burst: number[] = []
  for (let r = 0; r < 30; r++) {
    const t = performance.now()
    await Promise.all(Array.from({ length: 20 }, (_, i) => w.write(entry(i))))
    burst.push((performance.now() - t) / 20)
  }
  console.log(
    `${name}: one read at a time ${median(one).toFixed(2)} ms per entry (median of 300); 20 at once ${median(burst).toFixed(2)} ms per entry (median of 30 bursts)`,
  )
}

const dir = mkdtempSync(join(tmpdir(), 'sb-bench-log-'))
const lite = await openDb({ dataDir: join(dir, 'data') })
await measure('PGlite', lite)
await lite.close()
rmSync(dir, { recursive: true, force: true })
const cluster = await startCluster()
try {
  const pgDb = await openDb({ databaseUrl: cluster.url })
  await measure('PostgreSQL 15', pgDb)
  await pgDb.close()
} finally {
  cluster.stop()
}
