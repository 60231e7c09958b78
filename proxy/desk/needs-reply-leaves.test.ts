import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { classifyOptOut } from '../../contract/desk/opt-out.ts'
import { call } from '../testing/access-stack.ts'
import { statusCode } from '../index/parse.ts'
import type { Rooms } from '../rooms.ts'
import type { Running } from '../server.ts'
import { DEMO_CREDENTIALS, makeAccount, messageAt } from '../simulator/dataset.ts'
import { startOnSimulator, type SimulatedStack } from '../testing/helpers.ts'

/**
 * A needs-reply entry leaves the queue by itself when the reply is indexed: no "mark handled", no
 * read-side recompute asked for. Messages reach the index the way they do in use: the simulator
 * gains them (its /__sim/messages door appends the number's next generated messages) and a
 * catch-up sync stores them.
 */

const account = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60)
/** A small generated history (no scripted desk cases), so appended messages follow the plain rules. */
const NUMBER = account.numbers[4]!
const BASE = NUMBER.baseTotal

/** The simulator's record at `seq`; an appended message's party, direction, status and date do not depend on how many follow it. */
function at(seq: number) {
  const added = Math.max(0, seq - BASE)
  const r = messageAt(NUMBER, seq, BASE + added, 'http://sim.invalid', added)
  return {
    seq,
    party: r.phone.replace(/\D/g, ''),
    direction: r.direction,
    body: r.body,
    ms: Date.parse(`${r.GMTdate.replace(' ', 'T')}Z`),
    failed: (statusCode(r.status) ?? 0) >= 400,
  }
}

/** The first appended inbound question (not an opt-out), and the first later delivered reply to the same customer. */
function scenario() {
  let question: ReturnType<typeof at> | null = null
  for (let seq = BASE + 1; seq <= BASE + 5_000; seq++) {
    const m = at(seq)
    if (!question) {
      if (m.direction === 'inbound' && classifyOptOut(m.body).kind === 'none') question = m
    } else if (m.party === question.party && m.direction === 'outbound' && !m.failed) return { question, reply: m }
  }
  throw new Error('the simulator appends no question and reply to the same customer')
}

describe.each(['pglite', 'postgres'] as const)('a needs-reply entry after a reply is indexed, on %s', (engine) => {
  let stack: SimulatedStack | undefined
  let simUrl: string
  let running: Running
  let rooms: Rooms
  const port = () => Number(new URL(running.url).port)
  const { question, reply } = scenario()

  /** Appends `add` of the number's next messages at the simulator, then lets a catch-up sync store them. */
  const arrive = async (add: number) => {
    const r = await fetch(`${simUrl}/__sim/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ number: NUMBER.number, add }),
    })
    expect(r.ok).toBe(true)
    await rooms.index.syncer!.request({ number: NUMBER.number, tid: NUMBER.tid })
    await rooms.index.syncer!.idle()
  }
  /** The thread's state as the sync left it (read before any desk route could recompute it). */
  const thread = async () =>
    (
      await rooms.db.query<{ waiting_since: Date | null; last_inbound_ordinal: number | null }>(
        'SELECT waiting_since, last_inbound_ordinal FROM desk_threads WHERE number = $1 AND party = $2',
        [NUMBER.number, question.party],
      )
    ).rows[0]
  const queue = async (atMs: number) => {
    const r = await call(
      port(),
      'GET',
      `/api/desk/needs-reply?number=${NUMBER.number}&thresholdMinutes=15&at=${new Date(atMs).toISOString()}&limit=500`,
    )
    expect(r.status, r.text.slice(0, 300)).toBe(200)
    return (r.json() as { rows: Array<{ party: string; lastInbound: { ordinal: number } }> }).rows
  }

  beforeAll(async () => {
    stack = await startOnSimulator(engine, 'sb-desk-reply-')
    ;({ running, rooms, simUrl } = stack)
    await rooms.index.syncer!.request({ number: NUMBER.number, tid: NUMBER.tid })
    await rooms.index.syncer!.idle()
  }, 120_000)

  afterAll(async () => {
    await stack?.close()
  }, 60_000)

  it('lists the customer once their question is indexed, and drops them once the reply is', async () => {
    // The question arrives (with whatever the number exchanged before it) and is due 15 minutes later.
    await arrive(question.seq - BASE)
    expect(await thread()).toMatchObject({ last_inbound_ordinal: question.seq })
    expect((await thread())!.waiting_since).not.toBeNull()
    const waiting = (await queue(question.ms + 3_600_000)).find((r) => r.party === question.party)
    expect(waiting?.lastInbound.ordinal).toBe(question.seq)

    // The reply arrives, last of what is appended: nothing the customer sent after it is indexed.
    await arrive(reply.seq - question.seq)
    const stored = await rooms.db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_messages WHERE number = $1', [NUMBER.number])
    expect(stored.rows[0]!.n).toBe(reply.seq)
    // The sync's own recompute took the customer off; the route agrees.
    expect((await thread())!.waiting_since).toBeNull()
    expect((await queue(reply.ms + 3_600_000)).map((r) => r.party)).not.toContain(question.party)
  })
})
