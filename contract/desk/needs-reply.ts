/**
 * Needs reply: is a customer waiting for us on a number? The rule, so an SQL version kept during
 * sync can be checked against it:
 * - a reply is an outbound message to the party on the same number that the carrier did not
 *   refuse (status below 400): a failed send never reached them;
 * - the party's unanswered messages are their inbound messages after the last reply (and after
 *   the last "mark handled", when one is given); an opt-out ("STOP") is not a question and
 *   leaves nobody waiting, so opt-out messages are left out;
 * - the party is waiting from the first unanswered message (`since`); they enter the queue once
 *   `now - since` reaches the threshold (default 15 minutes), and leave it when a reply or a
 *   "mark handled" comes after their last message.
 * Messages in the same second are ordered by ordinal; a reply with the same date and no ordinal
 * counts as after.
 * A party who asked and then opted out still waits (they asked), and the entry says they are
 * opted out now: a text would be a send after opt-out, so the answer is a call or an email,
 * then "mark handled".
 */
import { type DeskMessage, byThread, chronological, isFailed, isInbound, isOutbound, partyKey, timeOf } from './messages.ts'
import { classifyOptOut } from './opt-out.ts'
import { optOutState } from './opt-out-ledger.ts'

export const DEFAULT_THRESHOLD_MS = 15 * 60_000

export interface NeedsReply<M extends DeskMessage = DeskMessage> {
  /** In the queue now: unanswered for at least the threshold. */
  waiting: boolean
  /** ISO time of the first unanswered message, or null when nothing is unanswered. */
  since: string | null
  /** ISO time at which the party enters (or entered) the queue; null when nothing is unanswered. */
  dueAt: string | null
  /** now − since, in milliseconds (0 when nothing is unanswered). */
  waitedMs: number
  /** Unanswered messages (inbound after the last reply or handling, opt-outs left out). */
  unanswered: number
  /**
   * The party's latest inbound message that is not an opt-out, answered or not: the text the
   * queue shows. A STOP after a question showed as the message, and hid the question staff
   * must still answer (by phone or email, once they opted out).
   */
  lastInbound: M | null
}

export interface NeedsReplyOptions {
  /** A "mark handled" time: messages at or before it count as answered. */
  handledAt?: Date | string | number | null
}

function validThreshold(thresholdMs: number): number {
  if (!Number.isFinite(thresholdMs) || thresholdMs < 0) throw new RangeError('thresholdMs: a number of milliseconds, 0 or more')
  return thresholdMs
}

const isOptOut = (m: DeskMessage) => (m.optKind ?? classifyOptOut(m.body).kind) === 'opt-out'

/** The needs-reply state of one party on one number, from that thread's messages (any order). */
export function needsReply<M extends DeskMessage>(
  messages: readonly M[],
  thresholdMs: number = DEFAULT_THRESHOLD_MS,
  now: Date | string | number = Date.now(),
  options: NeedsReplyOptions = {},
): NeedsReply<M> {
  const threshold = validThreshold(thresholdMs)
  const nowMs = timeOf(now, 'now')
  const handledMs = options.handledAt == null ? -Infinity : timeOf(options.handledAt, 'handledAt')
  let lastInbound: M | null = null
  let first: M | null = null
  let unanswered = 0
  for (const m of chronological(messages)) {
    if (isOutbound(m) && !isFailed(m)) {
      first = null
      unanswered = 0
    } else if (isInbound(m)) {
      if (isOptOut(m)) continue
      lastInbound = m
      if (timeOf(m.date) <= handledMs) continue
      first ??= m
      unanswered++
    }
  }
  if (!first) return { waiting: false, since: null, dueAt: null, waitedMs: 0, unanswered: 0, lastInbound }
  const sinceMs = timeOf(first.date)
  const waitedMs = Math.max(0, nowMs - sinceMs)
  return {
    // Unclamped: a message dated after `now` (clock skew) is not waiting yet, even at threshold 0.
    waiting: nowMs - sinceMs >= threshold,
    since: new Date(sinceMs).toISOString(),
    dueAt: new Date(sinceMs + threshold).toISOString(),
    waitedMs,
    unanswered,
    lastInbound,
  }
}

export interface QueueEntry<M extends DeskMessage = DeskMessage> extends NeedsReply<M> {
  number: string
  party: string
  /** Opted out on this number now (optOutState): not to be texted. */
  optedOut: boolean
}

/**
 * The queue across numbers: every (number, party) waiting now, longest wait first.
 * `handled` maps `${partyKey(number)}|${partyKey(party)}` to that thread's last "mark handled" time.
 */
export function needsReplyQueue<M extends DeskMessage>(
  messages: readonly M[],
  thresholdMs: number = DEFAULT_THRESHOLD_MS,
  now: Date | string | number = Date.now(),
  handled: ReadonlyMap<string, Date | string | number> = new Map(),
): QueueEntry<M>[] {
  validThreshold(thresholdMs)
  const entries: QueueEntry<M>[] = []
  for (const [key, thread] of byThread(messages)) {
    const state = needsReply(thread, thresholdMs, now, { handledAt: handled.get(key) ?? null })
    const head = thread[0]
    if (state.waiting && head)
      entries.push({ ...state, number: partyKey(head.number), party: partyKey(head.party), optedOut: optOutState(thread).optedOut })
  }
  return entries.sort((a, b) => b.waitedMs - a.waitedMs || a.number.localeCompare(b.number) || a.party.localeCompare(b.party))
}
