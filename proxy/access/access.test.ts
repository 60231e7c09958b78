import { mkdirSync, rmdirSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { OpenedDb } from '../db/open.ts'
import { JOURNAL_MAX_WAIT_MS, JOURNAL_PUT_IN_MS, logWriterOptions } from './access.ts'
import { journalPathOf } from './log-journal.ts'
import { COOKIE_NAME, createSession } from './sessions.ts'
import { addUser, changeUser, listUsers } from './users.ts'
import { call, clearAccessTables, cookieFrom, ENGINES, HISTORY, startStack, TEST_SCRYPT, type Stack } from '../testing/access-stack.ts'

/**
 * Team access against both engines (PGlite and a real PostgreSQL server), through the real app
 * over HTTP: sign-in, sessions, fixation, the brute-force limit, header mode, roles, the access
 * log and its retention purge.
 */

const PASSWORD = 'correct horse battery'
const PASSWORD_ENV = { ACCESS: 'password' }
const MIN = 60_000

describe.each(ENGINES)('team access on $name', (engine) => {
  let db: OpenedDb
  let closeDb: () => Promise<void>
  let stack: Stack | null = null

  beforeAll(async () => {
    const opened = await engine.open()
    db = opened.db
    closeDb = opened.close
  }, 60_000)
  afterAll(async () => {
    await stack?.close()
    await closeDb?.()
  })
  beforeEach(async () => {
    await stack?.close()
    stack = null
    await clearAccessTables(db)
    await addUser(db, { name: 'Alice', role: 'admin', password: PASSWORD }, { scrypt: TEST_SCRYPT })
    await addUser(db, { name: 'vic', role: 'viewer', password: PASSWORD }, { scrypt: TEST_SCRYPT })
  })

  async function open(env: Record<string, string> = PASSWORD_ENV): Promise<Stack> {
    stack = await startStack(db, env)
    return stack
  }

  const signIn = (s: Stack, name: string, password: string, headers: Record<string, string> = {}) =>
    call(s.port, 'POST', '/api/auth/signin', { json: { name, password }, headers })

  const history = (s: Stack, cookie: string) =>
    call(s.port, 'POST', '/api/smshistory', {
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tid: HISTORY.tid, number: HISTORY.number, history_start: '1', history_end: '10' }).toString(),
    })

  test('without a session every /api path answers 401; me says nobody; the cookie has the right flags; sign-out ends it server-side', async () => {
    const s = await open()
    expect((await history(s, '')).status).toBe(401)
    expect((await call(s.port, 'GET', '/api/auth/users')).status).toBe(401)
    expect((await call(s.port, 'GET', '/api/auth/access-log')).status).toBe(401)
    const me0 = await call(s.port, 'GET', '/api/auth/me')
    expect(me0.json()).toEqual({ mode: 'password', user: null })

    const wrong = await signIn(s, 'alice', 'not the password at all')
    expect(wrong.status).toBe(401)
    expect(wrong.json().error?.kind).toBe('unauthorized')
    expect(wrong.headers['set-cookie']).toBeUndefined()

    const ok = await signIn(s, 'ALICE', PASSWORD)
    expect(ok.status).toBe(200)
    expect(ok.json()).toEqual({ mode: 'password', user: { name: 'alice', role: 'admin' } })
    const setCookie = ok.headers['set-cookie']?.[0] ?? ''
    expect(setCookie).toMatch(/^sb_session=[A-Za-z0-9_-]{43}; /)
    expect(setCookie).toMatch(/; HttpOnly/)
    expect(setCookie).toMatch(/; SameSite=Strict/)
    expect(setCookie).toMatch(/; Path=\//)
    // Plain HTTP without TRUST_PROXY: a Secure cookie would never come back.
    expect(setCookie).not.toMatch(/Secure/)
    const cookie = cookieFrom(ok)

    // Only a hash of the id is stored.
    const rows = await db.query<{ id_hash: string }>('SELECT id_hash FROM sessions')
    expect(rows.rows).toHaveLength(1)
    expect(rows.rows[0]?.id_hash).not.toContain(cookie.slice('sb_session='.length))

    expect((await call(s.port, 'GET', '/api/auth/me', { headers: { cookie } })).json()).toEqual({
      mode: 'password',
      user: { name: 'alice', role: 'admin' },
    })
    expect((await history(s, cookie)).status).toBe(200)

    const out = await call(s.port, 'POST', '/api/auth/signout', { headers: { cookie } })
    expect(out.status).toBe(200)
    expect(out.headers['set-cookie']?.[0]).toMatch(/^sb_session=; .*Max-Age=0/)
    expect((await db.query('SELECT 1 FROM sessions')).rows).toHaveLength(0)
    // The old cookie, replayed, is worth nothing.
    expect((await history(s, cookie)).status).toBe(401)
  })

  test('TRUST_PROXY=1 makes the cookie Secure', async () => {
    const s = await open({ ACCESS: 'password', TRUST_PROXY: '1', TRUSTED_PROXIES: '10.0.0.0/8' })
    const ok = await signIn(s, 'alice', PASSWORD)
    expect(ok.headers['set-cookie']?.[0]).toMatch(/; Secure/)
  })

  test('sessions expire after the idle timeout, and at the absolute lifetime however active', async () => {
    const s = await open({ ACCESS: 'password', SESSION_IDLE_MIN: '30', SESSION_MAX_HOURS: '2' })
    const idle = cookieFrom(await signIn(s, 'alice', PASSWORD))
    s.clock.now += 29 * MIN
    expect((await history(s, idle)).status).toBe(200)
    s.clock.now += 29 * MIN // active 29 minutes ago: still in
    expect((await history(s, idle)).status).toBe(200)
    s.clock.now += 30 * MIN
    expect((await history(s, idle)).status).toBe(401)
    expect((await db.query('SELECT 1 FROM sessions')).rows).toHaveLength(0)

    const busy = cookieFrom(await signIn(s, 'alice', PASSWORD))
    for (let i = 0; i < 5; i++) {
      s.clock.now += 20 * MIN
      expect((await history(s, busy)).status).toBe(200)
    }
    s.clock.now += 20 * MIN // 120 minutes after sign-in
    expect((await history(s, busy)).status).toBe(401)
  })

  test('session fixation: an id held before sign-in is not the one after, and stops working', async () => {
    const s = await open()
    const first = cookieFrom(await signIn(s, 'vic', PASSWORD))
    const second = await signIn(s, 'alice', PASSWORD, { cookie: first })
    const after = cookieFrom(second)
    expect(after).not.toBe(first)
    expect((await call(s.port, 'GET', '/api/auth/me', { headers: { cookie: first } })).json().user).toBeNull()
    expect((await call(s.port, 'GET', '/api/auth/me', { headers: { cookie: after } })).json().user).toEqual({
      name: 'alice',
      role: 'admin',
    })
    // A planted id the server never issued is never adopted.
    const planted = `sb_session=${'A'.repeat(43)}`
    const third = cookieFrom(await signIn(s, 'alice', PASSWORD, { cookie: planted }))
    expect(third).not.toBe(planted)
    expect((await call(s.port, 'GET', '/api/auth/me', { headers: { cookie: planted } })).json().user).toBeNull()
  })

  test('header mode: the identity header counts only from TRUSTED_PROXIES; roles come from ADMINS', async () => {
    const trusted = await open({
      ACCESS: 'header',
      AUTH_HEADER: 'X-Forwarded-Email',
      TRUSTED_PROXIES: '127.0.0.1',
      ADMINS: 'Boss@example.com',
    })
    const asBoss = { 'x-forwarded-email': 'boss@example.com' }
    expect((await history(trusted, '')).status).toBe(401)
    expect((await call(trusted.port, 'GET', '/api/auth/me', { headers: asBoss })).json()).toEqual({
      mode: 'header',
      user: { name: 'boss@example.com', role: 'admin' },
    })
    expect((await call(trusted.port, 'GET', '/api/auth/users', { headers: asBoss })).status).toBe(200)
    const asStaff = { 'x-forwarded-email': 'staff@example.com' }
    expect((await call(trusted.port, 'GET', '/api/auth/users', { headers: asStaff })).status).toBe(403)
    // There is no password form in header mode.
    expect((await signIn(trusted, 'alice', PASSWORD)).status).toBe(404)
    await trusted.close()

    // The same header from an address that is not a trusted proxy identifies nobody.
    const untrusted = await open({
      ACCESS: 'header',
      AUTH_HEADER: 'X-Forwarded-Email',
      TRUSTED_PROXIES: '10.9.8.7/32',
      ADMINS: 'boss@example.com',
    })
    const spoofed = await call(untrusted.port, 'GET', '/api/auth/users', { headers: { ...asBoss, 'x-forwarded-for': '10.9.8.7' } })
    expect(spoofed.status).toBe(401)
    expect(spoofed.json().error?.kind).toBe('unauthorized')
    expect((await call(untrusted.port, 'GET', '/api/auth/me', { headers: asBoss })).json().user).toBeNull()
  })

  test('a viewer is refused admin actions by the server (403), an admin is not', async () => {
    const s = await open()
    const vic = cookieFrom(await signIn(s, 'vic', PASSWORD))
    const alice = cookieFrom(await signIn(s, 'alice', PASSWORD))
    const tries: Array<[string, string, unknown?]> = [
      ['GET', '/api/auth/users'],
      ['POST', '/api/auth/users', { name: 'mallory', role: 'admin', password: 'mallory password 1' }],
      ['POST', '/api/auth/users/vic', { role: 'admin' }],
      ['DELETE', '/api/auth/users/alice'],
      ['GET', '/api/auth/access-log'],
      ['GET', '/api/auth/access-log/export'],
    ]
    for (const [method, path, json] of tries) {
      const r = await call(s.port, method, path, { headers: { cookie: vic }, json })
      expect(r.status, `${method} ${path}`).toBe(403)
      expect(r.json().error?.kind).toBe('forbidden')
    }
    expect((await listUsers(db)).map((u) => `${u.name}:${u.role}`)).toEqual(['alice:admin', 'vic:viewer'])
    expect((await call(s.port, 'GET', '/api/auth/users', { headers: { cookie: alice } })).status).toBe(200)
  })

  test('admins manage users: add, role, password reset ends sessions, disable, remove; the last admin stays', async () => {
    const s = await open()
    const alice = cookieFrom(await signIn(s, 'alice', PASSWORD))
    const as = (method: string, path: string, json?: unknown) => call(s.port, method, path, { headers: { cookie: alice }, json })

    const bad = await as('POST', '/api/auth/users', { name: 'bob', role: 'viewer', password: 'short' })
    expect(bad.status).toBe(400)
    expect(bad.json().error?.field).toBe('password')
    expect((await as('POST', '/api/auth/users', { name: 'bob', role: 'owner', password: PASSWORD })).json().error?.field).toBe('role')
    expect((await as('POST', '/api/auth/users', { name: 'b o b', role: 'viewer', password: PASSWORD })).json().error?.field).toBe('name')
    expect((await as('POST', '/api/auth/users', { name: 'bob@example.com', role: 'viewer', password: PASSWORD })).json().error?.field).toBe(
      'name',
    )
    expect((await as('POST', '/api/auth/users', { name: 'Bob', role: 'viewer', password: PASSWORD })).status).toBe(201)
    expect((await as('POST', '/api/auth/users', { name: 'bob', role: 'viewer', password: PASSWORD })).status).toBe(409)

    const bob = cookieFrom(await signIn(s, 'bob', PASSWORD))
    expect((await call(s.port, 'GET', '/api/auth/users', { headers: { cookie: bob } })).status).toBe(403)
    expect((await as('POST', '/api/auth/users/bob', { role: 'admin' })).json()).toMatchObject({ user: { name: 'bob', role: 'admin' } })
    // A role change applies to the running session at once.
    expect((await call(s.port, 'GET', '/api/auth/users', { headers: { cookie: bob } })).status).toBe(200)

    expect((await as('POST', '/api/auth/users/bob', { password: 'a brand new password' })).status).toBe(200)
    expect((await call(s.port, 'GET', '/api/auth/me', { headers: { cookie: bob } })).json().user).toBeNull()
    expect((await signIn(s, 'bob', PASSWORD)).status).toBe(401)
    const bob2 = cookieFrom(await signIn(s, 'bob', 'a brand new password'))

    expect((await as('POST', '/api/auth/users/bob', { disabled: true })).status).toBe(200)
    expect((await call(s.port, 'GET', '/api/auth/me', { headers: { cookie: bob2 } })).json().user).toBeNull()
    expect((await signIn(s, 'bob', 'a brand new password')).status).toBe(401)

    expect((await as('POST', '/api/auth/users/nobody', { role: 'viewer' })).status).toBe(404)
    expect((await as('POST', '/api/auth/users/bob', { shoeSize: 9 })).json().error?.field).toBe('shoeSize')
    expect((await as('DELETE', '/api/auth/users/bob')).status).toBe(200)
    // alice is now the only enabled admin.
    const last = await as('POST', '/api/auth/users/alice', { role: 'viewer' })
    expect(last.status).toBe(409)
    expect(last.json().error?.message).toMatch(/last enabled admin/)
    expect((await as('DELETE', '/api/auth/users/alice')).status).toBe(409)

    const log = (await as('GET', '/api/auth/access-log?action=user.change')).json() as {
      entries: Array<{ actor: string; details: Record<string, unknown> }>
    }
    expect(log.entries.map((e) => e.details)).toEqual([
      { user: 'bob', disabled: true },
      { user: 'bob', passwordReset: true },
      { user: 'bob', role: 'admin' },
    ])
    expect(log.entries.every((e) => e.actor === 'alice')).toBe(true)
  })

  test('the access log holds sign-ins, a history view and an export with the right user, never a password; filters and pages', async () => {
    const s = await open()
    await signIn(s, 'vic', 'wrong password here')
    const vic = cookieFrom(await signIn(s, 'vic', PASSWORD))
    expect((await history(s, vic)).status).toBe(200)
    const alice = cookieFrom(await signIn(s, 'alice', PASSWORD))
    s.clock.now += MIN
    await s.access.flush()
    const exp = await call(s.port, 'GET', '/api/auth/access-log/export?user=vic', { headers: { cookie: alice } })
    expect(exp.status).toBe(200)
    expect(exp.headers['content-type']).toMatch(/^text\/csv/)
    expect(exp.headers['content-disposition']).toMatch(/^attachment; filename="switchboard-access-log-2026-06-01\.csv"$/)
    const lines = exp.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
    expect(lines[0]).toBe('at,user,via,address,action,number,party,details')
    expect(lines.slice(1).map((l) => l.split(',')[4])).toEqual(['history.view', 'signin.ok', 'signin.fail'])
    await s.access.flush()

    const all = (await call(s.port, 'GET', '/api/auth/access-log', { headers: { cookie: alice } })).json() as {
      entries: Array<{
        actor: string
        via: string
        address: string
        action: string
        number: string | null
        details: Record<string, unknown>
      }>
    }
    // Reading the log is itself a logged read (it names customer numbers): filter those out here.
    all.entries = all.entries.filter((e) => e.action !== 'access-log.view')
    expect(all.entries.map((e) => `${e.actor} ${e.action}`)).toEqual([
      'alice access-log.export.done',
      'alice access-log.export',
      'alice signin.ok',
      'vic history.view',
      'vic signin.ok',
      'vic signin.fail',
    ])
    const view = all.entries.find((e) => e.action === 'history.view')
    expect(view).toMatchObject({
      actor: 'vic',
      via: 'password',
      address: '127.0.0.1',
      number: HISTORY.number,
      details: { tid: HISTORY.tid, start: 1, end: 10 },
    })
    expect(all.entries[0]?.details).toMatchObject({ what: 'access-log', rows: 3, complete: true, filters: { user: 'vic' } })
    expect(all.entries[1]?.details).toEqual({ what: 'access-log', filters: { user: 'vic' } })
    const everything = JSON.stringify(all)
    expect(everything).not.toContain(PASSWORD)
    expect(everything).not.toContain('wrong password here')

    // Filters and keyset pages.
    const byNumber = (
      await call(s.port, 'GET', `/api/auth/access-log?number=${HISTORY.number}`, { headers: { cookie: alice } })
    ).json() as { entries: unknown[] }
    expect(byNumber.entries).toHaveLength(1)
    const page1 = (await call(s.port, 'GET', '/api/auth/access-log?user=alice&limit=2', { headers: { cookie: alice } })).json() as {
      entries: Array<{ id: string }>
      nextCursor: string
    }
    expect(page1.entries).toHaveLength(2)
    const page2 = (
      await call(s.port, 'GET', `/api/auth/access-log?user=alice&limit=2&cursor=${page1.nextCursor}`, { headers: { cookie: alice } })
    ).json() as { entries: Array<{ id: string }>; nextCursor: string | null }
    expect(page2.entries).toHaveLength(2)
    expect(page2.entries[0]?.id).not.toBe(page1.entries[1]?.id)
    const vicPage = (await call(s.port, 'GET', `/api/auth/access-log?user=vic&limit=2`, { headers: { cookie: alice } })).json() as {
      entries: unknown[]
      nextCursor: string | null
    }
    const vicLast = (
      await call(s.port, 'GET', `/api/auth/access-log?user=vic&limit=2&cursor=${vicPage.nextCursor}`, { headers: { cookie: alice } })
    ).json() as { entries: unknown[]; nextCursor: string | null }
    expect(vicLast.entries).toHaveLength(1)
    expect(vicLast.nextCursor).toBeNull()
    expect((await call(s.port, 'GET', '/api/auth/access-log?from=2026-06-02', { headers: { cookie: alice } })).json().entries).toEqual([])
    expect(
      (await call(s.port, 'GET', '/api/auth/access-log?user=vic&to=2026-06-01', { headers: { cookie: alice } })).json().entries,
    ).toHaveLength(3)
    // A `to` timestamp takes in its own instant, as the index's do: from=X&to=X is the entries at X (a 400 before).
    const one = vicPage.entries[0] as { id: string; at: string }
    const exact = await call(s.port, 'GET', `/api/auth/access-log?user=vic&from=${one.at}&to=${one.at}`, { headers: { cookie: alice } })
    expect(exact.status, exact.text).toBe(200)
    expect((exact.json() as { entries: Array<{ id: string }> }).entries.map((e) => e.id)).toContain(one.id)
    for (const [q, field] of [
      ['from=yesterday', 'from'],
      ['to=2026-02-30T00:00:00Z', 'to'],
      ['from=2026-06-01T10:00', 'from'],
      ['limit=0', 'limit'],
      ['cursor=zzz', 'cursor'],
      ['colour=red', 'colour'],
      ['user=a&user=b', 'user'],
      ['action=DROP%20TABLE', 'action'],
    ]) {
      const r = await call(s.port, 'GET', `/api/auth/access-log?${q}`, { headers: { cookie: alice } })
      expect(r.status, q).toBe(400)
      expect(r.json().error?.field, q).toBe(field)
    }
  })

  test('the log verifies over HTTP, names an entry changed with SQL, and a cursor with an impossible date is a 400 naming cursor', async () => {
    const s = await open()
    const alice = cookieFrom(await signIn(s, 'alice', PASSWORD))
    await s.access.recordRead({ name: 'alice', role: 'admin', via: 'password' }, '127.0.0.1', 'search', { q: 'x', party: '15551230000' })
    await s.access.flush()
    const ok = (await call(s.port, 'GET', '/api/auth/access-log/verify', { headers: { cookie: alice } })).json()
    expect(ok).toMatchObject({ intact: true, first: '1', last: '2', message: 'Log intact: entries 1–2 verified.' })
    const byParty = (await call(s.port, 'GET', '/api/auth/access-log?party=15551230000', { headers: { cookie: alice } })).json() as {
      entries: Array<{ action: string }>
    }
    expect(byParty.entries.map((e) => e.action)).toEqual(['search'])
    await db.query('ALTER TABLE access_log DISABLE TRIGGER access_log_append_only')
    try {
      await db.query("UPDATE access_log SET details = '{}'::jsonb WHERE seq = 2")
      const bad = (await call(s.port, 'GET', '/api/auth/access-log/verify', { headers: { cookie: alice } })).json()
      expect(bad).toMatchObject({ intact: false, problem: { seq: '2', kind: 'changed' } })
    } finally {
      await db.query('ALTER TABLE access_log ENABLE TRIGGER access_log_append_only')
    }
    const cursor = Buffer.from('2026-02-31T00:00:00.000Z|1', 'utf8').toString('base64url')
    const r = await call(s.port, 'GET', `/api/auth/access-log?cursor=${cursor}`, { headers: { cookie: alice } })
    expect(r.status).toBe(400)
    expect(r.json().error?.field).toBe('cursor')
    expect(
      (await call(s.port, 'GET', '/api/auth/access-log/verify', { headers: { cookie: cookieFrom(await signIn(s, 'vic', PASSWORD)) } }))
        .status,
    ).toBe(403)
  })

  test('the access log is append-only for the application, and the retention purge removes only old entries', async () => {
    const s = await open({ ACCESS: 'password', ACCESS_LOG_RETAIN_DAYS: '30' })
    await signIn(s, 'alice', PASSWORD)
    s.clock.now += 29 * 86_400_000
    await signIn(s, 'vic', PASSWORD)
    await s.access.flush()
    await expect(db.query("UPDATE access_log SET actor = 'someone else'")).rejects.toThrow(/append-only/)
    s.clock.now += 2 * 86_400_000 // alice's entry is now 31 days old, vic's 2
    await s.access.purge()
    const rows = await db.query<{ actor: string }>("SELECT actor FROM access_log WHERE action <> 'log.checkpoint' ORDER BY id")
    expect(rows.rows.map((r) => r.actor)).toEqual(['vic'])
    // The purge left a checkpoint, so what remains still verifies.
    expect((await s.access.verifyLog()).intact).toBe(true)
    expect(s.logs.some((l) => /purged 1 access-log entries older than 30 days/.test(l))).toBe(true)
  })

  test('local mode: no sign-in, everyone is "local" (admin), and entries say local', async () => {
    const s = await open({})
    expect((await call(s.port, 'GET', '/api/auth/me')).json()).toEqual({ mode: 'local', user: { name: 'local', role: 'admin' } })
    expect((await history(s, '')).status).toBe(200)
    expect((await signIn(s, 'alice', PASSWORD)).status).toBe(404)
    await s.access.flush()
    const log = (await call(s.port, 'GET', '/api/auth/access-log')).json() as {
      entries: Array<{ actor: string; via: string; action: string }>
    }
    expect(log.entries).toEqual([expect.objectContaining({ actor: 'local', via: 'local', action: 'history.view' })])
  })

  test('the sign-in form is covered by the Host/Origin/Sec-Fetch-Site checks: a cross-site post is refused before any password work', async () => {
    const s = await open()
    const alice = cookieFrom(await signIn(s, 'alice', PASSWORD))
    const crossOrigin = await signIn(s, 'alice', PASSWORD, { origin: 'https://evil.example', cookie: alice })
    expect(crossOrigin.status).toBe(403)
    expect(crossOrigin.headers['set-cookie']).toBeUndefined()
    const crossSite = await call(s.port, 'POST', '/api/auth/signout', { headers: { 'sec-fetch-site': 'cross-site', cookie: alice } })
    expect(crossSite.status).toBe(403)
    // The session survived the refused sign-out.
    expect((await call(s.port, 'GET', '/api/auth/me', { headers: { cookie: alice } })).json().user).toEqual({
      name: 'alice',
      role: 'admin',
    })
    // A classic HTML form post (urlencoded, no Origin) is not a sign-in either.
    const formPost = await call(s.port, 'POST', '/api/auth/signin', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `name=alice&password=${encodeURIComponent(PASSWORD)}`,
    })
    expect(formPost.status).toBe(415)
  })

  test("a read's entry waits to go into the table only where a journal holds it first (PGlite); on PostgreSQL it commits at once", async () => {
    // Given to both, the 250 ms wait made every read on PostgreSQL 250 ms slower (the desk's reads: 4 against 254 ms).
    expect(logWriterOptions(db)).toEqual(
      engine.name === 'pglite'
        ? { journal: journalPathOf(db), gatherMs: JOURNAL_PUT_IN_MS, maxWaitMs: JOURNAL_MAX_WAIT_MS }
        : { journal: undefined, gatherMs: 0 },
    )
    expect(JOURNAL_PUT_IN_MS).toBeGreaterThan(0)
    expect(JOURNAL_MAX_WAIT_MS).toBeGreaterThan(JOURNAL_PUT_IN_MS)
  })

  test('a read whose entry cannot be written is refused (fail closed), and the next read is served once it can', async () => {
    const s = await open({})
    // Where a read's entry is first written: PGlite's journal file, PostgreSQL's table.
    const journal = journalPathOf(db)
    if (journal) mkdirSync(journal)
    else await db.query('ALTER TABLE access_log RENAME TO access_log_away')
    try {
      const refused = await history(s, '')
      expect(refused.status).toBe(503)
      expect(refused.json().error?.message).toMatch(/access log could not record this read/)
      expect(refused.text).not.toContain('messages')
      expect(s.logs.some((l) => /access log: could not record history.view/.test(l))).toBe(true)
    } finally {
      if (journal) rmdirSync(journal)
      else await db.query('ALTER TABLE access_log_away RENAME TO access_log')
    }
    expect((await history(s, '')).status).toBe(200)
  })

  test('an action whose entry cannot be written does not happen: sign-in, adding an admin, a role change, a removal (fail closed)', async () => {
    const s = await open()
    // A session made directly: a sign-in would write the first entry, and with it PGlite's journal.
    const admin = `${COOKIE_NAME}=${(await createSession(db, 'alice', '127.0.0.1', s.clock.now, { idleMs: 60 * MIN, maxMs: 600 * MIN })).id}`
    const journal = journalPathOf(db)
    if (journal) mkdirSync(journal)
    else await db.query('ALTER TABLE access_log RENAME TO access_log_away')
    try {
      const signin = await signIn(s, 'vic', PASSWORD)
      expect(signin.status).toBe(503)
      expect(signin.headers['set-cookie']).toBeUndefined()
      expect(signin.json().error?.message).toMatch(/access log could not record this change/)
      const as = { headers: { cookie: admin } }
      const add = await call(s.port, 'POST', '/api/auth/users', {
        ...as,
        json: { name: 'mallory', role: 'admin', password: 'Lantern-Orchard-Briskly-42' },
      })
      expect(add.status, add.text).toBe(503)
      const promote = await call(s.port, 'POST', '/api/auth/users/vic', { ...as, json: { role: 'admin' } })
      expect(promote.status, promote.text).toBe(503)
      const remove = await call(s.port, 'DELETE', '/api/auth/users/vic', as)
      expect(remove.status, remove.text).toBe(503)
    } finally {
      if (journal) rmdirSync(journal)
      else await db.query('ALTER TABLE access_log_away RENAME TO access_log')
    }
    // Nothing changed: no mallory, vic still a viewer, and vic's sign-in works once the log does.
    expect((await listUsers(db)).map((u) => [u.name, u.role])).toEqual([
      ['alice', 'admin'],
      ['vic', 'viewer'],
    ])
    expect((await signIn(s, 'vic', PASSWORD)).status).toBe(200)
  })

  // PGlite's journal only (PostgreSQL fails closed, tested above): registered for that engine, not skipped for the other.
  if (engine.name === 'pglite')
    test('with the table out of reach a journaled read is served, and its entry joins the chain once the table is back', async () => {
      const s = await open({})
      await db.query('ALTER TABLE access_log RENAME TO access_log_away')
      try {
        expect((await history(s, '')).status).toBe(200)
        await expect(s.access.flush()).rejects.toThrow(/access_log/)
      } finally {
        await db.query('ALTER TABLE access_log_away RENAME TO access_log')
      }
      await s.access.flush()
      const rows = await db.query<{ action: string }>('SELECT action FROM access_log ORDER BY seq')
      expect(rows.rows.map((r) => r.action)).toEqual(['history.view'])
      expect(await s.access.verifyLog()).toMatchObject({ intact: true, first: '1', last: '1' })
    })

  test('the users store refuses to disable the last admin directly too', async () => {
    await expect(changeUser(db, 'alice', { disabled: true }, { scrypt: TEST_SCRYPT })).rejects.toThrow(/last enabled admin/)
  })
})

