import type { IncomingMessage } from 'node:http'
import { describe, expect, test } from 'vitest'
import { clientAddress } from './address.ts'
import { accessConfigFrom, checkExposure, parseAccessConfig } from './config.ts'
import { createDummyCheck, DEFAULT_SCRYPT, hashPassword, passwordProblem, verifyPassword } from './passwords.ts'
import { csvCell } from '../../contract/csv.ts'
import { cleanDetails } from './access-log.ts'
import { sessionCookie } from './sessions.ts'

describe('parseAccessConfig', () => {
  test('defaults: local, 30 min idle, 12 h lifetime, 365 days of log', () => {
    const c = accessConfigFrom({})
    expect(c).toMatchObject({
      mode: 'local',
      authHeader: null,
      trustProxy: false,
      sessionIdleMs: 30 * 60_000,
      sessionMaxMs: 12 * 3_600_000,
      accessLogRetainDays: 365,
    })
  })

  test('every problem is listed at once, each naming its variable', () => {
    const r = parseAccessConfig({
      ACCESS: 'open',
      TRUST_PROXY: 'yes',
      SESSION_IDLE_MIN: 'ten',
      ACCESS_LOG_RETAIN_DAYS: '0',
      TRUSTED_PROXIES: '10.0.0.0/33, banana',
    })
    expect(r.ok).toBe(false)
    const text = r.issues.join('\n')
    for (const name of ['ACCESS must be', 'TRUST_PROXY', 'SESSION_IDLE_MIN', 'ACCESS_LOG_RETAIN_DAYS', 'TRUSTED_PROXIES'])
      expect(text).toContain(name)
    expect(text).toContain('"10.0.0.0/33"')
    expect(text).toContain('"banana"')
  })

  test('header mode needs AUTH_HEADER and TRUSTED_PROXIES; TRUST_PROXY needs TRUSTED_PROXIES', () => {
    const r = parseAccessConfig({ ACCESS: 'header', TRUST_PROXY: '1' })
    expect(r.issues.some((i) => i.startsWith('AUTH_HEADER is required'))).toBe(true)
    expect(r.issues.filter((i) => i.startsWith('TRUSTED_PROXIES is required'))).toHaveLength(2)
    const ok = accessConfigFrom({
      ACCESS: 'header',
      AUTH_HEADER: 'X-Forwarded-Email',
      TRUSTED_PROXIES: '10.0.0.0/8, ::1',
      ADMINS: ' Boss@Example.com ,b@x',
    })
    expect(ok.authHeader).toBe('x-forwarded-email')
    expect([...ok.admins]).toEqual(['boss@example.com', 'b@x'])
    expect(ok.trustedProxies.has('10.200.3.4')).toBe(true)
    expect(ok.trustedProxies.has('::ffff:10.1.1.1')).toBe(true)
    expect(ok.trustedProxies.has('::1')).toBe(true)
    expect(ok.trustedProxies.has('11.0.0.1')).toBe(false)
    expect(ok.trustedProxies.has('127.0.0.1')).toBe(false)
    expect(ok.trustedProxies.has('not an ip')).toBe(false)
  })

  test('idle timeout longer than the lifetime is refused', () => {
    expect(parseAccessConfig({ SESSION_IDLE_MIN: '120', SESSION_MAX_HOURS: '1' }).issues).toEqual([
      'SESSION_IDLE_MIN must not be longer than SESSION_MAX_HOURS',
    ])
  })
})

describe('checkExposure', () => {
  test('refuses a non-loopback HOST with ACCESS=local, naming ACCESS, in one line', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'switchboard.internal', '[::]']) {
      const line = checkExposure(host, 'local')
      expect(line, host).toMatch(/ACCESS=local/)
      expect(line).not.toContain('\n')
    }
  })
  test('loopback, or any sign-in mode, is fine', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) expect(checkExposure(host, 'local'), host).toBeNull()
    expect(checkExposure('0.0.0.0', 'password')).toBeNull()
    expect(checkExposure('0.0.0.0', 'header')).toBeNull()
  })
})

