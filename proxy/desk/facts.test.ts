import { describe, expect, it } from 'vitest'
import { encodingCost } from '../../contract/desk/encoding-cost.ts'
import { classifyOptOut } from '../../contract/desk/opt-out.ts'
import { isQuietHour, localTime } from '../../contract/desk/quiet-hours.ts'
import { AREA_CODES } from '../../contract/desk/area-codes.ts'
import { turnCounter } from '../testing/helpers.ts'
import { deskFacts, type DeskSource } from '../../contract/desk/facts.ts'
import { warmDeskFacts } from './refresh-facts.ts'

/**
 * deskFacts looks things up once per batch (bodies, direction words, zones, days and their
 * offsets) and shares one facts object between messages that agree: each message's facts must
 * still be what contract/desk's per-message rules say, one message at a time.
 */
const PARTIES = [
  '12125550123', // New York
  '13105550123', // Los Angeles
  '17095550123', // Newfoundland (UTC−3:30 / −2:30)
  '18005550123', // toll-free: no zone
  '447700900123', // not North American
  '',
]
const BODIES = ['STOP', 'Stop texting me', 'START', 'don\u2019t stop', 'Thanks! \u{1F44D}', 'ok', '', null]
const DIRECTIONS = ['inbound', 'outbound', ' Outbound ', 'INBOUND', 'forwarded', null]
// Around the 2026 daylight-saving changes (8 March, 1 November in the US; 29 March, 25 October in
// the EU) and a quiet-hour boundary, every 37 minutes.
const DATES = ['2026-03-07T20:00:00Z', '2026-10-31T20:00:00Z', '2026-06-15T00:00:00Z'].flatMap((from) =>
  Array.from({ length: 80 }, (_, i) => new Date(Date.parse(from) + i * 37 * 60_000).toISOString()),
)

describe('deskFacts', () => {
  it('gives every message the facts the per-message rules give it', () => {
    const messages: DeskSource[] = []
    for (const date of DATES)
      for (const party of PARTIES)
        for (const direction of DIRECTIONS) messages.push({ party, date, direction, body: BODIES[messages.length % BODIES.length]! })
    const of = deskFacts()
    const facts = messages.map(of)
    let quiet = 0
    messages.forEach((m, i) => {
      const f = facts[i]!
      const d = m.direction?.trim().toLowerCase()
      const inbound = d === 'inbound' ? true : d === 'outbound' ? false : null
      const cost = encodingCost(m.body ?? '')
      const kind = classifyOptOut(m.body ?? '').kind
      const local = inbound === false ? localTime(m.party, m.date) : null
      expect(f).toEqual({
        inbound,
        opt: inbound === true && kind !== 'none' ? kind : null,
        segments: cost.segments,
        forcing: cost.forcedBy.length > 0 ? cost.forcedBy.map((c) => c.char) : null,
        extra: cost.extraSegments === 0 ? null : cost.extraSegments,
        localDay: local?.day ?? null,
        quiet: inbound === false ? isQuietHour(m.party, m.date) : null,
      })
      if (f.quiet) quiet++
    })
    // The corpus reaches both sides of the window, and the rules' shared objects are not changed by use.
    expect(quiet).toBeGreaterThan(0)
    expect(quiet).toBeLessThan(facts.filter((f) => f.quiet !== null).length)
    expect(messages.map(of)).toEqual(facts)
  })
})

describe('warmDeskFacts', () => {
  it('makes every zone of the area-code table ready one turn of the event loop at a time', async () => {
    const zones = new Set([...AREA_CODES.values()].map((a) => a.zone))
    const counter = turnCounter()
    try {
      await warmDeskFacts()
    } finally {
      counter.stop()
    }
    // One zone per turn: the loop turned between every two zones, so no turn held the thread for all of them.
    expect(zones.size).toBeGreaterThan(5)
    expect(counter.turns()).toBeGreaterThanOrEqual(zones.size - 1)
  })
})
