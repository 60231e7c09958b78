import { afterAll, beforeAll, expect, it } from 'vitest'
import { startCluster, type Cluster } from '../../scripts/pg-cluster.mjs'
import { parseIndexConfigResult } from '../index/config.ts'
import { openDb } from './open.ts'

/**
 * A server on the same machine as its PostgreSQL connects over the Unix socket (docs/operations.md):
 * `npm run bench` measured a third more concurrent searches a second than over TCP on loopback.
 */

let cluster: Cluster | null = null
beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)
afterAll(() => cluster?.stop())

it('opens PostgreSQL over its Unix socket: DATABASE_URL with ?host=<socket directory> is accepted, migrated and read', async () => {
  const url = cluster!.socketUrl
  expect(url).toMatch(/\?host=%2F/)
  expect(parseIndexConfigResult({ DATABASE_URL: url }).issues).toEqual([])
  const db = await openDb({ databaseUrl: url })
  try {
    // inet_server_addr() is NULL on a Unix-socket connection, an address over TCP.
    const r = await db.query<{ addr: string | null; n: number }>(
      'SELECT inet_server_addr()::text AS addr, (SELECT count(*)::int FROM index_numbers) AS n',
    )
    expect(r.rows[0]).toEqual({ addr: null, n: 0 })
  } finally {
    await db.close()
  }
}, 60_000)
