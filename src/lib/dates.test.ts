import { describe, expect, it } from 'vitest'
import { dayOf, dayRangeInZone, endOfDay, isoInZone, isoUtc, isWholeDay, parseApiDate, zoneLabel } from './dates'

describe('dates', () => {
  it('writes ISO UTC with a Z', () => {
    expect(isoUtc(parseApiDate('2026-11-21 12:04:00'))).toBe('2026-11-21T12:04:00Z')
    expect(isoUtc(null)).toBe('')
  })
  it('writes the shown zone with its offset', () => {
    const ms = Date.UTC(2026, 0, 2, 3, 4, 5)
    expect(isoInZone(ms, 'utc')).toBe('2026-01-02T03:04:05Z')
    expect(isoInZone(ms, 'local')).toMatch(/^2026-01-0[12]T\d\d:\d\d:05[+-]\d\d:\d\d$/)
    expect(new Date(isoInZone(ms, 'local')).getTime()).toBe(ms)
  })
  it('finds the end of a day in either zone', () => {
    expect(endOfDay('2026-02-28', 'utc')).toBe(Date.UTC(2026, 2, 1))
    expect(endOfDay('2026-12-31', 'local')).toBe(new Date(2027, 0, 1).getTime())
    expect(endOfDay('nope', 'utc')).toBeNull()
    expect(dayOf(Date.UTC(2026, 2, 1) - 1, 'utc')).toBe('2026-02-28')
  })
  it('names the zone', () => {
    expect(zoneLabel('utc')).toBe('UTC')
    expect(zoneLabel('local')).toMatch(/^Local time/)
  })

  it('turns a day range into the shown zone’s instants', () => {
    expect(dayRangeInZone('2026-03-01', '2026-03-31', 'utc')).toEqual({ from: '2026-03-01', to: '2026-03-31' })
    expect(dayRangeInZone('', '', 'utc')).toEqual({})
    const saved = process.env.TZ
    process.env.TZ = 'Pacific/Kiritimati' // UTC+14 all year
    try {
      expect(dayRangeInZone('2026-03-01', '2026-03-31', 'local')).toEqual({
        from: '2026-02-28T10:00:00.000Z',
        to: '2026-03-31T09:59:59.999Z',
      })
      expect(dayRangeInZone('', '2026-03-31', 'local')).toEqual({ to: '2026-03-31T09:59:59.999Z' })
    } finally {
      if (saved === undefined) delete process.env.TZ
      else process.env.TZ = saved
    }
  })
})

describe('isWholeDay', () => {
  it('takes a real day with a four-digit year', () => {
    expect(isWholeDay('2026-11-17')).toBe(true)
    expect(isWholeDay('2024-02-29')).toBe(true)
  })
  it('refuses what a date input reports while the year is being typed, and days that do not exist', () => {
    for (const v of ['0002-11-17', '0020-11-17', '0202-11-17', '2026-02-31', '2026-13-01', '2026-11-1', ''])
      expect(isWholeDay(v)).toBe(false)
  })
})

describe('parseApiDate reads dates as the server does', () => {
  it('refuses a day that does not exist instead of rolling it into March', () => {
    expect(parseApiDate('2026-02-31 10:00:00')).toBeNull()
    expect(parseApiDate('2026-04-31 10:00:00')).toBeNull()
  })
  it('accepts fractional seconds and a Z, to the whole second', () => {
    expect(parseApiDate('2026-11-20T12:00:00.123Z')).toBe(Date.UTC(2026, 10, 20, 12, 0, 0))
    expect(parseApiDate('2026-11-20 12:00:00.5')).toBe(Date.UTC(2026, 10, 20, 12, 0, 0))
  })
})
