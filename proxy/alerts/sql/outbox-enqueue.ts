import { randomUUID } from 'node:crypto'
import type { Queryable } from '../../db/types.ts'
import type { Notice } from '../types.ts'

/**
 * A notice for one channel into the outbox, inside the caller's transaction: the decision (an
 * alert firing, reminded, resolved) and the notice commit together or not at all. The key is the
 * idempotency key every attempt carries (`msg_` and a UUID, as Standard Webhooks ids look).
 * `claimedBy` writes it already claimed, for a sender that sends it at once (a test notice).
 */
export async function enqueueNotice(
  tx: Queryable,
  n: { channel: string; kind: 'firing' | 'reminder' | 'resolved' | 'test'; notice: Notice; runAt: Date; now: Date; claimedBy?: string },
): Promise<string> {
  const key = `msg_${randomUUID().replace(/-/g, '')}`
  await tx.query(
    `INSERT INTO alert_outbox (key, channel, kind, payload, run_at, created_at, locked_by, locked_at, attempts)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, CASE WHEN $7::text IS NULL THEN NULL ELSE $6::timestamptz END, CASE WHEN $7::text IS NULL THEN 0 ELSE 1 END)`,
    [key, n.channel, n.kind, JSON.stringify(n.notice), n.runAt, n.now, n.claimedBy ?? null],
  )
  return key
}
