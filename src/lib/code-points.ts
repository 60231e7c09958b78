/** A character's code point as Unicode writes it, `U+201C` (empty for an empty string). */
export function codePointName(ch: string): string {
  const cp = ch.codePointAt(0)
  return cp === undefined ? '' : `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`
}

/** Every code point of a character (a grapheme: "h" and a zero-width joiner are one), as codePointName writes each. */
export function codePointsName(ch: string): string {
  return Array.from(ch, codePointName).join(' ')
}

/** Format and control characters (bidi overrides, joiners, zero-width spaces): nothing to see, or they turn the text around them. */
const INVISIBLE = /^[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\p{Mn}]+$/u

/** A character as it may be shown on its own: itself, or "(invisible)" when it is only format or control characters. */
export function shownCharacter(ch: string): string {
  return INVISIBLE.test(ch) ? '(invisible)' : ch
}

/** Whether a text holds bidirectional controls (U+202A–U+202E, U+2066–U+2069), which can make it read as other than it is. */
export const hasBidiControls = (text: string | null): boolean => text !== null && /[\u202a-\u202e\u2066-\u2069]/.test(text)
