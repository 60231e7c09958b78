// @vitest-environment happy-dom
import { expect, test } from 'vitest'
import { IDLE_HEADER } from '../../contract/roles'
import { ACTIVE_MS, holdActive, withIdleMark } from './client'

/** Lets the clock move past the last input, so that an input that was not recorded shows. */
const later = () => new Promise((r) => setTimeout(r, 25))

test('a request made while the person has not acted lately is marked, so the server does not count it as use of the session', async () => {
  const t0 = Date.now()
  // Just loaded: the person is active; their headers go as they are.
  const fresh = withIdleMark({ accept: 'application/json' }, t0)
  expect(fresh.get('accept')).toBe('application/json')
  expect(fresh.has(IDLE_HEADER)).toBe(false)
  // A poll past ACTIVE_MS without a key, click or touch: marked.
  expect(withIdleMark({ accept: 'application/json' }, t0 + ACTIVE_MS + 1).get(IDLE_HEADER)).toBe('1')
  // A key pressed: active again from then. The times are counted from just before the key (the
  // handler's own clock reads that or later), so a slow machine between two lines changes nothing.
  await later()
  const pressed = Date.now()
  window.dispatchEvent(new KeyboardEvent('keydown', { key: 'j' }))
  expect(withIdleMark(undefined, pressed + ACTIVE_MS - 1).has(IDLE_HEADER)).toBe(false)
  expect(withIdleMark(undefined, Date.now() + ACTIVE_MS + 1_000).get(IDLE_HEADER)).toBe('1')
})

test('while work the person started runs (an export), its requests count as use; back in the tab counts as acting', async () => {
  const past = Date.now() + ACTIVE_MS + 5_000
  const release = holdActive()
  expect(withIdleMark(undefined, past).has(IDLE_HEADER)).toBe(false)
  release()
  release() // a second release changes nothing
  expect(withIdleMark(undefined, past).get(IDLE_HEADER)).toBe('1')
  await later()
  const back = Date.now()
  window.dispatchEvent(new PopStateEvent('popstate'))
  expect(withIdleMark(undefined, back + ACTIVE_MS - 1).has(IDLE_HEADER)).toBe(false)
})
