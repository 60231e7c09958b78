import { describe, expect, it } from 'vitest'
import { parseSort, sortRows, sortToParam } from './features'

const rows = [
  { n: 'b', v: 2 },
  { n: 'A', v: 1 },
  { n: 'c', v: 2 },
  { n: 'a', v: 3 },
]
const values = { n: (r: (typeof rows)[number]) => r.n, v: (r: (typeof rows)[number]) => r.v }

describe('sortRows', () => {
  it('returns the rows as they are without a sort', () => {
    expect(sortRows(rows, [], values)).toBe(rows)
  })
  it('sorts strings case-insensitively and keeps ties in order', () => {
    expect(sortRows(rows, [{ id: 'n', desc: false }], values).map((r) => r.n)).toEqual(['A', 'a', 'b', 'c'])
  })
  it('sorts numbers descending, ties stable', () => {
    expect(sortRows(rows, [{ id: 'v', desc: true }], values).map((r) => r.n)).toEqual(['a', 'b', 'c', 'A'])
  })
  it('ignores an unknown column', () => {
    expect(sortRows(rows, [{ id: 'x', desc: false }], values)).toBe(rows)
  })
})

describe('sort in the query string', () => {
  it('round-trips and refuses unknown columns', () => {
    expect(parseSort('number.desc', ['number'])).toEqual([{ id: 'number', desc: true }])
    expect(parseSort('evil.asc', ['number'])).toEqual([])
    expect(sortToParam([{ id: 'number', desc: false }])).toBe('number.asc')
    expect(sortToParam([])).toBeNull()
  })
})
