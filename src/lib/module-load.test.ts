import { describe, expect, test } from 'vitest'
import { ApiError } from '../api/errors'
import { isModuleLoadError } from './module-load'

describe('isModuleLoadError', () => {
  test("each engine's words for a chunk that did not load", () => {
    for (const message of [
      'Failed to fetch dynamically imported module: http://127.0.0.1:5173/assets/search-page-AbC123.js',
      'error loading dynamically imported module: http://127.0.0.1:5173/assets/search-page-AbC123.js',
      'Importing a module script failed.',
      'Unable to preload CSS for /assets/charts-page-x.css',
    ])
      expect(isModuleLoadError(new TypeError(message)), message).toBe(true)
  })

  test('anything else is not one: an answer from the server, a render error, a non-error', () => {
    expect(isModuleLoadError(new ApiError('unreachable', 'Failed to fetch', 0))).toBe(false)
    expect(isModuleLoadError(new TypeError("Cannot read properties of undefined (reading 'rows')"))).toBe(false)
    expect(isModuleLoadError('Failed to fetch dynamically imported module')).toBe(false)
    expect(isModuleLoadError(null)).toBe(false)
  })
})
