import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { segmentInfo } from '../../contract/desk/segments.ts'
import { call } from '../testing/access-stack.ts'
import type { Rooms } from '../rooms.ts'
import type { Running } from '../server.ts'
import { DEMO_CREDENTIALS, makeAccount, messageAt, type NumberProfile } from '../simulator/dataset.ts'
import { DESK_INDEX } from '../simulator/desk-cases.ts'
import { startOnSimulator, type SimulatedStack } from '../testing/helpers.ts'
import { refreshAllDesk } from './refresh.ts'

/**
 * desk_segment_days, the segments page's per-day counts that the sync's store step keeps with each
 * batch, on both engines: after a full sync, after a catch-up of messages that arrived since, and
 * after a catch-up of rows stored while the desk was off, it must equal a GROUP BY of every stored
 * message from scratch (and the simulator's own messages counted with contract/desk's rules), and
 * the segments route must answer as that GROUP BY did when the route ran it on each read.
 */

const account = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60)
/** A generated history of 2,345 messages, and the number with the scripted desk cases (UCS-2 among them). */
const NUMBERS = [account.numbers[0]!, account.numbers[DESK_INDEX]!]
const ADDED = 150

/** Per number and UTC day, from scratch: what the route grouped on every read before the roll-up. */
const FROM_SCRATCH = `
SELECT number, to_char(date AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS messages, sum(segments)::int AS segments,
       count(*) FILTER (WHERE encoding = 'UCS-2')::int AS ucs2, sum(extra_segments)::int AS extra
  FROM desk_messages GROUP BY 1, 2 ORDER BY 1, 2`
const ROLL_UP = `SELECT number, to_char(day, 'YYYY-MM-DD') AS day, messages, segments, ucs2, extra FROM desk_segment_days ORDER BY 1, 2`

/** The simulator's messages of a number (with `added` appended), per UTC day with contract/desk's segment rules. */
function truth(p: NumberProfile, added: number) {
  const total = p.baseTotal + added
  const days = new Map<string, { number: string; day: string; messages: number; segments: number; ucs2: number }>()
  for (let seq = 1; seq <= total; seq++) {
    const r = messageAt(p, seq, total, 'http://sim.invalid', added)
    const day = r.GMTdate.slice(0, 10)
    const info = segmentInfo(r.body)
    let d = days.get(day)
    if (!d) days.set(day, (d = { number: p.number, day, messages: 0, segments: 0, ucs2: 0 }))
    d.messages++
    d.segments += info.segments
    if (info.encoding === 'UCS-2') d.ucs2++
  }
  return [...days.values()].sort((a, b) => (a.day < b.day ? -1 : 1))
}

describe.each(['pglite', 'postgres'] as const)('the segments roll-up on %s', (engine) => {
  let stack: SimulatedStack | undefined
  let simUrl: string
  let running: Running
  let rooms: Rooms
  const port = () => Number(new URL(running.url).port)
  const rows = async (sql: string) => (await rooms.db.query<Record<string, unknown>>(sql)).rows
  const sync = async () => {
    for (const p of NUMBERS) await rooms.index.syncer!.request({ number: p.number, tid: p.tid })
    await rooms.index.syncer!.idle()
  }
  const segments = async (q: string) => {
    const r = await call(port(), 'GET', `/api/desk/segments?${q}`)
    expect(r.status, r.text.slice(0, 300)).toBe(200)
    return r.json() as { days: Array<Record<string, unknown>>; costliest: unknown[] }
  }

  /** The roll-up equals the GROUP BY from scratch and the simulator's messages; the route answers the GROUP BY's days. */
  const expectExact = async (added: number) => {
    const scratch = await rows(FROM_SCRATCH)
    expect(await rows(ROLL_UP)).toEqual(scratch)
    expect(scratch.map(({ extra: _, ...d }) => d)).toEqual(
      [...truth(NUMBERS[0]!, added), ...truth(NUMBERS[1]!, 0)].sort((a, b) =>
        a.number < b.number ? -1 : a.number > b.number ? 1 : a.day < b.day ? -1 : 1,
      ),
    )
    for (const p of NUMBERS) {
      const mine = scratch.filter((d) => d.number === p.number).map(({ number: _, ...d }) => d)
      expect(mine.length).toBeGreaterThan(2)
      expect((await segments(`number=${p.number}`)).days).toEqual(mine)
      // Whole days read the roll-up; a bound inside a day counts that stretch from the messages.
      const first = String(mine[1]!.day)
      const last = String(mine[mine.length - 2]!.day)
      expect((await segments(`number=${p.number}&from=${first}&to=${last}`)).days).toEqual(mine.slice(1, -1))
      const inside = await segments(`number=${p.number}&from=${encodeURIComponent(`${first}T00:00:00Z`)}&to=${last}`)
      expect(inside.days).toEqual(mine.slice(1, -1))
    }
  }

  beforeAll(async () => {
    stack = await startOnSimulator(engine, 'sb-desk-segments-')
    ;({ running, rooms, simUrl } = stack)
    await sync()
  }, 180_000)

  afterAll(async () => {
    await stack?.close()
  }, 60_000)

  it('equals a GROUP BY from scratch after a full sync', async () => {
    await expectExact(0)
  })

  it('fills itself for the rows already stored when the migration runs', async () => {
    const sql = readFileSync(fileURLToPath(new URL('../db/migrations/385-desk-segment-days.sql', import.meta.url)), 'utf8')
    const fill = sql.slice(sql.indexOf('INSERT INTO desk_segment_days'))
    const kept = await rows(ROLL_UP)
    await rooms.db.query('TRUNCATE desk_segment_days')
    await rooms.db.query(fill)
    expect(await rows(ROLL_UP)).toEqual(kept)
  })

  it('equals a GROUP BY from scratch after a catch-up of messages that arrived since', async () => {
    const r = await fetch(`${simUrl}/__sim/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ number: NUMBERS[0]!.number, add: ADDED }),
    })
    expect(r.ok).toBe(true)
    await sync()
    const n = await rooms.db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_messages WHERE number = $1', [NUMBERS[0]!.number])
    expect(n.rows[0]!.n).toBe(NUMBERS[0]!.baseTotal + ADDED)
    await expectExact(ADDED)
  })

  it('equals a GROUP BY from scratch after a catch-up of rows stored while the desk was off', async () => {
    await rooms.db.query(
      `UPDATE index_messages SET desk_inbound = NULL, desk_opt = NULL, desk_segments = NULL, desk_forcing = NULL,
         desk_extra = NULL, desk_local_day = NULL, desk_quiet = NULL`,
    )
    await rooms.db.query('UPDATE index_numbers SET desk_behind = true')
    await rooms.db.query('TRUNCATE desk_quiet_days, desk_segment_days, desk_threads, desk_opt_periods, desk_dirty')
    expect(await rows(ROLL_UP)).toEqual([])
    expect((await refreshAllDesk(rooms.db)).messages).toBe(NUMBERS[0]!.baseTotal + ADDED + NUMBERS[1]!.baseTotal)
    await expectExact(ADDED)
  })

  it('goes with the number when it is forgotten', async () => {
    const r = await call(port(), 'POST', '/api/index/forget', { json: { number: NUMBERS[1]!.number } })
    expect(r.status, r.text).toBe(200)
    expect((await rows(ROLL_UP)).filter((d) => d.number === NUMBERS[1]!.number)).toEqual([])
    expect((await segments(`number=${NUMBERS[1]!.number}`)).days).toEqual([])
  })
})
