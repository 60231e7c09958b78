import { describe, expect, it } from 'vitest'
import { costlyCharacters, encodingCost, withLookAlikes } from './encoding-cost.ts'
import { gsm7Septets } from './segments.ts'
import { LOOK_ALIKES } from './encoding-cost.ts'

describe('encoding cost', () => {
  it('maps every look-alike to GSM-7 text', () => {
    for (const [from, to] of Object.entries(LOOK_ALIKES)) {
      expect(gsm7Septets(from), JSON.stringify(from)).toBeNull()
      for (const c of to) expect(gsm7Septets(c), `${JSON.stringify(from)} → ${JSON.stringify(to)}`).not.toBeNull()
    }
  })

  it('charges a curly apostrophe the two extra segments it costs a 160-character message', () => {
    const cost = encodingCost('a'.repeat(159) + '’')
    expect(cost).toEqual({ segments: 3, segmentsAsGsm7: 1, extraSegments: 2, forcedBy: [{ char: '’', lookAlike: "'" }] })
  })

  it('charges nothing when UCS-2 still fits one segment', () => {
    expect(encodingCost('It’s ready')).toMatchObject({ segments: 1, segmentsAsGsm7: 1, extraSegments: 0 })
    expect(encodingCost('plain text')).toEqual({ segments: 1, segmentsAsGsm7: 1, extraSegments: 0, forcedBy: [] })
  })

  it('counts an emoji as one GSM-7 character in the comparison', () => {
    // 100 GSM-7 characters and an emoji: 102 UCS-2 units (2 parts) against 101 septets (1 part).
    expect(encodingCost('a'.repeat(100) + '😀')).toMatchObject({ segments: 2, segmentsAsGsm7: 1, extraSegments: 1 })
  })

  it('replaces look-alikes, keeping other characters', () => {
    expect(withLookAlikes('“Don’t” — wait… 😀')).toBe('"Don\'t" - wait... 😀')
  })

  it('ranks characters by the segments they cost, sharing a message between its culprits', () => {
    const bodies = ['a'.repeat(159) + '’', 'a'.repeat(150) + '“x”', 'It’s fine', null, '', 'plain']
    const ranked = costlyCharacters(bodies)
    expect(ranked.map((c) => [c.char, c.messages, c.extraSegments])).toEqual([
      ['’', 2, 2],
      ['“', 1, 1],
      ['”', 1, 1],
    ])
  })
})
