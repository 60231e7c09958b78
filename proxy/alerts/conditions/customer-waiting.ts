import type { Queryable } from '../../db/types.ts'
import type { Condition } from '../types.ts'

/**
 * Customers waiting longer than the threshold, per number, from the desk's thread state
 * (desk_threads.waiting_since: the first unanswered inbound message after the last delivered
 * reply and any "mark handled", opt-outs left out; migration 200). The desk recomputes marked
 * threads before its own reads; the few seconds a batch may wait here are below any threshold.
 */
export async function customersWaiting(db: Queryable, p: { minutes: number; minThreads: number }, now: Date): Promise<Condition[]> {
  const r = await db.query<{ number: string; n: number; oldest: Date; parties: string[] }>(
    `SELECT number, count(*)::int AS n, min(waiting_since) AS oldest, (array_agg(party ORDER BY waiting_since))[1:5] AS parties
       FROM desk_threads
      WHERE waiting_since IS NOT NULL AND waiting_since < $1
      GROUP BY number HAVING count(*) >= $2
      ORDER BY number`,
    [new Date(now.getTime() - p.minutes * 60_000), p.minThreads],
  )
  return r.rows.map((x) => {
    const longest = longestWords(now, x.oldest)
    return {
      rule: 'customer-waiting',
      subject: x.number,
      number: x.number,
      title: 'Customer waiting',
      detail: `${x.n} customer${x.n === 1 ? '' : 's'} waiting longer than ${p.minutes} min for a reply (longest ${longest}).`,
      count: x.n,
      link: `/desk/needs-reply?${new URLSearchParams({ number: x.number })}`,
      phones: x.parties,
    }
  })
}

/** "3 h 20 min", or "95 min" under two hours: how long the longest has waited. */
function longestWords(now: Date, oldest: Date): string {
  const waited = Math.round((now.getTime() - new Date(oldest).getTime()) / 60_000)
  return waited >= 120 ? `${Math.floor(waited / 60)} h ${waited % 60} min` : `${waited} min`
}

/**
 * Customers waiting longer than the threshold on every number together: one condition about the
 * account ("all") once at least minThreads wait, so a backlog spread thin over many numbers, none
 * of which reaches a per-number threshold, is still seen. Its link is the whole needs-reply queue.
 */
export async function customersWaitingAll(db: Queryable, p: { minutes: number; minThreads: number }, now: Date): Promise<Condition[]> {
  // No GROUP BY: one row over every thread, or none when HAVING drops it. A number's further
  // lines (contract/lines.ts: `<number>~2`) are threads of their own, but not numbers of their own.
  const r = await db.query<{ n: number; numbers: number; oldest: Date; parties: string[] }>(
    `SELECT count(*)::int AS n, count(DISTINCT split_part(number, '~', 1))::int AS numbers, min(waiting_since) AS oldest,
            (array_agg(party ORDER BY waiting_since))[1:5] AS parties
       FROM desk_threads
      WHERE waiting_since IS NOT NULL AND waiting_since < $1
     HAVING count(*) >= $2`,
    [new Date(now.getTime() - p.minutes * 60_000), p.minThreads],
  )
  return r.rows.map((x) => ({
    rule: 'customer-waiting-all',
    subject: 'all',
    number: null,
    title: 'Customers waiting (all numbers)',
    detail: `${x.n} customer${x.n === 1 ? '' : 's'} waiting longer than ${p.minutes} min for a reply, on ${x.numbers} number${x.numbers === 1 ? '' : 's'} (longest ${longestWords(now, x.oldest)}).`,
    count: x.n,
    link: '/desk/needs-reply',
    phones: x.parties,
  }))
}
