import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { SEGMENT_CORPUS } from './segment-corpus.ts'
import { characters, gsm7Septets, segmentInfo } from './segments.ts'

// Reference: the rules of Twilio's open-source message-segment-calculator
// (github.com/TwilioDevEd/message-segment-calculator) over 3GPP TS 23.038 / 23.040. The corpus's
// expected values were worked out by hand from those rules; see segment-corpus.ts.
describe('segmentInfo against the shared corpus', () => {
  it('holds at least 100 cases, boundaries and straddles included', () => {
    expect(SEGMENT_CORPUS.length).toBeGreaterThanOrEqual(100)
    expect(SEGMENT_CORPUS.filter((c) => c.note?.includes('straddle')).length).toBeGreaterThanOrEqual(3)
  })

  for (const [i, c] of SEGMENT_CORPUS.entries()) {
    const label = `${i}: ${JSON.stringify(c.body.length > 40 ? `${c.body.slice(0, 20)}…(${c.body.length})` : c.body)}`
    it(label, () => {
      const info = segmentInfo(c.body)
      expect({ encoding: info.encoding, units: info.units, segments: info.segments }).toEqual({
        encoding: c.encoding,
        units: c.units,
        segments: c.segments,
      })
      if (c.ucs2) expect(info.ucs2Chars).toEqual(c.ucs2)
      if (c.encoding === 'GSM-7') expect(info.ucs2Chars).toEqual([])
      else expect(info.ucs2Chars.length).toBeGreaterThan(0)
      // The parts add up, and none is over its capacity.
      expect(info.segmentUnits.reduce((s, n) => s + n, 0)).toBe(info.units)
      expect(info.segmentUnits.length).toBe(info.segments)
      for (const part of info.segmentUnits) expect(part).toBeLessThanOrEqual(info.perSegment)
    })
  }
})

describe('segment details', () => {
  it('takes a missing body as empty', () => {
    expect(segmentInfo(null)).toMatchObject({ encoding: 'GSM-7', units: 0, segments: 0 })
    expect(segmentInfo(undefined).segments).toBe(0)
  })

  it('reports the per-segment capacity that applies', () => {
    expect(segmentInfo('hi').perSegment).toBe(160)
    expect(segmentInfo('a'.repeat(161)).perSegment).toBe(153)
    expect(segmentInfo('hi 😀').perSegment).toBe(70)
    expect(segmentInfo('😀'.repeat(40)).perSegment).toBe(67)
  })

  it('moves an escape sequence whole to the next part', () => {
    const info = segmentInfo('a'.repeat(152) + '€' + 'a'.repeat(152))
    expect(info.segmentUnits).toEqual([152, 153, 1])
  })

  it('moves a surrogate pair whole to the next part', () => {
    expect(segmentInfo('a'.repeat(66) + '😀' + 'a'.repeat(66)).segmentUnits).toEqual([66, 67, 1])
  })

  it('names each forcing character once, in order of appearance', () => {
    expect(segmentInfo('“a” “b” ’').ucs2Chars).toEqual(['“', '”', '’'])
  })

  it('classifies single characters by the 23.038 tables', () => {
    expect(gsm7Septets('@')).toBe(1)
    expect(gsm7Septets('€')).toBe(2)
    expect(gsm7Septets('\f')).toBe(2)
    expect(gsm7Septets('`')).toBeNull()
    expect(gsm7Septets('😀')).toBeNull()
  })

  it('cuts CR LF into two characters and keeps emoji sequences whole', () => {
    expect(characters('a\r\nb')).toEqual(['a', '\r', '\n', 'b'])
    expect(characters('x👍🏽y')).toEqual(['x', '👍🏽', 'y'])
  })
})

describe('segmentInfo properties', () => {
  const basic = Array.from('@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCXYZÄÖÑÜ§¿abcxyzäöñüà\n')
  const bmp = Array.from('ыжЖ’“”…–—á中文')

  it('counts a body of basic-table characters as 160 single, 153 concatenated', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...basic), { maxLength: 800 }), (chars) => {
        const n = chars.length
        const info = segmentInfo(chars.join(''))
        expect(info.encoding).toBe('GSM-7')
        expect(info.units).toBe(n)
        expect(info.segments).toBe(n === 0 ? 0 : n <= 160 ? 1 : Math.ceil(n / 153))
      }),
    )
  })

  it('counts a body of single-unit UCS-2 characters as 70 single, 67 concatenated', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...bmp, ...basic), { minLength: 1, maxLength: 400 }), (chars) => {
        fc.pre(chars.some((c) => bmp.includes(c)))
        const n = chars.length
        const info = segmentInfo(chars.join(''))
        expect(info.encoding).toBe('UCS-2')
        expect(info.units).toBe(n)
        expect(info.segments).toBe(n <= 70 ? 1 : Math.ceil(n / 67))
      }),
    )
  })

  it('never uses more parts than one per character, nor fewer than the units need', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (body) => {
        const info = segmentInfo(body)
        if (info.units === 0) return
        expect(info.segments).toBeGreaterThanOrEqual(Math.ceil(info.units / info.perSegment))
        expect(info.segmentUnits.every((u) => u <= info.perSegment || info.segments === 1)).toBe(true)
      }),
    )
  })
})
