import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type DeskMessage, chronological, partyForms, partyKey } from './messages.ts'
import { needsReply, needsReplyQueue } from './needs-reply.ts'
import { optOutLedger, optOutState, sentAfterOptOut } from './opt-out-ledger.ts'

const T0 = Date.UTC(2026, 10, 20, 12, 0, 0)
const min = 60_000
let seq = 0
function msg(direction: 'inbound' | 'outbound', atMin: number, body = 'hello', extra: Partial<DeskMessage> = {}): DeskMessage {
  return {
    number: '18323232323',
    party: '19175550142',
    direction,
    date: new Date(T0 + atMin * min).toISOString(),
    body,
    ordinal: ++seq,
    ...extra,
  }
}
const inn = (at: number, body?: string, extra?: Partial<DeskMessage>) => msg('inbound', at, body, extra)
const out = (at: number, body?: string, extra?: Partial<DeskMessage>) => msg('outbound', at, body, extra)
const now = (atMin: number) => T0 + atMin * min

describe('needsReply', () => {
  it('waits from the first unanswered message once the threshold has passed', () => {
    const thread = [out(0), inn(10, 'Is it ready?'), inn(12, 'Hello??')]
    expect(needsReply(thread, 15 * min, now(24))).toMatchObject({ waiting: false, unanswered: 2, waitedMs: 14 * min })
    const r = needsReply(thread, 15 * min, now(25))
    expect(r).toMatchObject({ waiting: true, unanswered: 2, waitedMs: 15 * min, since: new Date(now(10)).toISOString() })
    expect(r.dueAt).toBe(new Date(now(25)).toISOString())
    expect(r.lastInbound?.body).toBe('Hello??')
  })

  it('shows the question, not a STOP sent after it: the customer still waits, opted out', () => {
    const r = needsReply([out(0), inn(10, 'When does my warranty end?'), inn(70, 'STOP')], 15 * min, now(120))
    expect(r).toMatchObject({ waiting: true, unanswered: 1, since: new Date(now(10)).toISOString() })
    expect(r.lastInbound?.body).toBe('When does my warranty end?')
  })

  it('leaves the queue when a reply comes after the last message', () => {
    const r = needsReply([inn(0, 'Hi'), out(30, 'Hello!')], 15 * min, now(60))
    expect(r).toMatchObject({ waiting: false, since: null, unanswered: 0 })
    expect(r.lastInbound?.body).toBe('Hi')
  })

  it('does not count a failed send as a reply', () => {
    expect(needsReply([inn(0), out(5, 'reply', { statusCode: 400 })], 15 * min, now(20)).waiting).toBe(true)
    expect(needsReply([inn(0), out(5, 'reply', { statusCode: 200 })], 15 * min, now(20)).waiting).toBe(false)
  })

  it('leaves nobody waiting for an opt-out, stored or derived', () => {
    expect(needsReply([out(0), inn(1, 'STOP')], 15 * min, now(60)).waiting).toBe(false)
    expect(needsReply([out(0), inn(1, 'ok', { optKind: 'opt-out' })], 15 * min, now(60)).waiting).toBe(false)
    expect(needsReply([out(0), inn(1, 'STOP'), inn(2, 'why did you text me')], 15 * min, now(60)).since).toBe(
      new Date(now(2)).toISOString(),
    )
  })

  it('treats messages up to a "mark handled" as answered', () => {
    const thread = [inn(0), inn(5)]
    expect(needsReply(thread, 15 * min, now(60), { handledAt: now(3) })).toMatchObject({ unanswered: 1, waitedMs: 55 * min })
    expect(needsReply(thread, 15 * min, now(60), { handledAt: now(5) }).waiting).toBe(false)
  })

  it('orders by date whatever the input order, and puts a same-second reply after the question', () => {
    expect(needsReply([out(20), inn(0)], 15 * min, now(60)).waiting).toBe(false)
    const a = { ...inn(0), ordinal: undefined }
    const b = { ...out(0), ordinal: undefined }
    expect(needsReply([b, a], 15 * min, now(60)).waiting).toBe(false)
    // With ordinals, the ordinal decides: here the reply was stored first.
    expect(
      needsReply(
        [
          { ...b, ordinal: 1 },
          { ...a, ordinal: 2 },
        ],
        15 * min,
        now(60),
      ).waiting,
    ).toBe(true)
  })

  it('reads direction in any case and ignores unknown directions', () => {
    expect(needsReply([{ ...inn(0), direction: ' Inbound ' }], 15 * min, now(60)).waiting).toBe(true)
    expect(needsReply([inn(0), { ...out(5), direction: 'OUTBOUND' }], 15 * min, now(60)).waiting).toBe(false)
    expect(needsReply([inn(0), { ...out(5), direction: 'mt' }], 15 * min, now(60)).waiting).toBe(true)
    expect(needsReply([{ ...inn(0), direction: null }], 15 * min, now(60)).lastInbound).toBeNull()
  })

  it('is not waiting with no messages, or with only outbound ones', () => {
    expect(needsReply([], 15 * min, now(0))).toMatchObject({ waiting: false, lastInbound: null })
    expect(needsReply([out(0)], 15 * min, now(60)).waiting).toBe(false)
  })

  it('refuses a bad threshold or date, naming the field', () => {
    expect(() => needsReply([], -1, now(0))).toThrow(/thresholdMs/)
    expect(() => needsReply([], Number.NaN, now(0))).toThrow(/thresholdMs/)
    expect(() => needsReply([], 0, 'yesterday')).toThrow(/now/)
    expect(() => needsReply([{ ...inn(0), date: 'garbage' }], 0, now(0))).toThrow(/messages\[0\]\.date/)
  })
})

