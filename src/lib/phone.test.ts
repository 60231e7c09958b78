import { describe, expect, it } from 'vitest'
import { digitsOf, formatPhone, phoneQueryDigits, toE164 } from './phone'

describe('formatPhone', () => {
  it('formats 11-digit North American numbers nationally', () => {
    expect(formatPhone('18323232323')).toBe('(832) 323-2323')
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
