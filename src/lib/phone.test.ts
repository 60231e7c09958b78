import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { parsePhoneNumberFromString } from 'libphonenumber-js/min'
import { digitsOf, formatPhone, hasNonNanpPhone, phoneFormatting, phoneQueryDigits, toE164 } from './phone'

describe('formatPhone', () => {
  beforeAll(() => phoneFormatting())
  it('formats 11-digit North American numbers nationally', () => {
    expect(formatPhone('18323232323')).toBe('(832) 323-2323')
  })
  it('formats every NANP country the way libphonenumber does after finding the country', () => {
    // US, Canada, Bahamas, Jamaica, Puerto Rico, toll-free, and a number no country claims.
    // Then numbers outside the plan's shape (area code or exchange starting 0/1), which libphonenumber leaves alone.
    for (const raw of [
      '18323232323',
      '14165550123',
      '12423571234',
      '18765550123',
      '17875550123',
      '18005550100',
      '15555550123',
      '8329632623',
      '10123456789',
      '11234567890',
      '12125550123',
      '12120550123',
      '12121550123',
    ]) {
      const full = parsePhoneNumberFromString(toE164(raw) ?? '')
      expect(formatPhone(raw)).toBe(full?.isPossible() ? full.formatNational() : raw)
    }
  })
  it('agrees with libphonenumber on 500 spread-out North American numbers', () => {
    let x = 12345
    for (let i = 0; i < 500; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31
      const raw = `1${String(x % 10_000_000_000).padStart(10, '0')}`
      const full = parsePhoneNumberFromString(`+${raw}`)
      expect(formatPhone(raw), raw).toBe(full?.isPossible() ? full.formatNational() : raw)
    }
  })
  it('treats 10 digits as North American', () => {
    expect(formatPhone('4155550123')).toBe('(415) 555-0123')
    expect(toE164('4155550123')).toBe('+14155550123')
  })
  it('formats other country codes internationally', () => {
    expect(formatPhone('442071838750')).toBe('+44 20 7183 8750')
  })
  it('keeps what it cannot parse, and shows a dash for nothing', () => {
    expect(formatPhone('12')).toBe('12')
    expect(formatPhone('')).toBe('—')
    expect(formatPhone(null)).toBe('—')
  })
  it('digitsOf strips formatting', () => {
    expect(digitsOf('(832) 323-2323')).toBe('8323232323')
  })
  it('phoneQueryDigits reads phone-like searches as digits and leaves words alone', () => {
    expect(phoneQueryDigits('(832) 323')).toBe('832323')
    expect(phoneQueryDigits('+1 832')).toBe('1832')
    expect(phoneQueryDigits('hooks 832')).toBe('')
  })
})

describe('hasNonNanpPhone (whether an answer waits for libphonenumber)', () => {
  it('lets an answer of North American numbers through', () => {
    const answer = JSON.stringify({
      data: [
        { number: '18323232323', tid: 'PUHMGWS98301', webhook: 'https://hooks.example.com/in' },
        { number: '8329632623', type: 'local', created: '2024-03-01T10:00:00Z' },
      ],
      records: [{ system_id: 200000000001, phone: '14165550123', body: 'Call me at 555', status_code: '0' }],
    })
    expect(hasNonNanpPhone(answer)).toBe(false)
  })
  it('holds an answer with a number libphonenumber must format', () => {
    for (const phone of ['447911123456', '+44 7911 123456', '(44) 7911 123456', '33612345678', '10123456789', '12125550']) {
      expect(hasNonNanpPhone(JSON.stringify({ records: [{ phone: '18323232323' }, { phone }] })), phone).toBe(true)
    }
  })
  it('counts a date-like text too (a wait, never a wrong number)', () => {
    expect(hasNonNanpPhone('{"date":"2024-05-01"}')).toBe(true)
  })
  it('agrees with formatPhone: whatever it lets through formats the same without the library', () => {
    // Every value it passes is either too short to be a number or a well-formed NANP number,
    // which formatPhone writes without libphonenumber.
    for (const raw of ['18323232323', '8329632623', '14165550123', '1234', '(832) 323-2323']) {
      expect(hasNonNanpPhone(JSON.stringify({ phone: raw })), raw).toBe(false)
      const full = parsePhoneNumberFromString(toE164(raw) ?? '')
      expect(formatPhone(raw)).toBe(
        full?.isPossible() ? (full.countryCallingCode === '1' ? full.formatNational() : full.formatInternational()) : raw,
      )
    }
  })
  it('skips bare North American strings in the regex and still decides as a match-by-match check does', () => {
    // The reference: every phone-like string, each decided by toE164 and the NANP shape.
    const reference = (json: string) =>
      [...json.matchAll(/"\+?[\d(][\d ().-]*\d"/g)].some((m) => {
        const text = m[0].slice(1, -1)
        if (digitsOf(text).length < 5) return false
        const e164 = toE164(text)
        return !e164 || !/^\+1[2-9]\d\d[2-9]\d\d\d{4}$/.test(e164)
      })
    const phone = fc.oneof(
      fc.stringMatching(/^\+?1?[0-9]{9,11}$/),
      fc.stringMatching(/^\+?[0-9( ).-]{3,16}$/),
      fc.constantFrom('18323232323', '+18323232323', '8329632623', '1832323232', '447911123456', '(832) 323-2323'),
    )
    fc.assert(
      fc.property(fc.array(fc.record({ number: phone, tid: fc.string({ maxLength: 4 }) }), { maxLength: 6 }), (rows) => {
        const json = JSON.stringify({ data: rows })
        expect(hasNonNanpPhone(json)).toBe(reference(json))
      }),
      { numRuns: 2000 },
    )
  })
})