describe('needsReplyQueue', () => {
  it('groups by number and party (10 or 11 digits alike) and sorts by wait', () => {
    const other = { party: '3105550100' }
    const messages = [
      inn(0, 'first', other),
      inn(10, 'second'),
      out(11, 'hi', { number: '8323232323', party: '+1 (917) 555-0142' }),
      inn(20, 'third'),
      inn(1, 'on another number', { number: '14155550000' }),
    ]
    const q = needsReplyQueue(messages, 15 * min, now(40))
    expect(q.map((e) => [e.number, e.party, e.waitedMs / min])).toEqual([
      ['18323232323', '13105550100', 40],
      ['14155550000', '19175550142', 39],
      ['18323232323', '19175550142', 20],
    ])
    const handled = new Map([[`${partyKey('18323232323')}|${partyKey('3105550100')}`, now(1)]])
    expect(needsReplyQueue(messages, 15 * min, now(40), handled)).toHaveLength(2)
  })
})

describe('opt-out state and sent after opt-out', () => {
  it('reports sends after STOP and before START, sparing one confirmation within five minutes', () => {
    const thread = [
      out(0, 'Sale today!'),
      inn(1, 'STOP'),
      out(1, 'You are unsubscribed. Reply START to resubscribe.'),
      out(60, 'Flash sale!'),
      out(120, 'Last chance', { statusCode: 400 }),
      inn(200, 'START'),
      out(201, 'Welcome back'),
    ]
    const r = sentAfterOptOut(thread)
    expect(r.map((x) => [x.message.body, x.afterMs / min, x.failed])).toEqual([
      ['Flash sale!', 59, false],
      ['Last chance', 119, true],
    ])
    expect(r[0]?.optOut.body).toBe('STOP')
  })

  it('reports the first send when it comes later than the confirmation window', () => {
    expect(sentAfterOptOut([inn(0, 'stop texting me'), out(6, 'Hi again')]).map((x) => x.message.body)).toEqual(['Hi again'])
    expect(sentAfterOptOut([inn(0, 'STOP'), out(5, 'Confirmed')])).toEqual([])
  })

  it('keeps the first opt-out of a period and reopens after a re-opt-in', () => {
    const thread = [inn(0, 'STOP'), inn(10, 'STOP!!'), out(20, 'x'), inn(30, 'YES'), out(31, 'y'), inn(40, 'unsubscribe'), out(50, 'z')]
    const r = sentAfterOptOut(thread)
    expect(r.map((x) => [x.message.body, x.optOut.body])).toEqual([
      ['x', 'STOP'],
      ['z', 'unsubscribe'],
    ])
    const s = optOutState(thread)
    expect(s.optedOut).toBe(true)
    expect(s.since?.body).toBe('unsubscribe')
    expect(s.history.map((h) => [h.state, h.message.body])).toEqual([
      ['opted-out', 'STOP'],
      ['opted-in', 'YES'],
      ['opted-out', 'unsubscribe'],
    ])
  })

  it('ignores a YES or START from a party that never opted out, and outbound opt-out words', () => {
    expect(optOutState([inn(0, 'YES'), out(1, 'Reply STOP to opt out')]).history).toEqual([])
    expect(sentAfterOptOut([out(0, 'STOP'), out(10, 'hi')])).toEqual([])
  })

  it('uses a stored classification over the body', () => {
    expect(sentAfterOptOut([inn(0, 'hmm', { optKind: 'opt-out' }), out(10, 'hi')])).toHaveLength(1)
    expect(sentAfterOptOut([inn(0, 'STOP', { optKind: 'none' }), out(10, 'hi')])).toHaveLength(0)
  })

  it('builds a ledger across threads of the parties that ever opted out', () => {
    const messages = [inn(0, 'STOP'), out(30, 'promo'), inn(0, 'hi', { party: '13105550100' }), inn(5, 'ALTO', { number: '14165550000' })]
    const ledger = optOutLedger(messages)
    expect(ledger.map((e) => [e.number, e.party, e.optedOut, e.sentAfter.length])).toEqual([
      ['18323232323', '19175550142', true, 1],
      ['14165550000', '19175550142', true, 0],
    ])
  })

  it('refuses a bad confirmation window', () => {
    expect(() => sentAfterOptOut([], -5)).toThrow(/confirmationWindowMs/)
  })
})

