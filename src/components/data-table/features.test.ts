import { describe, expect, it } from 'vitest'
import { columnLabel, exportTable, parseSort, sortableIds, sortRows, sortToParam, type ColumnShape } from './features'

const rows = [
  { n: 'b', v: 2 },
  { n: 'A', v: 1 },
  { n: 'c', v: 2 },
  { n: 'a', v: 3 },
]
type R = (typeof rows)[number]
const columns: Array<ColumnShape<R>> = [
  { id: 'n', header: 'Name', meta: { exportValue: (r) => r.n } },
  { id: 'v', header: 'Value', meta: { label: 'The value', exportValue: (r) => String(r.v), sortValue: (r) => r.v } },
  { id: 'x', header: () => 'not a string' },
]

describe('sortRows', () => {
  it('returns the rows as they are without a sort', () => {
    expect(sortRows(rows, [], columns)).toBe(rows)
  })
  it('sorts strings case-insensitively and keeps ties in order', () => {
    expect(sortRows(rows, [{ id: 'n', desc: false }], columns).map((r) => r.n)).toEqual(['A', 'a', 'b', 'c'])
  })
  it('sorts numbers descending, ties stable', () => {
    expect(sortRows(rows, [{ id: 'v', desc: true }], columns).map((r) => r.n)).toEqual(['a', 'b', 'c', 'A'])
  })
  it('sorts by the export value when the column gives no sort value', () => {
    expect(sortRows(rows, [{ id: 'n', desc: true }], columns).map((r) => r.n)).toEqual(['c', 'b', 'A', 'a'])
  })
  it('ignores an unknown column, and one with nothing to sort by', () => {
    expect(sortRows(rows, [{ id: 'x', desc: false }], columns)).toBe(rows)
    expect(sortRows(rows, [{ id: 'y', desc: false }], columns)).toBe(rows)
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

describe('columns that describe themselves', () => {
  it('are named by their label, else their header text, else their id', () => {
    expect(columns.map(columnLabel)).toEqual(['Name', 'The value', 'x'])
  })
  it('export the shown columns in the order asked, by their export values', () => {
    expect(exportTable(columns, ['v', 'n', 'x'], rows.slice(0, 2))).toEqual({
      header: ['The value', 'Name', 'x'],
      rows: [
        ['2', 'b', ''],
        ['1', 'A', ''],
      ],
    })
  })
  it('are sortable when they say what to sort by', () => {
    expect(sortableIds(columns)).toEqual(['n', 'v'])
  })
})
