import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { OpenedDb } from '../db/open.ts'
import { addressKey, createCheckGate, DEFAULT_LIMITS, delayAfter, type LimitRules } from './limits.ts'
import { knownDevice } from './devices.ts'
import { DEFAULT_SCRYPT } from './passwords.ts'
import { addUser } from './users.ts'
import { call, clearAccessTables, ENGINES, startStack, TEST_SCRYPT, type Stack } from '../testing/access-stack.ts'

/**
 * Sign-in limits over HTTP against both engines: throttled by (name, address) and by address
 * with growing delays, never by name alone; attempts counted before any password is checked, so
 * a parallel race checks no more passwords than the limit allows; bounded concurrent checks.
 */

const PASSWORD = 'correct horse battery'
const SEC = 1000
/** Behind a trusted proxy, so each test can speak from several client addresses. */
const PROXIED = { ACCESS: 'password', TRUST_PROXY: '1', TRUSTED_PROXIES: '127.0.0.1' }
/** A queue long enough that a race reaches the database limit rather than the concurrency bound. */
const RACE_LIMITS: LimitRules = { ...DEFAULT_LIMITS, checks: { concurrent: 4, queue: 100, perAddress: 100, reserved: 0 } }

const signIn = (s: Stack, name: string, password: string, from?: string) =>
  call(s.port, 'POST', '/api/auth/signin', { json: { name, password }, headers: from ? { 'x-forwarded-for': from } : {} })

test('delays double after the free failures and are capped', () => {
  const t = DEFAULT_LIMITS.pair
  expect([4, 5, 6, 7].map((n) => delayAfter(t, n))).toEqual([0, 30 * SEC, 60 * SEC, 120 * SEC])
  expect(delayAfter(t, 500)).toBe(t.maxDelayMs)
  // One IPv6 host holds a /64: its addresses count as one.
  expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:db8:1:2::ffff'))
  expect(addressKey('2001:db8:1:2:aaaa::1')).not.toBe(addressKey('2001:db8:1:3::1'))
  expect(addressKey('203.0.113.7')).toBe('203.0.113.7')
})

