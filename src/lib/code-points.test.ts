import { describe, expect, it } from 'vitest'
import { codePointName, codePointsName, hasBidiControls, shownCharacter } from './code-points'

describe('codePointName', () => {
  it('names a character by its code point, four digits at least, an astral one whole', () => {
    expect(codePointName('A')).toBe('U+0041')
    expect(codePointName('\u201c')).toBe('U+201C')
    expect(codePointName('😀')).toBe('U+1F600')
    expect(codePointName('')).toBe('')
  })
})

describe('a character shown on its own', () => {
  it('names every code point of a grapheme, and shows format characters as invisible', () => {
    // "h" with a zero-width joiner is one grapheme: it was named U+0068, the letter alone.
    expect(codePointsName('h\u200d')).toBe('U+0068 U+200D')
    expect(codePointsName('\u202e')).toBe('U+202E')
    expect(shownCharacter('\u202e')).toBe('(invisible)')
    expect(shownCharacter('\u200d')).toBe('(invisible)')
    expect(shownCharacter('\u2019')).toBe('\u2019')
    expect(shownCharacter('h\u200d')).toBe('h\u200d')
    expect(hasBidiControls('invoice\u202egnp.exe')).toBe(true)
    expect(hasBidiControls('plain text')).toBe(false)
    expect(hasBidiControls(null)).toBe(false)
  })
})
