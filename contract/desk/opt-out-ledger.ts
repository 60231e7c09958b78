/**
 * The opt-out state of a party on a number, its history, and the "sent after opt-out" report.
 * Not legal advice: this shows evidence for a person to judge.
 *
 * The rule, so an SQL version kept during sync can be checked against it:
 * - an inbound opt-out message (see opt-out.ts) opts the party out on that number; an inbound
 *   opt-in (START, UNSTOP, YES) after it opts them back in; an opt-out while already out keeps
 *   the first one as the start of the period;
 * - every outbound message to the party while they are opted out is reported, failed sends
 *   included (a send the carrier refused is still an attempt, and is marked failed);
 * - except one confirmation: the first outbound message within five minutes of the opt-out is
 *   the one-time confirmation text the FCC's 2024 rule (47 CFR 64.1200(a)(12)) and CTIA allow,
 *   and is not reported.
 * Ordering is as in messages.ts (date, ordinal, inbound before outbound in the same second).
 */
import { type DeskMessage, byThread, chronological, isFailed, isInbound, isOutbound, partyKey, timeOf } from './messages.ts'
import { type OptKind, classifyOptOut } from './opt-out.ts'

export const CONFIRMATION_WINDOW_MS = 5 * 60_000

const kindOf = (m: DeskMessage): OptKind => m.optKind ?? classifyOptOut(m.body).kind

export interface OptChange<M extends DeskMessage = DeskMessage> {
  state: 'opted-out' | 'opted-in'
  message: M
}

export interface OptState<M extends DeskMessage = DeskMessage> {
  optedOut: boolean
  /** The opt-out message that began the current period, when opted out. */
  since: M | null
  /** Every change of state, oldest first (a repeated STOP while out is not a change). */
  history: OptChange<M>[]
}

/** A party's opt-out state and history on one number, from that thread's messages (any order). */
export function optOutState<M extends DeskMessage>(messages: readonly M[]): OptState<M> {
  let since: M | null = null
  const history: OptChange<M>[] = []
  for (const m of chronological(messages)) {
    if (!isInbound(m)) continue
    const kind = kindOf(m)
    if (kind === 'opt-out' && !since) {
      since = m
      history.push({ state: 'opted-out', message: m })
    } else if (kind === 'opt-in' && since) {
      since = null
      history.push({ state: 'opted-in', message: m })
    }
  }
  return { optedOut: since !== null, since, history }
}

export interface SentAfterOptOut<M extends DeskMessage = DeskMessage> {
  /** The outbound message sent while the party was opted out. */
  message: M
  /** The opt-out it came after. */
  optOut: M
  /** Milliseconds from the opt-out to the send. */
  afterMs: number
  failed: boolean
}

/** Outbound messages to a party after their opt-out and before any re-opt-in, for one thread. */
export function sentAfterOptOut<M extends DeskMessage>(
  messages: readonly M[],
  confirmationWindowMs = CONFIRMATION_WINDOW_MS,
): SentAfterOptOut<M>[] {
  if (!Number.isFinite(confirmationWindowMs) || confirmationWindowMs < 0)
    throw new RangeError('confirmationWindowMs: a number of milliseconds, 0 or more')
  const out: SentAfterOptOut<M>[] = []
  let optOut: M | null = null
  let confirmationUsed = false
  for (const m of chronological(messages)) {
    if (isInbound(m)) {
      const kind = kindOf(m)
      if (kind === 'opt-out' && !optOut) {
        optOut = m
        confirmationUsed = false
      } else if (kind === 'opt-in') optOut = null
    } else if (isOutbound(m) && optOut) {
      const afterMs = timeOf(m.date) - timeOf(optOut.date)
      if (!confirmationUsed && afterMs <= confirmationWindowMs) {
        confirmationUsed = true
        continue
      }
      confirmationUsed = true
      out.push({ message: m, optOut, afterMs, failed: isFailed(m) })
    }
  }
  return out
}

export interface LedgerEntry<M extends DeskMessage = DeskMessage> extends OptState<M> {
  number: string
  party: string
  sentAfter: SentAfterOptOut<M>[]
}

/** Across numbers: every (number, party) that ever opted out, with its state and sends after. */
export function optOutLedger<M extends DeskMessage>(messages: readonly M[]): LedgerEntry<M>[] {
  const entries: LedgerEntry<M>[] = []
  for (const thread of byThread(messages).values()) {
    const state = optOutState(thread)
    const head = thread[0]
    if (state.history.length === 0 || !head) continue
    entries.push({ ...state, number: partyKey(head.number), party: partyKey(head.party), sentAfter: sentAfterOptOut(thread) })
  }
  return entries
}
