import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isRealDay, upstreamDateIso, upstreamDateMs, upstreamStatusCode } from './upstream-values'

const pad = (n: number, w = 2) => String(n).padStart(w, '0')
const instant = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
const wire = (d: Date) =>
  `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
const wholeSeconds = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z')
const daysIn = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate()

describe('upstream dates', () => {
  it('read every real instant in the published form, in UTC, to the second', () => {
    fc.assert(
      fc.property(instant, (d) => {
        expect(upstreamDateIso(wire(d))).toBe(wholeSeconds(d))
        expect(upstreamDateMs(wire(d))).toBe(Math.floor(d.getTime() / 1000) * 1000)
      }),
    )
  })

  it('tolerate a T, fractional seconds, a trailing Z and spaces around, and mean the same second', () => {
    const frac = fc.stringMatching(/^\.\d{1,9}$/)
    fc.assert(
      fc.property(instant, fc.boolean(), fc.option(frac), fc.boolean(), fc.constantFrom('', ' ', '\t'), (d, t, f, z, sp) => {
        const raw = `${sp}${wire(d).replace(' ', t ? 'T' : ' ')}${f ?? ''}${z ? 'Z' : ''}${sp}`
        expect(upstreamDateIso(raw)).toBe(wholeSeconds(d))
      }),
    )
    expect(upstreamDateIso('2026-11-20T12:00:00.123Z')).toBe('2026-11-20T12:00:00Z')
  })

  it('refuse a day past the end of its month instead of rolling it into the next (2026-02-31)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1970, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), (y, m, d) => {
        const day = `${y}-${pad(m)}-${pad(d)}`
        const real = d <= daysIn(y, m)
        expect(isRealDay(day)).toBe(real)
        expect(upstreamDateIso(`${day} 10:00:00`) !== null).toBe(real)
      }),
    )
    expect(upstreamDateIso('2026-02-31 10:00:00')).toBeNull()
    expect(upstreamDateIso('2024-02-29 10:00:00')).toBe('2024-02-29T10:00:00Z')
    expect(upstreamDateIso('2025-02-29 10:00:00')).toBeNull()
    // Year 0000 (the MySQL zero date's year) is a day to JavaScript and none to PostgreSQL.
    expect(upstreamDateIso('0000-01-01 00:00:00')).toBeNull()
    expect(upstreamDateIso('0001-01-01 00:00:00')).toBe('0001-01-01T00:00:00Z')
  })

  it('refuse times out of range and anything that is not a date', () => {
    for (const raw of [
      '2026-11-20 24:00:00',
      '2026-11-20 12:60:00',
      '2026-11-20 12:00:60',
      '2026-11-20',
      '20/11/2026 12:00:00',
      '',
      null,
      42,
    ])
      expect(upstreamDateIso(raw)).toBeNull()
  })
})

describe('upstream status codes', () => {
  it('read the published example and bare codes', () => {
    expect(upstreamStatusCode('200 [Possible status and meaning: 200 = success, 400 = error]')).toBe(200)
    expect(upstreamStatusCode('400 [Possible status and meaning: 200 = success, 400 = error]')).toBe(400)
    expect(upstreamStatusCode('503')).toBe(503)
    expect(upstreamStatusCode(' 200 ok')).toBe(200)
  })

  it('are exactly three leading digits: any code with any text after a non-digit keeps its code', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999 }), fc.string(), (code, rest) => {
        const tail = /^\d/.test(rest) ? ` ${rest}` : rest
        expect(upstreamStatusCode(`${pad(code, 3)}${tail}`)).toBe(code)
      }),
    )
  })

  it('give no code for one, two or four digits or no digits', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^(\d{1,2}|\d{4,6})$/), fc.stringMatching(/^(| .*)$/), (digits, rest) => {
        expect(upstreamStatusCode(`${digits}${rest}`)).toBeNull()
      }),
    )
    for (const raw of ['pending', '', null, 200, '20 ok', '2000']) expect(upstreamStatusCode(raw)).toBeNull()
  })
})
