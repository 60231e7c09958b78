import { describe, expect, it } from 'vitest'
import { codePointName } from './code-points'

describe('codePointName', () => {
  it('names a character by its code point, four digits at least, an astral one whole', () => {
    expect(codePointName('A')).toBe('U+0041')
    expect(codePointName('\u201c')).toBe('U+201C')
    expect(codePointName('😀')).toBe('U+1F600')
    expect(codePointName('')).toBe('')
  })
})