describe('passwords', () => {
  const cheap = { N: 2 ** 10, r: 8, p: 1 }

  test('the default cost is OWASP scrypt N=2^15 r=8 p=3, stored in the hash with a per-user salt', async () => {
    const a = await hashPassword('correct horse battery')
    const b = await hashPassword('correct horse battery')
    expect(a).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
    expect(a).not.toBe(b)
    expect(DEFAULT_SCRYPT).toEqual({ N: 2 ** 15, r: 8, p: 3 })
    expect(await verifyPassword('correct horse battery', a)).toBe(true)
    expect(await verifyPassword('correct horse batterY', a)).toBe(false)
  })

  test('hashes made with other parameters still verify (they travel in the string)', async () => {
    const h = await hashPassword('another long password', cheap)
    expect(h.startsWith('scrypt$1024$8$1$')).toBe(true)
    expect(await verifyPassword('another long password', h)).toBe(true)
  })

  test('a malformed or doctored stored hash never matches and never allocates wildly', async () => {
    for (const bad of [
      '',
      'plain',
      'scrypt$3$8$1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5',
      'scrypt$1073741824$8$1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5',
      'bcrypt$x',
    ])
      expect(await verifyPassword('whatever', bad), bad).toBe(false)
  })

  test('the dummy check for unknown names is always false', async () => {
    const dummy = createDummyCheck(cheap)
    expect(await dummy('anything at all')).toBe(false)
  })

  test('length rules in words', () => {
    expect(passwordProblem('short')).toMatch(/at least 12/)
    expect(passwordProblem('x'.repeat(1025))).toMatch(/at most 1024/)
    expect(passwordProblem('twelve chars')).toBeNull()
  })
})

describe('client address and cookies', () => {
  const reqFrom = (remoteAddress: string, headers: Record<string, string> = {}) =>
    ({ socket: { remoteAddress }, headers }) as unknown as IncomingMessage
  const cfg = accessConfigFrom({ ACCESS: 'password', TRUST_PROXY: '1', TRUSTED_PROXIES: '10.0.0.1, 10.0.0.2' })

  test('X-Forwarded-For counts only from a trusted proxy, read right to left past our own proxies', () => {
    expect(clientAddress(reqFrom('::ffff:10.0.0.1', { 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.0.0.2' }), cfg)).toBe('203.0.113.9')
    expect(clientAddress(reqFrom('198.51.100.7', { 'x-forwarded-for': '203.0.113.9' }), cfg)).toBe('198.51.100.7')
    expect(clientAddress(reqFrom('10.0.0.1', { 'x-forwarded-for': 'garbage' }), cfg)).toBe('10.0.0.1')
    // a proxy that writes the client's port: each client keeps its own address, not the proxy's
    expect(clientAddress(reqFrom('10.0.0.1', { 'x-forwarded-for': '203.0.113.9:51234' }), cfg)).toBe('203.0.113.9')
    expect(clientAddress(reqFrom('10.0.0.1', { 'x-forwarded-for': '[2001:DB8::7]:443' }), cfg)).toBe('2001:db8::7')
    expect(clientAddress(reqFrom('10.0.0.1', { 'x-forwarded-for': '198.51.100.3:80, 10.0.0.2:9000' }), cfg)).toBe('198.51.100.3')
    expect(clientAddress(reqFrom('10.0.0.1', { 'x-forwarded-for': '198.51.100.3:99999' }), cfg)).toBe('10.0.0.1')
    const noTrust = accessConfigFrom({ ACCESS: 'password', TRUSTED_PROXIES: '10.0.0.1' })
    expect(clientAddress(reqFrom('10.0.0.1', { 'x-forwarded-for': '203.0.113.9' }), noTrust)).toBe('10.0.0.1')
  })

  test('sb_session is read only when it is one well-formed value', () => {
    const id = 'a'.repeat(43)
    expect(sessionCookie(reqFrom('1.1.1.1', { cookie: `x=1; sb_session=${id}` }))).toBe(id)
    expect(sessionCookie(reqFrom('1.1.1.1', { cookie: `sb_session=${id}; sb_session=${'b'.repeat(43)}` }))).toBeNull()
    expect(sessionCookie(reqFrom('1.1.1.1', { cookie: 'sb_session=short' }))).toBeNull()
  })
})

describe('access log details', () => {
  test('passwords and message bodies never reach an entry, whoever passes them', () => {
    expect(
      cleanDetails({
        number: '1',
        password: 'x',
        filters: { body: 'hello', q: 'refund', Token: 't' },
        nested: { deeper: { message: 'm', ok: 1 } },
      }),
    ).toEqual({
      number: '1',
      filters: { q: 'refund' },
      nested: { deeper: { ok: 1 } },
    })
  })
  test('CSV cells are quoted per RFC 4180 and formulas neutralised', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('-2+3')).toBe("'-2+3")
    // A bare number is data, not a formula (the project's one CSV rule set, contract/csv.ts).
    expect(csvCell('-1')).toBe('-1')
    expect(csvCell('plain')).toBe('plain')
  })
})
