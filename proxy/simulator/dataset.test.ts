import { describe, expect, it } from 'vitest'
import { optOutLedger } from '../../contract/desk/opt-out-ledger.ts'
import type { DeskMessage } from '../../contract/desk/messages.ts'
import { DEMO_CREDENTIALS, END_MS, makeAccount, messageAt, SHARED_CUSTOMERS, type NumberProfile } from './dataset.ts'
import { DESK_INDEX } from './desk-cases.ts'

/**
 * The demo account is what every newcomer sees first: its figures must read like a real
 * business's, not a generator's. Checked over every number but the million-message one (the same
 * rules make it; reading it here would take a minute).
 */
const account = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60)
const ordinary = account.numbers.filter((p) => p.baseTotal < 100_000)

function history(p: NumberProfile) {
  return Array.from({ length: p.baseTotal }, (_, i) => messageAt(p, i + 1, p.baseTotal, 'http://sim.invalid', 0))
}
const all = ordinary.map((p) => ({ p, records: history(p) }))
const desk: DeskMessage[] = all.flatMap(({ p, records }) =>
  records.map((r) => ({ number: p.number, party: r.phone, direction: r.direction, date: `${r.GMTdate.replace(' ', 'T')}Z`, body: r.body })),
)

describe('the demo account', () => {
  it('has a few per cent of customers opted out, and only a handful of sends after opt-out, all on the desk number', () => {
    const customers = new Set(desk.map((m) => `${m.number}:${m.party.replace(/^1?(\d{10})$/, '1$1')}`))
    const ledger = optOutLedger(desk)
    const share = ledger.length / customers.size
    expect(share).toBeGreaterThan(0.005)
    expect(share).toBeLessThan(0.05)
    const sent = ledger.flatMap((e) => e.sentAfter)
    expect(sent.length).toBeGreaterThanOrEqual(1)
    expect(sent.length).toBeLessThanOrEqual(6)
    expect(new Set(sent.map((s) => s.message.number))).toEqual(new Set([account.numbers[DESK_INDEX]!.number]))
  })

  it('never sends STOP (or any customer words) from the business', () => {
    const outbound = desk.filter((m) => m.direction === 'outbound').map((m) => m.body ?? '')
    expect(outbound.filter((b) => /^\s*stop\b/i.test(b))).toEqual([])
  })

  it('has customers who text more than one of its numbers', () => {
    const numbersOf = new Map<string, Set<string>>()
    for (const m of desk) numbersOf.set(m.party, (numbersOf.get(m.party) ?? new Set()).add(m.number))
    const regulars = [...numbersOf].filter(([, ns]) => ns.size > 1).map(([party]) => party)
    expect(regulars.length).toBeGreaterThanOrEqual(3)
    for (const party of regulars) expect(SHARED_CUSTOMERS).toContain(party)
  })

  it('ends its history where it is told: END_MS by default, the server’s own day when it passes one', () => {
    const newest = (p: NumberProfile) => messageAt(p, p.baseTotal, p.baseTotal, '', 0).GMTdate
    expect(newest(account.numbers[0]!)).toBe(new Date(END_MS).toISOString().slice(0, 19).replace('T', ' '))
    const now = Date.UTC(2027, 2, 3, 9, 30)
    const moved = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60, now)
    expect(newest(moved.numbers[0]!)).toBe('2027-03-03 09:30:00')
    // The same customers and words, only later.
    const a = messageAt(account.numbers[4]!, 17, 420, '', 0)
    const b = messageAt(moved.numbers[4]!, 17, 420, '', 0)
    expect({ ...b, GMTdate: a.GMTdate }).toEqual(a)
  })
})