describe.each(ENGINES)('sign-in limits on $name', (engine) => {
  let db: OpenedDb
  let closeDb: () => Promise<void>
  let stacks: Stack[] = []
  let checks = 0
  const open = async (env: Record<string, string> = PROXIED, limits: LimitRules = RACE_LIMITS, on: OpenedDb = db) => {
    const s = await startStack(on, env, { limits, onPasswordCheck: () => checks++ })
    stacks.push(s)
    return s
  }

  beforeAll(async () => {
    const opened = await engine.open()
    db = opened.db
    closeDb = opened.close
  }, 60_000)
  afterAll(async () => closeDb?.())
  beforeEach(async () => {
    checks = 0
    await clearAccessTables(db)
    await addUser(db, { name: 'admin', role: 'admin', password: PASSWORD }, { scrypt: TEST_SCRYPT })
    await addUser(db, { name: 'vic', role: 'viewer', password: PASSWORD }, { scrypt: TEST_SCRYPT })
  })
  afterEach(async () => {
    for (const s of stacks) await s.close()
    stacks = []
  })

  test('a stranger guessing the admin from address A never stops the admin signing in from address B', async () => {
    const s = await open()
    const answers = []
    for (let i = 0; i < 8; i++) answers.push((await signIn(s, 'admin', `wrong guess number ${i}`, '203.0.113.7')).status)
    expect(answers).toEqual([401, 401, 401, 401, 401, 429, 429, 429])
    expect((await signIn(s, 'admin', PASSWORD, '198.51.100.9')).status).toBe(200)
    // The right password from A still waits: the pair's delay, not a guessable shortcut.
    expect((await signIn(s, 'admin', PASSWORD, '203.0.113.7')).status).toBe(429)
  })

  test('a field that is there but not text is said to be so, not missing', async () => {
    const s = await open()
    for (const [json, field, message] of [
      [{ name: 5, password: 'b' }, 'name', 'name must be text.'],
      [{ name: 'admin', password: ['x'] }, 'password', 'password must be text.'],
      [{ password: 'b' }, 'name', 'name is required.'],
      [{ name: 'admin', password: '' }, 'password', 'password is required.'],
    ] as const) {
      const r = await call(s.port, 'POST', '/api/auth/signin', { json })
      expect(r.status, JSON.stringify(json)).toBe(400)
      expect(r.json().error, JSON.stringify(json)).toMatchObject({ kind: 'invalid_request', field, message })
    }
  })

  test('the delay for (name, address) doubles; the right password after the wait signs in and clears the count', async () => {
    const s = await open()
    for (let i = 0; i < 5; i++) expect((await signIn(s, 'admin', `wrong guess ${i}`, '203.0.113.7')).status).toBe(401)
    const first = await signIn(s, 'admin', PASSWORD, '203.0.113.7')
    expect(first.status).toBe(429)
    expect(first.headers['retry-after']).toBe('30')
    expect(first.json().error).toMatchObject({
      kind: 'unauthorized',
      field: 'name',
      message: 'Too many failed sign-ins for this name from your address; try again in 30 seconds.',
      retryAfterMs: 30 * SEC,
    })
    s.clock.now += 30 * SEC
    expect((await signIn(s, 'admin', 'wrong guess again', '203.0.113.7')).status).toBe(401)
    const second = await signIn(s, 'admin', PASSWORD, '203.0.113.7')
    expect(second.headers['retry-after']).toBe('60')
    s.clock.now += 59 * SEC
    expect((await signIn(s, 'admin', PASSWORD, '203.0.113.7')).json().error?.message).toBe(
      'Too many failed sign-ins for this name from your address; try again in 1 second.',
    )
    s.clock.now += SEC
    expect((await signIn(s, 'admin', PASSWORD, '203.0.113.7')).status).toBe(200)
    // Cleared: five fresh failures are allowed again before any wait.
    for (let i = 0; i < 5; i++) expect((await signIn(s, 'admin', `wrong guess ${i}`, '203.0.113.7')).status).toBe(401)
    expect((await signIn(s, 'admin', PASSWORD, '203.0.113.7')).status).toBe(429)
  })

  test('one address spraying guesses over many names waits; other addresses do not; an office signing in never does', async () => {
    const s = await open()
    for (let i = 0; i < 40; i++) expect((await signIn(s, 'vic', PASSWORD, '192.0.2.50')).status).toBe(200)
    const free = DEFAULT_LIMITS.address.free
    for (let i = 0; i < free; i++) expect((await signIn(s, `guess${i}`, 'wrong password!!', '192.0.2.1')).status).toBe(401)
    const limited = await signIn(s, 'vic', PASSWORD, '192.0.2.1')
    expect(limited.status).toBe(429)
    expect(limited.json().error?.field).toBe('address')
    expect(limited.json().error?.message).toBe('Too many failed sign-ins from your address; try again in 5 seconds.')
    expect((await signIn(s, 'vic', PASSWORD, '192.0.2.2')).status).toBe(200)
    s.clock.now += 5 * SEC
    expect((await signIn(s, 'vic', PASSWORD, '192.0.2.1')).status).toBe(200)
  })

  test('without TRUST_PROXY a forged X-Forwarded-For changes nothing: the socket address counts', async () => {
    const s = await open({ ACCESS: 'password' })
    for (let i = 0; i < 5; i++) expect((await signIn(s, 'admin', `wrong guess ${i}`, `198.51.100.${i}`)).status).toBe(401)
    expect((await signIn(s, 'admin', PASSWORD, '198.51.100.200')).status).toBe(429)
  })

  test('a 40-way race of wrong guesses from one address checks no more passwords than the limit', async () => {
    const s = await open()
    const one = await Promise.all(Array.from({ length: 40 }, (_, i) => signIn(s, 'admin', `racing guess ${i}`, '203.0.113.7')))
    const statuses = one.map((a) => a.status)
    expect(checks).toBe(DEFAULT_LIMITS.pair.free)
    expect(statuses.filter((x) => x === 401)).toHaveLength(DEFAULT_LIMITS.pair.free)
    expect(statuses.filter((x) => x === 429)).toHaveLength(40 - DEFAULT_LIMITS.pair.free)
    // The same race over 40 names meets the address limit instead.
    checks = 0
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => signIn(s, `name${i}`, `racing guess ${i}`, '203.0.113.8')))
    expect(checks).toBe(DEFAULT_LIMITS.address.free)
    expect(many.filter((a) => a.status === 401)).toHaveLength(DEFAULT_LIMITS.address.free)
  }, 60_000)

  test('password checks beyond the concurrency bound and its queue get 429 with Retry-After at once', async () => {
    await addUser(db, { name: 'slow', role: 'viewer', password: PASSWORD }, { scrypt: DEFAULT_SCRYPT })
    const s = await open(PROXIED, { ...DEFAULT_LIMITS, checks: { concurrent: 1, queue: 1, perAddress: 1, reserved: 0 } })
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => signIn(s, 'slow', PASSWORD, `192.0.2.${i + 1}`)))
    const overflow = answers.filter((a) => a.status === 429)
    expect(overflow.length).toBeGreaterThan(0)
    for (const a of overflow) {
      expect(a.headers['retry-after']).toBe('1')
      expect(a.json().error?.message).toBe('Too many sign-ins are being checked at this moment; try again in a second.')
    }
    expect(answers.filter((a) => a.status === 200)).toHaveLength(checks)
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true)
  }, 60_000)

  test('one address guessing on many connections cannot take every turn: a user elsewhere still signs in', async () => {
    await addUser(db, { name: 'slow', role: 'viewer', password: PASSWORD }, { scrypt: DEFAULT_SCRYPT })
    // Room for three checks at once (one running, two waiting), one per address.
    const s = await open(PROXIED, { ...DEFAULT_LIMITS, checks: { concurrent: 1, queue: 2, perAddress: 1, reserved: 0 } })
    const flood = Promise.all(Array.from({ length: 12 }, (_, i) => signIn(s, 'slow', `guess ${i}`, '198.51.100.1')))
    await new Promise((r) => setTimeout(r, 20))
    const user = await signIn(s, 'slow', PASSWORD, '198.51.100.2')
    const guesses = await flood
    expect(user.status).toBe(200)
    // The guesser's others were turned away at once, in words, without a password check.
    const refused = guesses.filter((a) => a.status === 429)
    expect(refused.length).toBeGreaterThanOrEqual(10)
    for (const a of refused)
      expect(a.json().error?.message).toBe('Another sign-in from your address is being checked; try again in a second.')
  }, 60_000)

  test('guessers on many addresses cannot take the turns kept for addresses that have not failed: a user elsewhere still signs in', async () => {
    await addUser(db, { name: 'slow', role: 'viewer', password: PASSWORD }, { scrypt: DEFAULT_SCRYPT })
    // One running, four waiting, two of those only for addresses with no recent failure.
    const s = await open(PROXIED, { ...DEFAULT_LIMITS, checks: { concurrent: 1, queue: 4, perAddress: 2, reserved: 2 } })
    const guessers = Array.from({ length: 8 }, (_, i) => `198.51.100.${i + 10}`)
    // Each guesser has failed once already.
    for (const from of guessers) expect((await signIn(s, 'slow', 'first guess', from)).status).toBe(401)
    const flood = Promise.all(guessers.flatMap((from) => [1, 2].map((k) => signIn(s, 'slow', `guess ${k}`, from))))
    await new Promise((r) => setTimeout(r, 20))
    const user = await signIn(s, 'slow', PASSWORD, '198.51.100.99')
    const guesses = await flood
    expect(user.status).toBe(200)
    expect(guesses.filter((a) => a.status === 429).length).toBeGreaterThan(0)
  }, 60_000)

  test('guessers on 240 addresses keep the check queue full; a browser that signed in before goes ahead of them (device cookie); turns go round the addresses', async () => {
    await addUser(db, { name: 'slow', role: 'admin', password: PASSWORD }, { scrypt: DEFAULT_SCRYPT })
    const s = await open(PROXIED, { ...DEFAULT_LIMITS, checks: { concurrent: 1, queue: 4, perAddress: 2, reserved: 0 } })
    const first = await signIn(s, 'slow', PASSWORD, '198.51.100.200')
    expect(first.status).toBe(200)
    const device = (first.headers['set-cookie'] ?? []).find((c) => c.startsWith('sb_device='))
    expect(device).toMatch(/HttpOnly; SameSite=Strict/)
    expect(device).toMatch(/Path=\/api\/auth\/signin/)
    const cookie = device!.split(';')[0]!
    const guessers = Array.from({ length: 240 }, (_, i) => `10.${Math.floor(i / 250)}.${i % 250}.7`)
    const flood = Promise.all(guessers.map((from, i) => signIn(s, 'slow', `guess number ${i}`, from)))
    await new Promise((r) => setTimeout(r, 50))
    // Elsewhere, with the device cookie: through, whatever the queue holds.
    const back = await call(s.port, 'POST', '/api/auth/signin', {
      json: { name: 'slow', password: PASSWORD },
      headers: { 'x-forwarded-for': '198.51.100.201', cookie },
    })
    const guesses = await flood
    expect(back.status, back.text).toBe(200)
    expect(guesses.filter((a) => a.status === 429).length).toBeGreaterThan(200)
    // A token for another name, or a made-up one, is no device of this user's.
    expect(await knownDevice(db, cookie.slice('sb_device='.length), 'vic', Date.now())).toBe(false)
    expect(await knownDevice(db, 'x'.repeat(43), 'slow', Date.now())).toBe(false)
  }, 120_000)

  test('the check queue gives turns round the addresses waiting, not in arrival order', async () => {
    const gate = createCheckGate({ concurrent: 1, queue: 10, perAddress: 10, reserved: 0 })
    const order: string[] = []
    const run = async (from: string) => {
      const leave = await gate.enter({ from })
      order.push(from)
      await new Promise((r) => setTimeout(r, 5))
      leave?.()
    }
    await Promise.all([run('a'), run('a'), run('a'), run('a'), run('b'), run('c')])
    expect(order).toEqual(['a', 'b', 'a', 'c', 'a', 'a'])
    // Full: a newcomer takes the newest place of the address holding the most.
    const full = createCheckGate({ concurrent: 1, queue: 2, perAddress: 10, reserved: 0 })
    const held = full.enter({ from: 'x' })
    const x1 = full.enter({ from: 'x' })
    const x2 = full.enter({ from: 'x' })
    const y = full.enter({ from: 'y' })
    expect(y).not.toBeNull()
    expect(await x2).toBeNull()
    expect(full.enter({ from: 'z' })).toBeNull()
    // Round the addresses: after x's turn, y's, then x's other.
    ;(await held)?.()
    ;(await y)?.()
    ;(await x1)?.()
  })

  test('a NUL in the name is a failed sign-in like any other: 401, counted, and logged', async () => {
    const s = await open()
    const a = await signIn(s, 'admin\u0000', 'wrong guess', '203.0.113.30')
    expect(a.status).toBe(401)
    await s.access.flush()
    const r = await db.query<{ action: string; details: string }>(
      `SELECT action, details::text AS details FROM access_log WHERE address = '203.0.113.30' ORDER BY seq`,
    )
    expect(r.rows.map((x) => x.action)).toEqual(['signin.fail'])
    expect(r.rows[0]!.details).toContain('admin')
  }, 60_000)

  test("a failed sign-in's name is logged with its invisible and direction-changing characters written out", async () => {
    const s = await open()
    expect((await signIn(s, 'a\u202eb\nsignin.ok\u200b', 'wrong guess', '203.0.113.31')).status).toBe(401)
    await s.access.flush()
    const r = await db.query<{ details: { name: string } }>(`SELECT details FROM access_log WHERE address = '203.0.113.31' ORDER BY seq`)
    expect(r.rows.map((x) => x.details.name)).toEqual(['a\\u{202e}b\\u{a}signin.ok\\u{200b}'])
  }, 60_000)

  if (engine.name === 'postgres')
    test('two servers on one PostgreSQL share the count: a race split between them checks no more than the limit', async () => {
      const opened = await engine.open()
      // The race needs a second server with its own connections to one database: a fresh cluster.
      const second = await opened.another!()
      try {
        await addUser(opened.db, { name: 'admin', role: 'admin', password: PASSWORD }, { scrypt: TEST_SCRYPT })
        const a = await open(PROXIED, RACE_LIMITS, opened.db)
        const b = await open(PROXIED, RACE_LIMITS, second)
        const answers = await Promise.all(
          Array.from({ length: 40 }, (_, i) => signIn(i % 2 ? a : b, 'admin', `racing guess ${i}`, '203.0.113.7')),
        )
        expect(checks).toBe(DEFAULT_LIMITS.pair.free)
        expect(answers.filter((x) => x.status === 401)).toHaveLength(DEFAULT_LIMITS.pair.free)
      } finally {
        for (const s of stacks) await s.close()
        stacks = []
        await second.close()
        await opened.close()
      }
    }, 60_000)
})