// The rules again, written as a per-message condition (the shape an SQL query takes), checked
// against the streaming versions on random threads.
describe('the rules against their per-message formulations', () => {
  const arbThread = fc.array(
    fc.record({
      direction: fc.constantFrom('inbound', 'outbound', null),
      at: fc.integer({ min: 0, max: 120 }),
      optKind: fc.constantFrom('opt-out', 'opt-in', 'none', 'none', 'none'),
      failed: fc.boolean(),
    }),
    { maxLength: 25 },
  )
  const build = (spec: Array<{ direction: string | null; at: number; optKind: string; failed: boolean }>): DeskMessage[] =>
    spec.map((s, i) => ({
      number: '1',
      party: '2',
      direction: s.direction,
      date: T0 + s.at * min,
      ordinal: i,
      optKind: s.optKind as DeskMessage['optKind'],
      statusCode: s.failed ? 400 : 200,
    }))

  it('needsReply: waiting iff some unanswered inbound (no good reply after it) is older than the threshold', () => {
    fc.assert(
      fc.property(arbThread, fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 200 }), (spec, thr, at) => {
        const sorted = chronological(build(spec))
        const unanswered = sorted.filter(
          (m, i) =>
            m.direction === 'inbound' &&
            m.optKind !== 'opt-out' &&
            !sorted.slice(i + 1).some((r) => r.direction === 'outbound' && r.statusCode === 200),
        )
        const first = unanswered[0]
        const expected = first !== undefined && now(at) - Number(first.date) >= thr * min
        const r = needsReply(sorted, thr * min, now(at))
        expect(r.waiting).toBe(expected)
        expect(r.unanswered).toBe(unanswered.length)
      }),
      { numRuns: 1000 },
    )
  })

  it('sentAfterOptOut: an outbound is reported iff an opt-out precedes it with no opt-in between, unless it is the period’s first send within the window', () => {
    fc.assert(
      fc.property(arbThread, (spec) => {
        const sorted = chronological(build(spec))
        const expected: number[] = []
        sorted.forEach((m, i) => {
          if (m.direction !== 'outbound') return
          const before = sorted.slice(0, i)
          const lastIn = before.findLastIndex((x) => x.direction === 'inbound' && x.optKind === 'opt-in')
          const start = before.findIndex((x, j) => j > lastIn && x.direction === 'inbound' && x.optKind === 'opt-out')
          if (start < 0) return
          const startMsg = sorted[start]
          if (!startMsg) return
          const firstSend = sorted.findIndex((x, j) => j > start && x.direction === 'outbound')
          if (firstSend === i && Number(m.date) - Number(startMsg.date) <= 5 * min) return
          expected.push(i)
        })
        expect(sentAfterOptOut(sorted).map((r) => sorted.indexOf(r.message))).toEqual(expected)
      }),
      { numRuns: 1000 },
    )
  })
})

describe('partyForms', () => {
  it('gives every form a party may be stored or logged under, a call prefix taken off; a key never gains a 0', () => {
    expect(partyForms('4155550113')).toEqual(['4155550113', '14155550113'])
    expect(partyForms('14155550113')).toEqual(['14155550113', '4155550113'])
    expect(partyForms('0014155550113')).toEqual(['0014155550113', '14155550113', '4155550113'])
    expect(partyForms('01114155550113')).toEqual(['01114155550113', '14155550113', '4155550113'])
    expect(partyForms('00442071838750')).toEqual(['00442071838750', '442071838750'])
    expect(partyForms('442071838750')).toEqual(['442071838750'])
    // Too short after the prefix, or a 0 after it: left as typed.
    expect(partyForms('00123')).toEqual(['00123'])
    expect(partyForms('000442071838750')).toEqual(['000442071838750'])
  })
})
