import { describe, expect, it } from 'vitest'
import { isDark, readPreference } from './theme'

describe('theme', () => {
  it('System follows the system; a choice wins over it', () => {
    expect(isDark('system', true)).toBe(true)
    expect(isDark('system', false)).toBe(false)
    expect(isDark('dark', false)).toBe(true)
    expect(isDark('light', true)).toBe(false)
  })
  it('reads System where storage is unavailable', () => {
    // Node has no localStorage: the same path as a browser that refuses storage.
    expect(readPreference()).toBe('system')
  })
})
