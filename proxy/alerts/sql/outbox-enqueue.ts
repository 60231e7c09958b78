import { randomUUID } from 'node:crypto'
import type { Queryable } from '../../db/types.ts'
import type { Channel, Notice, NoticeKind } from '../types.ts'
import type { Claimed } from './outbox-claim.ts'

/**
 * A notice for one channel into the outbox, inside the caller's transaction: the decision (an
 * alert firing, reminded, resolved) and the notice commit together or not at all. The key is the
 * idempotency key every attempt carries (`msg_` and a UUID, as Standard Webhooks ids look).
 * `claimedBy` writes it already claimed, for a sender that sends it at once (a test notice).
 */
export async function enqueueNotice(
  tx: Queryable,
  n: { channel: string; kind: NoticeKind; notice: Notice; runAt: Date; now: Date; claimedBy?: string },
): Promise<string> {
  const key = `msg_${randomUUID().replace(/-/g, '')}`
  await tx.query(
    `INSERT INTO alert_outbox (key, channel, kind, payload, run_at, created_at, locked_by, locked_at, attempts)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, CASE WHEN $7::text IS NULL THEN NULL ELSE $6::timestamptz END, CASE WHEN $7::text IS NULL THEN 0 ELSE 1 END)`,
    [key, n.channel, n.kind, JSON.stringify(n.notice), n.runAt, n.now, n.claimedBy ?? null],
  )
  return key
}

/**
 * A notice for one channel written already claimed by `owner` (so the sender's timer does not
 * take it first), for the caller to send at once: a test, a witness notice an admin asked for.
 */
export async function enqueueClaimed(
  db: Queryable,
  owner: string,
  n: { channel: Channel; kind: NoticeKind; notice: Notice; at: Date },
): Promise<Claimed> {
  const key = await enqueueNotice(db, { channel: n.channel.id, kind: n.kind, notice: n.notice, runAt: n.at, now: n.at, claimedBy: owner })
  const row = (
    await db.query<{ id: string; created_at: Date }>(`SELECT id::text AS id, created_at FROM alert_outbox WHERE key = $1`, [key])
  ).rows[0]!
  return { id: row.id, key, channel: n.channel.id, kind: n.kind, notice: n.notice, attempts: 1, createdAt: new Date(row.created_at) }
}
