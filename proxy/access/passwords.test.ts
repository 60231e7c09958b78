import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { passwordProblem } from './passwords.ts'
import { addUser } from './users.ts'
import { call, clearAccessTables, cookieFrom, ENGINES, startStack, TEST_SCRYPT, type Stack } from '../testing/access-stack.ts'

/** The password rules (NIST SP 800-63B §5.1.1.2), and that the admin routes apply them. */

describe('passwordProblem', () => {
  test.each([
    ['', 'password must be at least 12 characters long.'],
    [' '.repeat(12), 'password must not be only spaces.'],
    ['\t \u00a0'.repeat(5), 'password must not be only spaces.'],
    ['short pass', 'password must be at least 12 characters long.'],
    ['a b c d e f g', 'password must hold at least 8 characters besides spaces.'],
    ['  ten letters  ', 'password must be at least 12 characters long (leading, trailing and repeated spaces do not count).'],
    ['ten      letters', 'password must be at least 12 characters long (leading, trailing and repeated spaces do not count).'],
    ['Password123456', 'password is one of the most common passwords; choose a phrase others would not guess.'],
    ['PASSWORD 123456', 'password is one of the most common passwords; choose a phrase others would not guess.'],
    ['qwertyuiop12', 'password is one of the most common passwords; choose a phrase others would not guess.'],
    ['1qaz2wsx3edc', 'password is one of the most common passwords; choose a phrase others would not guess.'],
    ['Password 123', 'password is one of the most common passwords; choose a phrase others would not guess.'],
    ['iloveyou2024', 'password is one of the most common passwords; choose a phrase others would not guess.'],
    ['aaaaaaaaaaaaaaa', 'password must not be one short pattern repeated; choose a longer phrase.'],
    ['abcabcabcabc', 'password must not be one short pattern repeated; choose a longer phrase.'],
    ['x'.repeat(1025), 'password must be at most 1024 characters long.'],
  ])('%j is refused', (password, message) => {
    expect(passwordProblem(password)).toBe(message)
  })

  test('a password built from the user name is refused; one that merely contains it is fine', () => {
    expect(passwordProblem('Alice1234567', ['alice'])).toBe('password must not be built from the user name; choose something else.')
    expect(passwordProblem('alice long password 1', ['alice'])).toBeNull()
  })

  test.each(['correct horse battery', 'vic long password 22', 'Dünne Suppe mit Brot', '🙂🙂 a smiling phrase'])(
    '%j is accepted',
    (password) => {
      expect(passwordProblem(password)).toBeNull()
    },
  )

  test('the shipped list holds thousands of entries, each long enough to matter, stored as compared', () => {
    const lines = readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8')
      .split('\n')
      .filter(Boolean)
    expect(lines.length).toBeGreaterThan(3000)
    for (const l of lines) {
      expect(Array.from(l).length).toBeGreaterThanOrEqual(8)
      expect(l).toBe(l.toLowerCase().replace(/\s+/g, ''))
    }
  })
})

describe('the admin routes refuse weak passwords, naming the field', () => {
  const engine = ENGINES.find((e) => e.name === 'pglite')!
  let close: () => Promise<void>
  let s: Stack
  beforeAll(async () => {
    const opened = await engine.open()
    close = opened.close
    await clearAccessTables(opened.db)
    await addUser(opened.db, { name: 'alice', role: 'admin', password: 'correct horse battery' }, { scrypt: TEST_SCRYPT })
    s = await startStack(opened.db, { ACCESS: 'password' })
  }, 60_000)
  afterAll(async () => {
    await s?.close()
    await close?.()
  })

  test('adding a user or resetting a password with a common or blank password answers 400 on field password', async () => {
    const cookie = cookieFrom(
      await call(s.port, 'POST', '/api/auth/signin', { json: { name: 'alice', password: 'correct horse battery' } }),
    )
    const as = (path: string, json: unknown) => call(s.port, 'POST', path, { json, headers: { cookie } })
    for (const password of [' '.repeat(12), 'Password123456', 'bob123456789']) {
      const a = await as('/api/auth/users', { name: 'bob', role: 'viewer', password })
      expect(a.status).toBe(400)
      expect(a.json().error?.field).toBe('password')
    }
    expect((await as('/api/auth/users', { name: 'bob', role: 'viewer', password: 'a sensible long phrase' })).status).toBe(201)
    const reset = await as('/api/auth/users/bob', { password: 'qwertyuiop123' })
    expect(reset.status).toBe(400)
    expect(reset.json().error).toMatchObject({ field: 'password', message: expect.stringMatching(/most common passwords/) })
  }, 60_000)
})
