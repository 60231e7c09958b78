import { useSyncExternalStore } from 'react'
import { lineParts } from '../../contract/lines'

/**
 * Phone numbers arrive as bare digit strings of 10 or 11 digits (field notes). 11 digits
 * starting with 1, and 10 digits, are North American; anything else is tried as an
 * international number with its country code. Formatting is libphonenumber's, not ours.
 *
 * libphonenumber (with its metadata, ~43 KiB gzip) is not in the entry chunk, and is not fetched
 * until something needs it: North American numbers never do (below). The API client
 * (src/api/client.ts) holds an answer until it is here (`phoneFormatting()`, which starts the
 * download) only when the answer holds a phone-like text that is not North American
 * (`needsPhoneLibrary`): no number in an answer ever renders unformatted, and an all-NANP account
 * (the simulator's) neither waits for the chunk nor spends a slow link's first seconds on it.
 * Otherwise it is fetched once the first page is quiet (app.tsx `preloadPages`). If it cannot load,
 * a number libphonenumber would format stays as it came.
 */
const cache = new Map<string, string>()
type PhoneLibrary = typeof import('libphonenumber-js/min')
let library: PhoneLibrary | null = null
let loading: Promise<void> | null = null
const listeners = new Set<() => void>()

/** Starts loading libphonenumber (once); resolves when it is loaded or failed to load; never rejects. */
export function phoneFormatting(): Promise<void> {
  loading ??= import('libphonenumber-js/min').then(
    (m) => {
      library = m
      cache.clear()
      for (const l of listeners) l()
    },
    () => undefined,
  )
  return loading
}

/** libphonenumber once loaded (phoneFormatting), null before or when it could not load. */
export function phoneLibrary(): PhoneLibrary | null {
  return library
}

const subscribe = (l: () => void) => {
  listeners.add(l)
  return () => void listeners.delete(l)
}
const loaded = () => library !== null

/**
 * Re-renders its component once libphonenumber has loaded. The app's layout calls it, so a
 * number that a page took from its URL and formatted before any answer (a history whose answer
 * is an error, say) is written again, formatted, when the library lands.
 */
export function usePhoneLibrary(): boolean {
  return useSyncExternalStore(subscribe, loaded, loaded)
}

/**
 * A JSON string value that could be a phone number (digits with phone punctuation, an optional
 * +) and is not one of the bare North American forms the answers nearly always hold (10 or 11
 * digits, or +1 and 10): the regex engine skips those by itself, which makes the scan of a
 * 10,000-number answer about 1.5 ms instead of 5–9 ms (most of it was handling each match).
 */
const PHONE_LIKE = /"(?!(?:\+?1)?[2-9]\d\d[2-9]\d{6}")\+?[\d(][\d ().-]*\d"/g

/** Whether a JSON answer must wait for libphonenumber: it is not loaded yet and the answer needs it. */
export function needsPhoneLibrary(json: string): boolean {
  return library === null && hasNonNanpPhone(json)
}

/**
 * Whether a JSON text holds a phone-like string that only libphonenumber formats (anything but a
 * well-formed North American number). Errs towards true: a date such as "2024-05-01" counts,
 * which only costs the wait.
 */
export function hasNonNanpPhone(json: string): boolean {
  for (const m of json.matchAll(PHONE_LIKE)) {
    const text = m[0].slice(1, -1)
    const digits = digitsOf(text)
    if (digits.length < 5) continue // too short to be a possible number: libphonenumber leaves it as it is too
    const e164 = toE164(text)
    if (!e164 || !NANP.test(e164)) return true
  }
  return false
}

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
  // A number's further line (contract/lines.ts: the history of a second tid it is listed under).
  const line = raw.includes('~') ? lineParts(raw) : null
  if (line && line.place > 1) return `${formatPhone(line.number)} · line ${line.place}`
  const e164 = toE164(raw)
  const nanp = e164 ? NANP.exec(e164) : null
  // A well-formed North American number is written (NPA) NXX-XXXX in every NANP country. That
  // is exactly what libphonenumber prints for it (the unit tests compare the two), without its
  // search for which NANP country the number belongs to: ~0.25 ms a number on cold code, 5 ms
  // for the first screenful of a table. Everything else goes through libphonenumber.
  if (nanp) return remember(raw, `(${nanp[1]}) ${nanp[2]}-${nanp[3]}`)
  if (!library) {
    // Not kept in the cache: once the library is here, the next render formats it.
    void phoneFormatting()
    return raw
  }
  const parsed = e164 ? library.parsePhoneNumberFromString(e164) : undefined
  let out = raw
  if (parsed?.isPossible()) out = parsed.countryCallingCode === '1' ? parsed.formatNational() : parsed.formatInternational()
  return remember(raw, out)
}

/** +1, then an area code and exchange that start with 2–9 (NANP numbering plan). */
const NANP = /^\+1([2-9]\d\d)([2-9]\d\d)(\d{4})$/

function remember(raw: string, out: string): string {
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
