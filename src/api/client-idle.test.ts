// @vitest-environment happy-dom
import { expect, test } from 'vitest'
import { IDLE_HEADER } from '../../contract/roles'
import { ACTIVE_MS, holdActive, withIdleMark } from './client'

test('a request made while the person has not acted lately is marked, so the server does not count it as use of the session', () => {
  const t0 = Date.now()
  // Just loaded: the person is active; their headers go as they are.
  const fresh = withIdleMark({ accept: 'application/json' }, t0)
  expect(fresh.get('accept')).toBe('application/json')
  expect(fresh.has(IDLE_HEADER)).toBe(false)
  // A poll past ACTIVE_MS without a key, click or touch: marked.
  expect(withIdleMark({ accept: 'application/json' }, t0 + ACTIVE_MS + 1).get(IDLE_HEADER)).toBe('1')
  // A key pressed: active again from then.
  window.dispatchEvent(new KeyboardEvent('keydown', { key: 'j' }))
  expect(withIdleMark(undefined, Date.now() + ACTIVE_MS - 1).has(IDLE_HEADER)).toBe(false)
  expect(withIdleMark(undefined, Date.now() + ACTIVE_MS + 1_000).get(IDLE_HEADER)).toBe('1')
})

test('while work the person started runs (an export), its requests count as use; back in the tab counts as acting', () => {
  const later = Date.now() + ACTIVE_MS + 5_000
  const release = holdActive()
  expect(withIdleMark(undefined, later).has(IDLE_HEADER)).toBe(false)
  release()
  release() // a second release changes nothing
  expect(withIdleMark(undefined, later).get(IDLE_HEADER)).toBe('1')
  window.dispatchEvent(new PopStateEvent('popstate'))
  expect(withIdleMark(undefined, Date.now() + ACTIVE_MS - 1).has(IDLE_HEADER)).toBe(false)
})
