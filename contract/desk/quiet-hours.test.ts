import { describe, expect, it } from 'vitest'
import { AREA_CODES, NON_GEOGRAPHIC, NOTES, areaCodeOf, zoneOf } from './area-codes.ts'
import { isQuietHour, localHour, localTime, offsetMinutes, quietHourSends } from './quiet-hours.ts'

describe('area-code table', () => {
  it('covers several hundred codes, each with a zone this runtime knows', () => {
    expect(AREA_CODES.size).toBeGreaterThanOrEqual(400)
    for (const [code, { zone }] of AREA_CODES) {
      expect(code).toMatch(/^[2-9]\d\d$/)
      expect(() => new Intl.DateTimeFormat('en', { timeZone: zone }), `${code} ${zone}`).not.toThrow()
      expect(NON_GEOGRAPHIC.has(code), code).toBe(false)
    }
  })

  it('notes a majority zone for every split code it lists, and only for listed codes', () => {
    for (const code of Object.keys(NOTES)) expect(AREA_CODES.get(code)?.note, code).toBe(NOTES[code])
  })

  it.each([
    ['212', 'America/New_York'],
    ['917', 'America/New_York'],
    ['310', 'America/Los_Angeles'],
    ['469', 'America/Chicago'],
    ['702', 'America/Los_Angeles'],
    ['915', 'America/Denver'],
    ['602', 'America/Phoenix'],
    ['808', 'Pacific/Honolulu'],
    ['907', 'America/Anchorage'],
    ['850', 'America/Chicago'],
    ['317', 'America/Indiana/Indianapolis'],
    ['416', 'America/Toronto'],
    ['604', 'America/Vancouver'],
    ['306', 'America/Regina'],
    ['709', 'America/St_Johns'],
    ['787', 'America/Puerto_Rico'],
  ])('%s → %s', (code, zone) => {
    expect(AREA_CODES.get(code)?.zone).toBe(zone)
  })

  it('reads the area code from any common format and refuses what is not NANP', () => {
    expect(areaCodeOf('19175550142')).toBe('917')
    expect(areaCodeOf('9175550142')).toBe('917')
    expect(areaCodeOf('+1 (917) 555-0142')).toBe('917')
    expect(areaCodeOf('1-917-555-0142')).toBe('917')
    expect(areaCodeOf('+44 20 7946 0958')).toBeNull()
    expect(areaCodeOf('+9175550142')).toBeNull()
    expect(areaCodeOf('55501')).toBeNull()
    expect(areaCodeOf('11755501420')).toBeNull()
    expect(areaCodeOf('9171550142')).toBeNull()
    expect(areaCodeOf('')).toBeNull()
  })

  it('gives no zone to toll-free, unknown and international numbers', () => {
    expect(zoneOf('18005550142')).toBeNull()
    expect(zoneOf('18885550142')).toBeNull()
    expect(zoneOf('19995550142')).toBeNull()
    expect(zoneOf('+33 1 23 45 67 89')).toBeNull()
  })
})

