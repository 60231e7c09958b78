import { describe, expect, it } from 'vitest'
import { partyKey } from '../../contract/desk/messages.ts'
import { needsReplyQueue } from '../../contract/desk/needs-reply.ts'
import { optOutLedger } from '../../contract/desk/opt-out-ledger.ts'
import { ENGINES, useEngines } from '../db/test-engines.ts'
import { statusCode } from '../index/parse.ts'
import { DEMO_CREDENTIALS, END_MS, makeAccount, messageAt } from '../simulator/dataset.ts'
import { DESK_INDEX } from '../simulator/desk-cases.ts'
import { flushDesk, refreshDesk } from './refresh.ts'

/**
 * refreshDesk's SQL on both engines (PGlite and a real PostgreSQL): the desk number's messages,
 * stored newest batch first as a full walk stores them, must leave the thread states and the
 * sends after opt-out that contract/desk computes over the same messages.
 */

const engines = useEngines()
const DESK = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60).numbers[DESK_INDEX]!

const messages = Array.from({ length: DESK.baseTotal }, (_, i) => {
  const r = messageAt(DESK, i + 1, DESK.baseTotal, 'http://sim.invalid', 0)
  return {
    number: DESK.number,
    party: r.phone.replace(/\D/g, ''),
    direction: r.direction,
    date: `${r.GMTdate.replace(' ', 'T')}Z`,
    ordinal: i + 1,
    body: r.body,
    statusCode: statusCode(r.status),
  }
})

describe.each(ENGINES)('refreshDesk on %s', (engine) => {
  it('keeps the desk tables equal to the pure rules, batch by batch', async () => {
    const db = await engines.open(engine)
    const BATCH = 9
    for (let hi = messages.length; hi > 0; hi -= BATCH) {
      const batch = messages.slice(Math.max(0, hi - BATCH), hi)
      await db.query(
        `INSERT INTO index_messages (number, ordinal, fetched_tid, date, party_digits, direction, body, status_code)
         SELECT $1, u.o, 'T', u.d, u.p, u.dir, u.b, u.s FROM unnest($2::int[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::int[]) AS u(o, d, p, dir, b, s)`,
        [
          DESK.number,
          batch.map((m) => m.ordinal),
          batch.map((m) => m.date),
          batch.map((m) => m.party),
          batch.map((m) => m.direction),
          batch.map((m) => m.body),
          batch.map((m) => m.statusCode),
        ],
      )
      await refreshDesk(db, DESK.number, undefined, { min: batch[0]!.ordinal, max: batch[batch.length - 1]!.ordinal })
    }
    await flushDesk(db)

    const queue = needsReplyQueue(messages, 15 * 60_000, END_MS)
    const waiting = await db.query<{ party: string; since: Date; n: number }>(
      `SELECT party, waiting_since AS since, unanswered AS n FROM desk_threads
        WHERE waiting_since <= $1 ORDER BY waiting_since, party`,
      [new Date(END_MS - 15 * 60_000)],
    )
    expect(waiting.rows.map((w) => [w.party, new Date(w.since).toISOString(), w.n])).toEqual(
      queue.map((q) => [q.party, q.since, q.unanswered]),
    )

    const ledger = optOutLedger(messages)
    const threads = await db.query<{ party: string; opted_out: boolean; sent_after: number }>(
      `SELECT party, opted_out, sent_after FROM desk_threads WHERE opt_history <> '[]' ORDER BY party`,
    )
    expect(threads.rows.map((t) => [t.party, t.opted_out, t.sent_after])).toEqual(
      ledger.map((e) => [e.party, e.optedOut, e.sentAfter.length]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    )
    const sent = await db.query<{ ordinal: number; after_ms: string; failed: boolean }>(
      'SELECT ordinal, after_ms, failed FROM desk_sent_after ORDER BY ordinal',
    )
    expect(sent.rows.map((s) => [s.ordinal, Number(s.after_ms), s.failed])).toEqual(
      ledger
        .flatMap((e) => e.sentAfter.map((s) => [(s.message as (typeof messages)[number]).ordinal, s.afterMs, s.failed]))
        .sort((a, b) => Number(a[0]) - Number(b[0])),
    )
    expect(partyKey(DESK.number)).toBe(DESK.number)
  }, 120_000)
})
