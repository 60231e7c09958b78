import { parsePhoneNumberFromString } from 'libphonenumber-js/min'

/**
 * Phone numbers arrive as bare digit strings of 10 or 11 digits (field notes). 11 digits
 * starting with 1, and 10 digits, are North American; anything else is tried as an
 * international number with its country code. Formatting is libphonenumber's, not ours.
 */

const cache = new Map<string, string>()

export function toE164(raw: string): string | null {
  const digits = raw.replace(/\D/g, '')
  if (!digits) return null
  if (raw.trim().startsWith('+')) return `+${digits}`
  if (digits.length === 10) return `+1${digits}`
  return `+${digits}`
}

export function formatPhone(raw: string | null | undefined): string {
  if (raw === null || raw === undefined || raw === '') return '—'
  const hit = cache.get(raw)
  if (hit !== undefined) return hit
  const e164 = toE164(raw)
  // North American numbers (+1 and ten digits) are parsed as national numbers of one NANP
  // country. Every NANP country writes them the same way, (NPA) NXX-XXXX, so finding out
  // which country a number belongs to (libphonenumber tries each one's patterns in turn: 5–6 ms
  // for the first screenful of a table) changes nothing that is shown.
  const parsed = !e164 ? undefined : e164.length === 12 && e164.startsWith('+1') ? parsePhoneNumberFromString(e164.slice(2), 'US') : parsePhoneNumberFromString(e164)
  let out = raw
  if (parsed?.isPossible()) out = parsed.countryCallingCode === '1' ? parsed.formatNational() : parsed.formatInternational()
  if (cache.size > 50_000) cache.clear()
  cache.set(raw, out)
  return out
}

/** Digits only, so that `2323` finds `(832) 323-2323` whatever the formatting. */
export function digitsOf(text: string): string {
  return text.replace(/\D/g, '')
}

/** A search that looks like (part of) a phone number, `(832) 323` or `+1 832`, as bare digits; '' otherwise. */
export function phoneQueryDigits(query: string): string {
  return /^[\d\s()+.-]+$/.test(query) ? digitsOf(query) : ''
}

/** The first parse builds libphonenumber's metadata structures: do that in idle time, off the first paint. */
export function warmPhoneFormatting(): void {
  const run = () => void formatPhone('18005550100')
  if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 200 })
  else setTimeout(run, 0)
}
