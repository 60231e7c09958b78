import type { Db } from '../db/types.ts'
import { releaseAt } from './quiet-hours.ts'
import type { Claimed } from './sql/outbox-claim.ts'
import { enqueueNotice } from './sql/outbox-enqueue.ts'
import { claimWitnessDay, lastDailyWitness } from './sql/witness-day.ts'
import type { Channel, Delivery, LogHead, Notice, NoticeKind } from './types.ts'

/**
 * Witnesses of the access log. The server signs the log's head with LOG_SIGNING_KEY_FILE
 * (proxy/access/signed-heads.ts) and keeps the heads beside the key; someone who can reach that
 * machine's disk can still rewrite both. A copy kept by someone else cannot be reached: each
 * channel marked as a witness gets the head, signed, once a day and when an admin asks, through
 * the outbox like every notice (written before sent, retried, one idempotency key, a signed
 * webhook). The notice carries the head and the public key, so the witness can check it offline,
 * and nothing else: no customer, no number, no message.
 *
 * The head comes from the composition root (`latestSignedHead`, access.latestSignedHead): this
 * room does not read the access room's insides. Without a signing key there is none, and nothing
 * is sent.
 */

export type LatestSignedHead = () => Promise<LogHead>

export const WITNESS_TITLE = 'Signed head of the access log'

/** The channels that get the head: marked as witnesses and switched on. */
export const witnessChannels = (channels: readonly Channel[]) => channels.filter((c) => c.witness && c.enabled)

export function witnessNotice(h: LogHead, at: Date): Notice {
  return {
    type: 'log.head',
    rule: 'witness',
    ruleTitle: WITNESS_TITLE,
    urgent: false,
    at: at.toISOString(),
    alerts: [],
    link: null,
    // Field by field: whatever else the hook's object holds stays out of a notice that leaves the server.
    head: { seq: h.seq, hash: h.hash, at: h.at, sig: h.sig, publicKey: h.publicKey },
  }
}

/** Midnight UTC of `at`'s day: the daily notice goes once per UTC day. */
const dayStart = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()))

/**
 * The daily notice, if today's has not gone yet: the head signed now, and one notice per witness
 * in the transaction that takes the day (a channel's quiet hours hold it, as any notice that is not
 * urgent). Returns how many notices were written: 0 with no key, no witness, or the day taken.
 */
export async function dailyWitness(
  db: Db,
  at: Date,
  o: { channels: readonly Channel[]; latestSignedHead: LatestSignedHead | null },
): Promise<number> {
  const to = witnessChannels(o.channels)
  if (!o.latestSignedHead || to.length === 0) return 0
  const day = dayStart(at)
  // Read first, so a head is signed (and appended to the heads file) once a day, not at every interval.
  const last = await lastDailyWitness(db)
  if (last && last.getTime() >= day.getTime()) return 0
  const head = await o.latestSignedHead()
  const notice = witnessNotice(head, at)
  return db.transaction(async (tx) => {
    if (!(await claimWitnessDay(tx, at, day, head.seq))) return 0
    for (const c of to) {
      const runAt = new Date(releaseAt(at.getTime(), c.quietStart, c.quietEnd, c.quietZone))
      await enqueueNotice(tx, { channel: c.id, kind: 'witness', notice, runAt, now: at })
    }
    return to.length
  })
}

/**
 * An admin's "Send the signed head now": the head signed now, one row per witness written before
 * the first is sent, and each sent at once; one that fails stays in the outbox, which retries it.
 */
export async function sendWitnessNow(
  latestSignedHead: LatestSignedHead | null,
  to: readonly Channel[],
  at: Date,
  o: {
    enqueue: (n: { channel: Channel; kind: NoticeKind; notice: Notice; at: Date }) => Promise<Claimed>
    send: (row: Claimed) => Promise<Delivery>
  },
): Promise<{ head: LogHead; sent: Array<{ channel: Channel; delivery: Delivery }> }> {
  if (!latestSignedHead) throw new Error('There is no signing key: no head to send.')
  const head = await latestSignedHead()
  const notice = witnessNotice(head, at)
  const rows: Array<{ channel: Channel; row: Claimed }> = []
  for (const channel of to) rows.push({ channel, row: await o.enqueue({ channel, kind: 'witness', notice, at }) })
  return { head, sent: await Promise.all(rows.map(async (r) => ({ channel: r.channel, delivery: await o.send(r.row) }))) }
}