describe('several servers on one PostgreSQL', () => {
  test('a session started on one server is valid on another; sign-out on one ends it on both; the sign-in limit is shared', async () => {
    const engine = ENGINES.find((e) => e.name === 'postgres')!
    const opened = await engine.open()
    const second = await opened.another!()
    const stacks: Stack[] = []
    try {
      await addUser(opened.db, { name: 'alice', role: 'admin', password: PASSWORD }, { scrypt: TEST_SCRYPT })
      const a = await startStack(opened.db, PASSWORD_ENV)
      stacks.push(a)
      const b = await startStack(second, PASSWORD_ENV)
      stacks.push(b)
      const cookie = cookieFrom(await call(a.port, 'POST', '/api/auth/signin', { json: { name: 'alice', password: PASSWORD } }))
      expect((await call(b.port, 'GET', '/api/auth/me', { headers: { cookie } })).json().user).toEqual({ name: 'alice', role: 'admin' })
      await call(b.port, 'POST', '/api/auth/signout', { headers: { cookie } })
      expect((await call(a.port, 'GET', '/api/auth/me', { headers: { cookie } })).json().user).toBeNull()
      // Failures on either server count against one limit.
      for (let i = 0; i < 5; i++)
        expect(
          (await call(i % 2 ? a.port : b.port, 'POST', '/api/auth/signin', { json: { name: 'alice', password: `wrong password ${i}` } }))
            .status,
        ).toBe(401)
      expect((await call(a.port, 'POST', '/api/auth/signin', { json: { name: 'alice', password: PASSWORD } })).status).toBe(429)
      expect((await call(b.port, 'POST', '/api/auth/signin', { json: { name: 'alice', password: PASSWORD } })).status).toBe(429)
    } finally {
      for (const s of stacks) await s.close()
      await second.close()
      await opened.close()
    }
  }, 60_000)
})
