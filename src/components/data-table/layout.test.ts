import { describe, expect, it } from 'vitest'
import { tableMinWidth } from './layout'

describe('tableMinWidth', () => {
  it('adds fixed widths and gives auto columns their minimum', () => {
    expect(tableMinWidth([{ width: '10rem' }, { width: '100px' }, { width: 'auto' }])).toBe(160 + 100 + 192)
    expect(tableMinWidth([{ width: 'auto', minWidth: '20rem' }, {}])).toBe(320 + 192)
  })
  it('counts percentages as nothing: they scale with the table', () => {
    expect(tableMinWidth([{ width: '22%' }, { width: '5rem' }])).toBe(80)
  })
})
