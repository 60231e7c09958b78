import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { END_MS, DEMO_CREDENTIALS, makeAccount } from '../simulator/dataset.ts'
import { DESK_INDEX, DESK_PARTIES } from '../simulator/desk-cases.ts'
import { call } from '../testing/access-stack.ts'
import type { Rooms } from '../rooms.ts'
import type { Running } from '../server.ts'
import { startWithRooms } from '../testing/helpers.ts'
import { startCluster, type Cluster } from '../../scripts/pg-cluster.mjs'
import { freshPgliteDir } from '../testing/pglite-template.ts'

/**
 * When a desk read recomputes the threads a sync's batches marked: not while that number's sync
 * still holds a live lease (the sync recomputes them once when it ends; recomputing them on every
 * read made each read during a bulk load take tens of seconds), and not for reads that need no
 * thread state (the team's settings). A dead server's lease has expired, so its number's threads
 * are recomputed by the next read that needs them.
 */

const account = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60)
const DESK = account.numbers[DESK_INDEX]!
const AT = new Date(END_MS).toISOString()
const PARTY = DESK_PARTIES.wait3d

describe.each(['pglite', 'postgres'] as const)('desk reads and a running sync on %s', (engine) => {
  let dir: string
  let cluster: Cluster | null = null
  let running: Running
  let rooms: Rooms
  const port = () => Number(new URL(running.url).port)
  const waiting = async () => {
    const r = await call(port(), 'GET', `/api/desk/needs-reply?at=${AT}&number=${DESK.number}&limit=500`)
    expect(r.status, r.text.slice(0, 300)).toBe(200)
    return (r.json() as { rows: Array<{ party: string }> }).rows.map((x) => x.party)
  }
  const dirty = async () =>
    (await rooms.db.query<{ party: string }>('SELECT party FROM desk_dirty WHERE number = $1', [DESK.number])).rows.map((x) => x.party)
  /** The thread's state as a batch leaves it before the recompute: marked, its wait not yet worked out. */
  const markStale = async () => {
    await rooms.db.query('UPDATE desk_threads SET waiting_since = NULL, unanswered = 0 WHERE number = $1 AND party = $2', [
      DESK.number,
      PARTY,
    ])
    await rooms.db.query('INSERT INTO desk_dirty (number, party) VALUES ($1, $2) ON CONFLICT DO NOTHING', [DESK.number, PARTY])
  }
  const lease = (secondsAgo: number | null) =>
    rooms.db.query(
      `UPDATE index_numbers SET locked_by = $2, locked_at = CASE WHEN $2::text IS NULL THEN NULL ELSE now() - make_interval(secs => $3::double precision) END
        WHERE number = $1`,
      [DESK.number, secondsAgo === null ? null : 'another-server', secondsAgo ?? 0],
    )

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-desk-flush-'))
    if (engine === 'postgres') cluster = await startCluster()
    else await freshPgliteDir(join(dir, 'data'))
    const env = {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_REQUESTS: '0',
      ACCESS: 'local',
      SYNC_RATE: '0',
      INDEX_AUTO_SYNC: 'off',
      ...(cluster ? { DATABASE_URL: cluster.url } : { DATA_DIR: join(dir, 'data') }),
    }
    ;({ running, rooms } = await startWithRooms(env))
    await rooms.index.syncer!.request({ number: DESK.number, tid: DESK.tid })
    await rooms.index.syncer!.idle()
    // The desk's catch-up at start recomputes every marked thread: done before the tests mark one.
    await rooms.deskCaughtUp
  }, 120_000)

  afterAll(async () => {
    await running?.close()
    cluster?.stop()
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  it('a finished sync left nothing marked, and the customer waiting 3 days is queued', async () => {
    expect(await dirty()).toEqual([])
    expect(await waiting()).toContain(PARTY)
  })

  it('under a live lease a read leaves the marked thread to the sync; once the lease is gone the read recomputes it', async () => {
    await markStale()
    await lease(0)
    expect(await waiting()).not.toContain(PARTY)
    expect(await dirty()).toEqual([PARTY])
    // The team's settings need no thread state: even with no lease they recompute nothing.
    await lease(null)
    expect((await call(port(), 'GET', '/api/desk/settings')).status).toBe(200)
    expect(await dirty()).toEqual([PARTY])
    expect(await waiting()).toContain(PARTY)
    expect(await dirty()).toEqual([])
  })

  it("a dead server's lease (no heartbeat for 10 minutes) does not hold the recompute back", async () => {
    await markStale()
    await lease(600)
    expect(await waiting()).toContain(PARTY)
    expect(await dirty()).toEqual([])
    await lease(null)
  })
})
