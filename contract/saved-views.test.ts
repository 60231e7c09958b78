import { describe, expect, it } from 'vitest'
import { dayInZone, daysBefore, isTimeZone, resolveRange, startOfDayIn } from './saved-views.ts'

describe('saved views: relative ranges and days in a zone', () => {
  const at = Date.parse('2026-11-26T18:00:00Z')

  it('turns a range into the days of the zone shown, today included', () => {
    expect(resolveRange('today', at, 'UTC')).toEqual({ from: '2026-11-26', to: '2026-11-26' })
    expect(resolveRange('last-7-days', at, 'UTC')).toEqual({ from: '2026-11-20', to: '2026-11-26' })
    expect(resolveRange('last-30-days', at, 'UTC')).toEqual({ from: '2026-10-28', to: '2026-11-26' })
    // Already the 27th in Auckland (UTC+13).
    expect(resolveRange('last-7-days', at, 'Pacific/Auckland')).toEqual({ from: '2026-11-21', to: '2026-11-27' })
    // Across a month and a year boundary, by the calendar.
    expect(daysBefore('2027-01-03', 6)).toBe('2026-12-28')
    expect(daysBefore('2026-03-01', 1)).toBe('2026-02-28')
  })

  it('finds the first instant of a day in a zone, on daylight-saving days too', () => {
    expect(new Date(startOfDayIn('2026-11-20', 'UTC')).toISOString()).toBe('2026-11-20T00:00:00.000Z')
    expect(new Date(startOfDayIn('2026-11-20', 'America/Los_Angeles')).toISOString()).toBe('2026-11-20T08:00:00.000Z')
    expect(new Date(startOfDayIn('2026-07-20', 'America/Los_Angeles')).toISOString()).toBe('2026-07-20T07:00:00.000Z')
    // Los Angeles moves to summer time at 02:00 on 2026-03-08: that day still starts at 08:00 UTC, the next at 07:00.
    expect(new Date(startOfDayIn('2026-03-08', 'America/Los_Angeles')).toISOString()).toBe('2026-03-08T08:00:00.000Z')
    expect(new Date(startOfDayIn('2026-03-09', 'America/Los_Angeles')).toISOString()).toBe('2026-03-09T07:00:00.000Z')
    expect(new Date(startOfDayIn('2026-11-21', 'Pacific/Auckland')).toISOString()).toBe('2026-11-20T11:00:00.000Z')
    for (const zone of ['UTC', 'Europe/Paris', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Chatham'])
      for (const day of ['2026-01-15', '2026-03-29', '2026-10-25', '2026-11-20']) {
        const start = startOfDayIn(day, zone)
        expect(dayInZone(start, zone), `${zone} ${day}`).toBe(day)
        expect(dayInZone(start - 1, zone), `${zone} ${day}`).toBe(daysBefore(day, 1))
      }
    expect(() => startOfDayIn('2026-02-30', 'UTC')).toThrow(RangeError)
  })

  it('knows a zone name from anything else', () => {
    expect(isTimeZone('Europe/Paris')).toBe(true)
    expect(isTimeZone('UTC')).toBe(true)
    expect(isTimeZone('Mars/Olympus')).toBe(false)
    expect(isTimeZone('../etc/passwd')).toBe(false)
    expect(isTimeZone('')).toBe(false)
  })
})
