/**
 * What UCS-2 costs and which characters to blame: the figures behind "the characters that cost
 * you most". A message's cost is the segments it takes now minus the segments it would take if
 * each character that forced UCS-2 were written in GSM-7 instead: its usual look-alike (a straight
 * quote for a curly one, a hyphen for a dash, three dots for an ellipsis; the substitutions of
 * provider "smart encoding" features), or one GSM-7 character where there is none (an emoji).
 */
import { characters, segmentInfo } from './segments.ts'

/** GSM-7 look-alikes for characters that often force UCS-2 by accident (pasted from a word processor). */
export const LOOK_ALIKES: Readonly<Record<string, string>> = {
  '\u2018': "'", // ‘
  '\u2019': "'", // ’
  '\u201A': "'", // ‚
  '\u201B': "'", // ‛
  '\u2032': "'", // ′
  '\u02BC': "'", // ʼ
  '\u00B4': "'", // ´
  '`': "'",
  '\u201C': '"', // “
  '\u201D': '"', // ”
  '\u201E': '"', // „
  '\u201F': '"', // ‟
  '\u2033': '"', // ″
  '\u00AB': '"', // «
  '\u00BB': '"', // »
  '\u2010': '-', // ‐
  '\u2011': '-', // ‑
  '\u2012': '-', // ‒
  '\u2013': '-', // –
  '\u2014': '-', // —
  '\u2015': '-', // ―
  '\u2212': '-', // −
  '\u2026': '...', // …
  '\u00A0': ' ', // no-break space
  '\u2002': ' ',
  '\u2003': ' ',
  '\u2009': ' ',
  '\u200A': ' ',
  '\u202F': ' ',
  '\u200B': '', // zero-width space
  '\u2060': '', // word joiner
  '\uFEFF': '', // byte-order mark
  '\t': ' ',
  '\u2022': '-', // •
  '\u02C6': '^', // ˆ
  '\u02DC': '~', // ˜
  '\u2044': '/', // ⁄
}

/** The body with every look-alike replaced (characters without one are kept). */
export function withLookAlikes(body: string): string {
  let out = ''
  for (const c of body) out += LOOK_ALIKES[c] ?? c
  return out
}

export interface EncodingCost {
  segments: number
  /** Segments if every character that forced UCS-2 were written in GSM-7. */
  segmentsAsGsm7: number
  /** segments − segmentsAsGsm7. */
  extraSegments: number
  /** The characters that forced UCS-2, each with its look-alike when it has one. */
  forcedBy: Array<{ char: string; lookAlike: string | null }>
}

export function encodingCost(body: string): EncodingCost {
  const info = segmentInfo(body)
  if (info.encoding === 'GSM-7') return { segments: info.segments, segmentsAsGsm7: info.segments, extraSegments: 0, forcedBy: [] }
  const forcing = new Set(info.ucs2Chars)
  let gsm = ''
  for (const c of characters(body)) gsm += forcing.has(c) ? (LOOK_ALIKES[c] ?? '?') : c
  const asGsm = segmentInfo(gsm)
  return {
    segments: info.segments,
    segmentsAsGsm7: asGsm.segments,
    extraSegments: info.segments - asGsm.segments,
    forcedBy: info.ucs2Chars.map((char) => ({ char, lookAlike: LOOK_ALIKES[char] ?? null })),
  }
}

export interface CharacterCost {
  char: string
  lookAlike: string | null
  /** Messages this character forced into UCS-2 (alone or with others). */
  messages: number
  /** Its share of the extra segments of those messages (shared equally among a message's forcing characters). */
  extraSegments: number
}

/** Characters ranked by the extra segments they caused over a set of bodies. */
export function costlyCharacters(bodies: Iterable<string | null | undefined>): CharacterCost[] {
  const byChar = new Map<string, CharacterCost>()
  for (const body of bodies) {
    if (!body) continue
    const cost = encodingCost(body)
    for (const { char, lookAlike } of cost.forcedBy) {
      const entry = byChar.get(char) ?? { char, lookAlike, messages: 0, extraSegments: 0 }
      entry.messages++
      entry.extraSegments += cost.extraSegments / cost.forcedBy.length
      byChar.set(char, entry)
    }
  }
  return [...byChar.values()].sort((a, b) => b.extraSegments - a.extraSegments || b.messages - a.messages || a.char.localeCompare(b.char))
}
