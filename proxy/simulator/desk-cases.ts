import { apiDate, hash32, hex32 } from './rng.ts'

/**
 * Scripted conversations for the support desk (contract/desk) on one demo number, so every desk
 * page has something true to show on a fresh start: customers waiting for a reply for 5 minutes
 * (not yet due at the 15-minute default), 20 minutes, 2 hours and 3 days; opt-outs with sends
 * after them; sends in the recipient's quiet hours; UCS-2 bodies; a customer whose messages write
 * their number without the leading 1 while ours write it with (one customer, one thread); a
 * customer who asked and then opted out (waiting, not to be texted). Times are relative to the
 * dataset's END_MS (its newest message), so "waiting" is judged as of END_MS.
 *
 * Each party below is used only here (555-01xx numbers, which the generated parties never take),
 * so tests can name what each case must produce.
 */

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR

/** The demo number (by index) that carries the cases. Its generated history ends before them. */
export const DESK_INDEX = 9

export interface DeskCase {
  /** Milliseconds before END_MS. */
  before: number
  party: string
  direction: 'inbound' | 'outbound'
  body: string
  failed?: boolean
  /** How the record writes the party when not as `party`: the field notes allow 10 or 11 digits. */
  written?: string
}

/** 159 GSM-7 characters and one curly apostrophe: one segment with ', three with ’ (UCS-2, 67 a part). */
export const UCS2_BODY = `${'Your order is on its way and should arrive by Friday. Reply with any questions and a member of our team will help you. We hope you enjoy it!!'.padEnd(159, '.')}’`
export const GSM_BODY = UCS2_BODY.replace('’', "'")

export const DESK_PARTIES = {
  wait5m: '19175550101',
  wait20m: '16465550102',
  wait2h: '13105550103',
  wait3d: '14695550104',
  stopThenPromo: '17025550105',
  stopTexting: '19175550106',
  stopStart: '13105550107',
  stopBy: '16465550108',
  unsubscribeFailed: '14695550109',
  quietNy: '19175550110',
  quietLa: '13105550111',
  ucs2: '17025550112',
  // Written without the leading 1 on the customer's own messages and with it on ours: one customer.
  bothWaysAnswered: '14155550113',
  bothWaysStop: '15125550114',
  askedThenStop: '12065550115',
} as const

const P = DESK_PARTIES

/** Oldest first after sorting by `before` descending. */
export const DESK_CASES: readonly DeskCase[] = [
  // Waiting: a reply earlier, then an unanswered question.
  { before: 3 * DAY + 2 * HOUR, party: P.wait3d, direction: 'outbound', body: 'Your repair ticket #5521 is open.' },
  { before: 3 * DAY, party: P.wait3d, direction: 'inbound', body: 'Any news on my repair? It has been a week.' },
  { before: 3 * HOUR, party: P.wait2h, direction: 'outbound', body: 'Your table for 4 is booked for 7pm.' },
  { before: 2 * HOUR, party: P.wait2h, direction: 'inbound', body: 'Can we make it 5 people?' },
  { before: 90 * MIN, party: P.wait20m, direction: 'outbound', body: 'Your parcel will arrive today.' },
  { before: 20 * MIN, party: P.wait20m, direction: 'inbound', body: 'Can you leave it with the neighbour?' },
  { before: 5 * MIN, party: P.wait5m, direction: 'inbound', body: 'Do you have this in blue?' },
  // STOP, the confirmation within a minute (allowed), a promotion two days later (reported).
  { before: 5 * DAY, party: P.stopThenPromo, direction: 'inbound', body: 'STOP' },
  { before: 5 * DAY - 40_000, party: P.stopThenPromo, direction: 'outbound', body: 'You are unsubscribed and will get no more messages.' },
  { before: 3 * DAY, party: P.stopThenPromo, direction: 'outbound', body: 'Weekend sale: 20% off everything!' },
  // A "reasonable means" revocation, then a send two hours later (reported).
  { before: 4 * DAY, party: P.stopTexting, direction: 'inbound', body: 'Stop texting me' },
  { before: 4 * DAY - 2 * HOUR, party: P.stopTexting, direction: 'outbound', body: 'Reminder: your appointment is tomorrow at 10.' },
  // STOP, confirmation, START, then a send: nothing reported.
  { before: 2 * DAY, party: P.stopStart, direction: 'inbound', body: 'stop.' },
  { before: 2 * DAY - 30_000, party: P.stopStart, direction: 'outbound', body: 'You are unsubscribed. Reply START to resubscribe.' },
  { before: DAY, party: P.stopStart, direction: 'inbound', body: 'START' },
  { before: DAY - HOUR, party: P.stopStart, direction: 'outbound', body: 'Welcome back! Your code is 5521.' },
  // Not an opt-out, and answered.
  { before: 6 * HOUR, party: P.stopBy, direction: 'inbound', body: "I'll stop by the store later" },
  { before: 5 * HOUR, party: P.stopBy, direction: 'outbound', body: 'See you then!' },
  // UNSUBSCRIBE, then a send the carrier refused: reported, marked failed.
  { before: 36 * HOUR, party: P.unsubscribeFailed, direction: 'inbound', body: 'Unsubscribe please' },
  { before: 12 * HOUR, party: P.unsubscribeFailed, direction: 'outbound', body: 'Last chance: 20% off ends tonight!', failed: true },
  // UCS-2: the same 160 characters, one with a curly apostrophe.
  { before: 30 * HOUR, party: P.ucs2, direction: 'outbound', body: GSM_BODY },
  { before: 29 * HOUR, party: P.ucs2, direction: 'outbound', body: UCS2_BODY },
  // One customer written two ways (10 digits on their messages, 11 on ours): the reply answers
  // the question, and the send after their STOP is reported, as for any other customer.
  {
    before: 8 * HOUR,
    party: P.bothWaysAnswered,
    written: P.bothWaysAnswered.slice(1),
    direction: 'inbound',
    body: 'Is my order ready for pickup?',
  },
  { before: 7 * HOUR, party: P.bothWaysAnswered, direction: 'outbound', body: 'Yes, it is ready at the front desk.' },
  { before: 6 * DAY, party: P.bothWaysStop, written: P.bothWaysStop.slice(1), direction: 'inbound', body: 'STOP' },
  { before: 2 * DAY, party: P.bothWaysStop, direction: 'outbound', body: 'New arrivals this week: come and see!' },
  // A question, then STOP: still waiting (they asked), and opted out, so the answer is a call.
  { before: 10 * HOUR, party: P.askedThenStop, direction: 'inbound', body: 'When does my warranty end?' },
  { before: 9 * HOUR, party: P.askedThenStop, direction: 'inbound', body: 'STOP' },
]

