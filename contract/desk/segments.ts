/**
 * SMS encoding and segment counts, after 3GPP TS 23.038 (the GSM 7-bit default alphabet and its
 * extension table, §6.2.1 and §6.2.1.1) and TS 23.040 (concatenated messages: a 6-octet user data
 * header leaves 153 septets or 67 UCS-2 code units of the 140 octets).
 *
 * Where the spec leaves room, this follows the rules of Twilio's open-source
 * message-segment-calculator, so the counts match what a large provider bills:
 * - a message is GSM-7 only when every character is in the default alphabet or its extension
 *   table; one other character makes the whole message UCS-2;
 * - text is cut into user-perceived characters (grapheme clusters; CR LF counts as two), and a
 *   character is never split between two segments: an extension character (escape + code, two
 *   septets) that would straddle a boundary moves whole to the next segment, and so does an
 *   emoji made of several UTF-16 code units;
 * - in UCS-2 every character costs its UTF-16 code units: one for the Basic Multilingual Plane,
 *   two for a surrogate pair (most emoji), more for a sequence such as a flag or a skin tone.
 * One deliberate difference: an empty body (an MMS with media only) is 0 segments here, where the
 * calculator answers 1; no SMS segment is sent for it.
 */

export type SmsEncoding = 'GSM-7' | 'UCS-2'

export interface SegmentInfo {
  encoding: SmsEncoding
  /** Septets for GSM-7 (extension characters count two), UTF-16 code units for UCS-2. */
  units: number
  segments: number
  /** Units a segment holds: 160 or 70 for a single segment, 153 or 67 when concatenated. */
  perSegment: number
  /** The units in each segment, in order (their sum is `units`). */
  segmentUnits: number[]
  /** The distinct characters that forced UCS-2, in order of first appearance; empty for GSM-7. */
  ucs2Chars: string[]
}

// TS 23.038 §6.2.1, code points 0x00–0x7F in order (0x1B, the escape to the extension table, is left out).
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅå' +
  'Δ_ΦΓΛΩΠΨΣΘΞÆæßÉ' +
  ' !"#¤%&\'()*+,-./' +
  '0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§' +
  '¿abcdefghijklmnopqrstuvwxyzäöñüà'

// TS 23.038 §6.2.1.1: reached through the escape, so each costs two septets. Form feed is 0x1B 0x0A.
const GSM7_EXTENSION = '\f^{}\\[~]|€'

// Septets by UTF-16 code unit (0 = not in GSM-7); the highest GSM-7 character is € (U+20AC).
const SEPTETS = new Uint8Array(0x20ad)
for (const c of GSM7_BASIC) SEPTETS[c.charCodeAt(0)] = 1
for (const c of GSM7_EXTENSION) SEPTETS[c.charCodeAt(0)] = 2

export const SINGLE = { 'GSM-7': 160, 'UCS-2': 70 } as const
export const CONCATENATED = { 'GSM-7': 153, 'UCS-2': 67 } as const

/** Septets of one character in GSM-7, or null when it has no GSM-7 form. */
export function gsm7Septets(char: string): 1 | 2 | null {
  if (char.length !== 1) return null
  const n = SEPTETS[char.charCodeAt(0)]
  return n === 1 || n === 2 ? n : null
}

// Only these make a grapheme longer than one code unit: surrogates (emoji, flags), combining
// marks, joiners and variation selectors. Without them each code unit is a character, and the
// grapheme segmenter (the slow part) is not needed. (Decomposed Hangul jamo are left out: they
// would only matter at a part boundary, and phones send precomposed syllables.)
const MARKS = /\p{M}/u

function hasJoiners(body: string): boolean {
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i)
    if ((c >= 0xd800 && c <= 0xdfff) || c === 0x200c || c === 0x200d || (c >= 0xfe00 && c <= 0xfe0f)) return true
  }
  return false
}

const segmenter = typeof Intl !== 'undefined' && 'Segmenter' in Intl ? new Intl.Segmenter('en', { granularity: 'grapheme' }) : null

/** User-perceived characters, with CR LF as two (each is its own GSM-7 character). */
export function characters(body: string): string[] {
  if (!hasJoiners(body) && !MARKS.test(body)) return body.split('')
  const out: string[] = []
  if (segmenter) {
    for (const { segment } of segmenter.segment(body)) {
      if (segment === '\r\n') out.push('\r', '\n')
      else out.push(segment)
    }
  } else {
    // Without Intl.Segmenter, code points: emoji sequences then count per code point, which only
    // matters when one would straddle a segment boundary.
    for (const c of body) out.push(c)
  }
  return out
}

/** Pack characters of the given sizes greedily, none split across segments. */
function pack(sizes: number[], capacity: number): number[] {
  const parts: number[] = []
  let current = 0
  for (const size of sizes) {
    if (current > 0 && current + size > capacity) {
      parts.push(current)
      current = 0
    }
    current += size
  }
  if (current > 0) parts.push(current)
  return parts
}

/** Encoding and segments of a body; a missing body (media only) is an empty one. */
export function segmentInfo(body: string | null | undefined): SegmentInfo {
  const chars = characters(body ?? '')
  const ucs2Chars: string[] = []
  const seen = new Set<string>()
  for (const c of chars) {
    if (gsm7Septets(c) === null && !seen.has(c)) {
      seen.add(c)
      ucs2Chars.push(c)
    }
  }
  const encoding: SmsEncoding = ucs2Chars.length > 0 ? 'UCS-2' : 'GSM-7'
  const sizes = encoding === 'GSM-7' ? chars.map((c) => gsm7Septets(c) ?? 1) : chars.map((c) => c.length)
  const units = sizes.reduce((a, b) => a + b, 0)
  if (units === 0) return { encoding, units, segments: 0, perSegment: SINGLE[encoding], segmentUnits: [], ucs2Chars }
  if (units <= SINGLE[encoding]) return { encoding, units, segments: 1, perSegment: SINGLE[encoding], segmentUnits: [units], ucs2Chars }
  const segmentUnits = pack(sizes, CONCATENATED[encoding])
  return { encoding, units, segments: segmentUnits.length, perSegment: CONCATENATED[encoding], segmentUnits, ucs2Chars }
}
