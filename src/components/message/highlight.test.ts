import { describe, expect, it } from 'vitest'
import { splitMatches } from './highlight'

describe('splitMatches', () => {
  it('marks every case-insensitive match', () => {
    expect(splitMatches('Order ORDER order', 'order')).toEqual([
      { text: 'Order', match: true },
      { text: ' ', match: false },
      { text: 'ORDER', match: true },
      { text: ' ', match: false },
      { text: 'order', match: true },
    ])
  })
  it('keeps markup-looking text as text', () => {
    expect(splitMatches('<b>hi</b>', 'hi')).toEqual([
      { text: '<b>', match: false },
      { text: 'hi', match: true },
      { text: '</b>', match: false },
    ])
  })
  it('leaves text alone with no needle', () => {
    expect(splitMatches('abc', '  ')).toEqual([{ text: 'abc', match: false }])
  })
})
