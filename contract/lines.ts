/**
 * A number's lines. The account may list one number under two tids, and each tid may serve a
 * history of its own. The index keeps each such history as a line: the number's own line is keyed
 * by the number, and every further tid that answers by the number and its place, `18323232323~2`
 * (second line) up to `~9`. The key is what the index's answers call `number`; a line's status
 * says which number it belongs to (`lineOf`) and its tid.
 */

/** A number (6 to 15 digits), or a number's further line (`~2` to `~9`). */
export const LINE_KEY = /^(\d{6,15})(?:~([2-9]))?$/

/** The key of a number's line `place` (1: the number itself). */
export function lineKey(number: string, place: number): string {
  if (!Number.isInteger(place) || place < 1 || place > 9) throw new RangeError(`a line's place is 1 to 9, not ${place}`)
  return place === 1 ? number : `${number}~${place}`
}

/** The number and place of a line's key; null for anything else. */
export function lineParts(key: string): { number: string; place: number } | null {
  const m = LINE_KEY.exec(key)
  if (!m) return null
  return { number: m[1] ?? '', place: m[2] === undefined ? 1 : Number(m[2]) }
}

/** The number a key belongs to (the key itself for a number's own line). */
export const numberOfKey = (key: string): string => lineParts(key)?.number ?? key