/**
 * Quiet-hour sends, placed at fixed UTC hours of END_MS's day (2026-11-20, standard time): 03:00
 * UTC is 22:00 in New York (the day before), 15:00 UTC is 07:00 in Los Angeles (both quiet);
 * 17:00 UTC is 09:00 in Los Angeles (not quiet).
 */
export function quietCases(endMs: number): DeskCase[] {
  const day = endMs - (endMs % DAY)
  const at = (h: number) => endMs - (day + h * HOUR)
  return [
    { before: at(3) + DAY, party: P.quietNy, direction: 'outbound', body: 'Flash sale starts now!' },
    { before: at(15) + DAY, party: P.quietLa, direction: 'outbound', body: 'Your delivery window is 8-10am.' },
    { before: at(17) + DAY, party: P.quietLa, direction: 'outbound', body: 'Driver is on the way.' },
  ]
}

/** Every case, oldest first. */
export function deskCases(endMs: number): DeskCase[] {
  return [...DESK_CASES, ...quietCases(endMs)].sort((a, b) => b.before - a.before)
}

/** How a desk number's history is laid out: its generated messages first, then the cases, then any added by tests. */
export interface DeskSlot {
  /** The scripted record at this position, when it is one. */
  record: DeskRecord | null
  /** Otherwise the date of the generated message at this position. */
  when: number
}

export interface DeskRecord {
  system_id: number
  message_id: string
  GMTdate: string
  tid: string
  phone: string
  direction: string
  body: string
  mms: string
  mms_url: string
  status: string
}

const STATUS_200 = '200 [Possible status and meaning: 200 = success, 400 = error]'
const STATUS_400 = '400 [Possible status and meaning: 200 = success, 400 = error]'

/**
 * Position `seq` (1 = oldest) of the desk number's history of `total` records (`added` of them
 * added by tests after the cases). Generated messages sit `step` apart, ending one step before the
 * oldest case.
 */
export function deskSlot(
  p: { index: number; number: string; tid: string },
  seq: number,
  total: number,
  added: number,
  step: number,
  endMs: number,
): DeskSlot {
  const cases = deskCases(endMs)
  const generated = total - added - cases.length
  if (seq > generated + cases.length) return { record: null, when: endMs + (seq - generated - cases.length) * step }
  if (seq <= generated) return { record: null, when: endMs - cases[0]!.before - (generated - seq + 1) * step }
  const c = cases[seq - generated - 1]!
  return {
    when: endMs - c.before,
    record: {
      system_id: 200_000_000_000 + p.index * 2_000_000 + seq,
      message_id: hex32(hash32(p.number), seq),
      GMTdate: apiDate(endMs - c.before),
      tid: p.tid,
      phone: c.written ?? c.party,
      direction: c.direction,
      body: c.body,
      mms: 'no',
      mms_url: '',
      status: c.failed ? STATUS_400 : STATUS_200,
    },
  }
}

export const DESK_CASE_COUNT = DESK_CASES.length + 3
