import { describe, expect, test } from 'vitest'
import { safeNext } from './sign-in-page'

describe('safeNext: where sign-in may send the browser', () => {
  test('paths on this site are kept', () => {
    expect(safeNext('/numbers/18323232323?tid=PUHMGWS98301&page=3')).toBe('/numbers/18323232323?tid=PUHMGWS98301&page=3')
    expect(safeNext('/admin/access-log?user=vic')).toBe('/admin/access-log?user=vic')
  })
  test('anything that could leave the site, or loop back to sign-in, goes home', () => {
    for (const bad of [
      null,
      '',
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      '/\nx',
      '/signin',
      '/signin?next=/',
    ])
      expect(safeNext(bad), String(bad)).toBe('/')
  })
})
