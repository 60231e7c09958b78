/** A character's code point as Unicode writes it, `U+201C` (empty for an empty string). */
export function codePointName(ch: string): string {
  const cp = ch.codePointAt(0)
  return cp === undefined ? '' : `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`
}
