import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { IDLE_HEADER } from '../../contract/roles.ts'
import type { OpenedDb } from '../db/open.ts'
import { addUser } from './users.ts'
import { call, clearAccessTables, cookieFrom, ENGINES, startStack, TEST_SCRYPT } from '../testing/access-stack.ts'

/** The idle timeout runs from the true last use, to the millisecond, on a moved clock. */

const PASSWORD = 'correct horse battery'

describe.each(ENGINES)('exact idle timeout on $name', (engine) => {
  let db: OpenedDb
  let closeDb: () => Promise<void>
  beforeAll(async () => {
    const opened = await engine.open()
    db = opened.db
    closeDb = opened.close
    await clearAccessTables(db)
    await addUser(db, { name: 'alice', role: 'admin', password: PASSWORD }, { scrypt: TEST_SCRYPT })
  }, 60_000)
  afterAll(async () => closeDb?.())

  test('a use a few seconds after sign-in moves the end: one millisecond before it the session holds, at it the session ends', async () => {
    const s = await startStack(db, { ACCESS: 'password', SESSION_IDLE_MIN: '1' })
    try {
      const cookie = cookieFrom(await call(s.port, 'POST', '/api/auth/signin', { json: { name: 'alice', password: PASSWORD } }))
      const me = async () => (await call(s.port, 'GET', '/api/auth/me', { headers: { cookie } })).json().user
      // Used 5 s and 25 s after sign-in: the idle minute runs from the second use.
      s.clock.now += 5_000
      expect(await me()).toEqual({ name: 'alice', role: 'admin' })
      s.clock.now += 20_000
      expect(await me()).toEqual({ name: 'alice', role: 'admin' })
      s.clock.now += 59_999
      expect(await me()).toEqual({ name: 'alice', role: 'admin' })
      s.clock.now += 60_000
      expect(await me()).toBeNull()
      expect((await db.query('SELECT 1 FROM sessions')).rows).toHaveLength(0)
      // A clock behind the last use (another server's) never moves it back.
      const again = cookieFrom(await call(s.port, 'POST', '/api/auth/signin', { json: { name: 'alice', password: PASSWORD } }))
      s.clock.now -= 30_000
      expect((await call(s.port, 'GET', '/api/auth/me', { headers: { cookie: again } })).json().user).not.toBeNull()
      s.clock.now += 30_000 + 59_999
      expect((await call(s.port, 'GET', '/api/auth/me', { headers: { cookie: again } })).json().user).not.toBeNull()
      s.clock.now += 60_000
      expect((await call(s.port, 'GET', '/api/auth/me', { headers: { cookie: again } })).json().user).toBeNull()
    } finally {
      await s.close()
    }
  }, 60_000)

  test("the app's requests made while its person is idle are checked, not counted as use: an open page's polls do not hold off the sign-out", async () => {
    const s = await startStack(db, { ACCESS: 'password', SESSION_IDLE_MIN: '1' })
    try {
      // An hour past the test above (its sign-ins count towards the address's limit in their window).
      s.clock.now += 3_600_000
      const cookie = cookieFrom(await call(s.port, 'POST', '/api/auth/signin', { json: { name: 'alice', password: PASSWORD } }))
      const poll = async () => (await call(s.port, 'GET', '/api/auth/me', { headers: { cookie, [IDLE_HEADER]: '1' } })).json().user
      // Polled every 10 s for 50 s: each answered as alice, none moving the last use.
      for (let i = 0; i < 5; i++) {
        s.clock.now += 10_000
        expect(await poll()).toEqual({ name: 'alice', role: 'admin' })
      }
      s.clock.now += 9_999
      expect(await poll()).toEqual({ name: 'alice', role: 'admin' })
      // A minute after sign-in, the last use: the session ends, for a poll as for anything else.
      s.clock.now += 1
      expect(await poll()).toBeNull()
      expect((await call(s.port, 'GET', '/api/auth/me', { headers: { cookie } })).json().user).toBeNull()
    } finally {
      await s.close()
    }
  }, 60_000)
})