describe('local time and quiet hours', () => {
  const ny = '19175550142'
  const la = '13105550142'
  const phoenix = '16025550142'
  const regina = '13065550142'
  const stJohns = '17095550142'

  it('follows New York across the spring-forward gap (8 March 2026, 2:00 → 3:00)', () => {
    expect(localTime(ny, '2026-03-08T06:59:00Z')).toMatchObject({ day: '2026-03-08', hour: 1, minute: 59, offsetMinutes: -300 })
    expect(localTime(ny, '2026-03-08T07:00:00Z')).toMatchObject({ hour: 3, minute: 0, offsetMinutes: -240 })
  })

  it('follows New York across the fall-back repeat (1 November 2026, 2:00 → 1:00)', () => {
    expect(localTime(ny, '2026-11-01T05:59:00Z')).toMatchObject({ hour: 1, minute: 59, offsetMinutes: -240 })
    expect(localTime(ny, '2026-11-01T06:00:00Z')).toMatchObject({ hour: 1, minute: 0, offsetMinutes: -300 })
  })

  it('moves the UTC edge of the window with daylight saving', () => {
    // 12:30 UTC is 8:30 in a New York summer and 7:30 in its winter.
    expect(isQuietHour(ny, '2026-07-15T12:30:00Z')).toBe(false)
    expect(isQuietHour(ny, '2026-01-15T12:30:00Z')).toBe(true)
  })

  it('treats 8:00 as allowed and 21:00 as quiet', () => {
    expect(isQuietHour(ny, '2026-01-15T12:59:00Z')).toBe(true) // 7:59
    expect(isQuietHour(ny, '2026-01-15T13:00:00Z')).toBe(false) // 8:00
    expect(isQuietHour(ny, '2026-01-16T01:59:00Z')).toBe(false) // 20:59 on the 15th
    expect(isQuietHour(ny, '2026-01-16T02:00:00Z')).toBe(true) // 21:00
    expect(localTime(ny, '2026-01-16T02:00:00Z')?.day).toBe('2026-01-15')
  })

  it('keeps Arizona and Saskatchewan on standard time all year', () => {
    expect(localHour(phoenix, '2026-07-01T15:00:00Z')).toBe(8)
    expect(localHour(phoenix, '2026-01-01T15:00:00Z')).toBe(8)
    expect(localHour(la, '2026-07-01T15:00:00Z')).toBe(8)
    expect(localHour(la, '2026-01-01T15:00:00Z')).toBe(7)
    expect(localHour(regina, '2026-07-01T14:00:00Z')).toBe(8)
    expect(localHour(regina, '2026-01-01T14:00:00Z')).toBe(8)
  })

  it('handles Newfoundland’s half-hour offset and its change at 5:30 UTC', () => {
    expect(localTime(stJohns, '2026-01-15T11:30:00Z')).toMatchObject({ hour: 8, minute: 0, offsetMinutes: -210 })
    expect(localTime(stJohns, '2026-03-08T05:29:00Z')).toMatchObject({ hour: 1, minute: 59, offsetMinutes: -210 })
    expect(localTime(stJohns, '2026-03-08T05:30:00Z')).toMatchObject({ hour: 3, minute: 0, offsetMinutes: -150 })
  })

  it('gives the same offset from the cache as from a fresh computation', () => {
    const t = Date.UTC(2026, 2, 8, 6, 45)
    expect(offsetMinutes('America/New_York', t)).toBe(-300)
    expect(offsetMinutes('America/New_York', t + 10 * 60_000)).toBe(-300)
    expect(offsetMinutes('America/New_York', t + 15 * 60_000)).toBe(-240)
  })

  it('agrees with Intl every 105 minutes over 2024–2026, in zones with and without daylight saving (the per-day cache)', () => {
    const zones = ['America/New_York', 'America/St_Johns', 'America/Phoenix', 'America/Regina', 'Pacific/Honolulu', 'America/Anchorage']
    let checked = 0
    for (const zone of zones) {
      const f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
      })
      for (let ms = Date.UTC(2024, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 105 * 60_000) {
        const parts = { year: 0, month: 0, day: 0, hour: 0, minute: 0 }
        for (const p of f.formatToParts(ms)) if (p.type in parts) parts[p.type as keyof typeof parts] = Number(p.value)
        const direct = (Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute) - ms) / 60_000
        expect(offsetMinutes(zone, ms), `${zone} ${new Date(ms).toISOString()}`).toBe(direct)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(80_000)
  })

  it('answers null when the zone cannot be told', () => {
    expect(isQuietHour('18005550142', '2026-01-16T02:00:00Z')).toBeNull()
    expect(localHour('+442079460958', '2026-01-16T02:00:00Z')).toBeNull()
  })

  it('takes a custom window and refuses a nonsensical one, naming the field', () => {
    expect(isQuietHour(ny, '2026-01-15T14:30:00Z', { start: 10, end: 20 })).toBe(true) // 9:30
    expect(() => isQuietHour(ny, '2026-01-15T14:30:00Z', { start: 10, end: 9 })).toThrow(/window\.end/)
    expect(() => isQuietHour(ny, '2026-01-15T14:30:00Z', { start: -1, end: 9 })).toThrow(/window\.start/)
    expect(() => localHour(ny, 'not a date')).toThrow(/date/)
  })

  it('accepts Date objects and epoch milliseconds alike', () => {
    const ms = Date.UTC(2026, 6, 1, 15)
    expect(localHour(la, ms)).toBe(8)
    expect(localHour(la, new Date(ms))).toBe(8)
  })
})

describe('quietHourSends', () => {
  it('lists outbound messages in the recipient’s quiet hours, skipping inbound and unknown zones', () => {
    const base = { number: '18323232323', body: 'x' }
    const messages = [
      { ...base, party: '19175550142', direction: 'outbound', date: '2026-01-16T02:30:00Z' }, // 21:30 New York: quiet
      { ...base, party: '13105550142', direction: 'outbound', date: '2026-01-16T02:30:00Z' }, // 18:30 Los Angeles
      { ...base, party: '19175550142', direction: 'inbound', date: '2026-01-16T02:30:00Z' },
      { ...base, party: '18005550142', direction: 'outbound', date: '2026-01-16T02:30:00Z' }, // toll-free: unknown
      { ...base, party: '13105550142', direction: 'outbound', date: '2026-01-16T14:30:00Z' }, // 6:30 Los Angeles: quiet
    ]
    const r = quietHourSends(messages)
    expect(r.map((x) => [x.message.party, x.local.day, x.local.hour, x.local.minute])).toEqual([
      ['19175550142', '2026-01-15', 21, 30],
      ['13105550142', '2026-01-16', 6, 30],
    ])
    expect(() => quietHourSends(messages, { start: 9, end: 9 })).toThrow(/window\.end/)
  })
})
