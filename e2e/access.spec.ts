import { spawn } from 'node:child_process'
import { fileStem, subjectOf } from '../contract/vocabulary'
import { whoCan } from '../contract/roles'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from './fixtures'
import { downloadText, historyUrl, NUMBERS, parseCsv } from './helpers'
import { freshPgliteDir } from '../proxy/testing/pglite-template.ts'
import { startProxy, type Proc } from './stack'

/**
 * Team access end to end: a real server started with ACCESS=password (its own PGlite
 * directory, users created with `npm run users` before it starts), a real browser. Sign-in and
 * sign-out, cookie flags, session fixation, the brute-force limit in words, a cross-site form
 * post refused, a viewer refused an admin action by the server, the access log holding a history
 * view and an export with the right user, idle expiry, a spoofed identity header refused, and
 * the refusal to start on 0.0.0.0 without a sign-in mode.
 */

const PORT = 4090
const BASE = `http://127.0.0.1:${PORT}`
const ALICE = { name: 'alice', password: 'alice long password 1', role: 'admin' }
const VIC = { name: 'vic', password: 'vic long password 22', role: 'viewer' }

/** `npm run users -- add NAME --role ROLE`, the password piped twice on stdin as an operator would. */
function addUser(dataDir: string, u: { name: string; password: string; role: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/users.mts', 'add', u.name, '--role', u.role], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      if (code === 0) resolve()
      else reject(new Error(`users add ${u.name} exited ${code}: ${out}`))
    })
    child.stdin.end(`${u.password}\n${u.password}\n`)
  })
}

/** A server with team access on its own data directory (a fresh database: see freshDataDir in stack.ts), the given users created first. */
async function accessServer(
  port: number,
  env: Record<string, string>,
  users: Array<typeof ALICE>,
  script?: string,
): Promise<{ proc: Proc; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-e2e-access-'))
  const dataDir = join(dir, 'data')
  await freshPgliteDir(dataDir)
  // The first user before the server starts, as on a new install (the command opens the database
  // itself); the others once it runs, as later (the command asks the server over its socket).
  const [first, ...later] = users
  if (first) await addUser(dataDir, first)
  // INDEX=off: these tests are about the doors, not the index's background sync.
  const proc = await startProxy(port, { DATA_DIR: dataDir, DATABASE_URL: '', INDEX: 'off', LOG_REQUESTS: '0', ...env }, script)
  try {
    for (const u of later) await addUser(dataDir, u)
  } catch (err) {
    await proc.stop()
    throw err
  }
  return {
    proc,
    stop: async () => {
      await proc.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

let server: { proc: Proc; stop: () => Promise<void> }

test.beforeAll(async () => {
  test.setTimeout(120_000)
  server = await accessServer(PORT, { ACCESS: 'password' }, [ALICE, VIC])
})
test.afterAll(async () => {
  await server?.stop()
})

async function signInThroughForm(page: import('@playwright/test').Page, u: { name: string; password: string }) {
  await page.getByLabel('Name').fill(u.name)
  await page.getByLabel('Password').fill(u.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

const me = (page: import('@playwright/test').Page) =>
  page.evaluate(async () => (await (await fetch('/api/auth/me')).json()) as { mode: string; user: { name: string; role: string } | null })

test.describe('team access (ACCESS=password)', () => {
  test('the app shell loads but holds no data; sign-in with the right flags on the cookie; sign-out ends the session on the server', async ({
    page,
    context,
  }) => {
    // Not signed in: the data doors answer 401 and the app sends us to the sign-in page.
    const refused = page.waitForResponse((r) => r.url().startsWith(`${BASE}/api/`) && r.status() === 401)
    await page.goto(`${BASE}/`)
    await refused
    await expect(page).toHaveURL(/\/signin\?next=%2F$/)
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible()
    // Signed out, no navigation to pages that would only send them back here.
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden()
    await expect(page.getByRole('link', { name: 'Numbers' })).toHaveCount(0)

    await signInThroughForm(page, { name: 'alice', password: 'not the password!' })
    await expect(page.getByRole('alert')).toContainText('That name and password do not match')

    const answer = page.waitForResponse(`${BASE}/api/auth/signin`)
    await signInThroughForm(page, ALICE)
    const setCookie = (await (await answer).allHeaders())['set-cookie'] ?? ''
    expect(setCookie).toMatch(/^sb_session=[A-Za-z0-9_-]{43}; /)
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Strict')
    expect(setCookie).toContain('Path=/')
    expect(setCookie).not.toContain('Secure') // plain http on loopback, no TRUST_PROXY
    const [cookie] = await context.cookies(BASE)
    expect(cookie).toMatchObject({ name: 'sb_session', httpOnly: true, sameSite: 'Strict', path: '/' })
    // Script on the page cannot read it.
    expect(await page.evaluate(() => document.cookie)).not.toContain('sb_session')

    await expect(page).toHaveURL(`${BASE}/`)
    const menu = page.getByRole('group', { name: 'Signed-in user' })
    await expect(menu).toContainText('alice')
    await expect(menu).toContainText('admin')
    expect(await me(page)).toEqual({ mode: 'password', user: { name: 'alice', role: 'admin' } })

    await menu.getByRole('button', { name: 'Sign out' }).click()
    await expect(page).toHaveURL(/\/signin/)
    expect(await me(page)).toEqual({ mode: 'password', user: null })
    // The old id, replayed by hand, is dead on the server (not merely forgotten by the browser).
    const replay = await page.request.get(`${BASE}/api/auth/me`, { headers: { cookie: `sb_session=${cookie!.value}` } })
    expect(((await replay.json()) as { user: unknown }).user).toBeNull()
  })

  test('session fixation: an id set before sign-in is not the one after', async ({ page, context }) => {
    const planted = 'P'.repeat(43)
    await context.addCookies([{ name: 'sb_session', value: planted, url: BASE, sameSite: 'Strict', httpOnly: true }])
    await page.goto(`${BASE}/signin`)
    await signInThroughForm(page, VIC)
    await expect(page).toHaveURL(`${BASE}/`)
    const afterVic = (await context.cookies(BASE)).find((c) => c.name === 'sb_session')?.value
    expect(afterVic).toBeTruthy()
    expect(afterVic).not.toBe(planted)

    // Signing in again (as someone else) on the same browser renews the id; the old one is ended.
    await page.goto(`${BASE}/signin`)
    await signInThroughForm(page, ALICE)
    await expect(page).toHaveURL(`${BASE}/`)
    const afterAlice = (await context.cookies(BASE)).find((c) => c.name === 'sb_session')?.value
    expect(afterAlice).not.toBe(afterVic)
    const old = await page.request.get(`${BASE}/api/auth/me`, { headers: { cookie: `sb_session=${afterVic}` } })
    expect(((await old.json()) as { user: unknown }).user).toBeNull()
  })

  test('brute-force limit: after five wrong passwords for a name the form says so in words', async ({ page }) => {
    await page.goto(`${BASE}/signin`)
    for (let i = 0; i < 5; i++) {
      const answered = page.waitForResponse(`${BASE}/api/auth/signin`)
      await signInThroughForm(page, { name: 'mallory', password: `guess number ${i}` })
      expect((await answered).status()).toBe(401)
    }
    await signInThroughForm(page, { name: 'mallory', password: 'guess number 6' })
    await expect(page.getByRole('alert')).toContainText(
      /Too many failed sign-ins for this name from your address; try again in \d+ seconds\./,
    )
  })

  test('a cross-site form post carrying the user’s cookie is refused', async ({ page, context }) => {
    await page.goto(`${BASE}/signin`)
    await signInThroughForm(page, ALICE)
    await expect(page).toHaveURL(`${BASE}/`)
    // A page on another site (localhost is not 127.0.0.1) with a form that posts to our sign-out.
    // It opens the answer in a new window, as such attacks often do: the JSON error page there
    // would otherwise make Chromium ask this page's origin for a favicon.
    const evil: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(
        `<!doctype html><title>evil</title><form method="post" target="_blank" action="${BASE}/api/auth/signout"><input name="x" value="1"><button>Go</button></form>`,
      )
    })
    await new Promise<void>((ok) => evil.listen(4094, '127.0.0.1', ok))
    const attacker = await context.newPage()
    try {
      await attacker.goto('http://localhost:4094/')
      const answer = context.waitForEvent('response', (r) => r.url() === `${BASE}/api/auth/signout`)
      const popup = context.waitForEvent('page')
      await attacker.getByRole('button', { name: 'Go' }).click()
      const res = await answer
      expect(res.request().method()).toBe('POST')
      // Two locks on this door: the browser withholds the SameSite=Strict cookie, and the server
      // refuses the cross-site request whatever it carries.
      const sent = await res.request().allHeaders()
      expect(sent['sec-fetch-site']).toBe('cross-site')
      expect(sent.cookie ?? '').not.toContain('sb_session')
      expect(res.status()).toBe(403)
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/Cross-site requests are refused/)
      await (await popup).close()
    } finally {
      await attacker.close()
      evil.closeAllConnections()
      await new Promise<void>((ok) => evil.close(() => ok()))
    }
    // Still signed in: the post did nothing.
    await page.reload()
    expect((await me(page)).user).toEqual({ name: 'alice', role: 'admin' })
  })

  test('a viewer does not see admin pages, and the server refuses their admin actions (403)', async ({ page }) => {
    await page.goto(`${BASE}/signin`)
    await signInThroughForm(page, VIC)
    await expect(page).toHaveURL(`${BASE}/`)
    await expect(page.getByRole('group', { name: 'Signed-in user' })).toContainText('viewer')
    await expect(page.getByRole('link', { name: 'Access log' })).toHaveCount(0)
    // Whatever the UI shows, the server decides: the viewer's own cookie, straight at the API.
    const attempts = await page.evaluate(async () => {
      const post = (path: string, body: unknown) =>
        fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      const out: Array<[string, number, string]> = []
      for (const [label, res] of [
        ['add user', await post('/api/auth/users', { name: 'mallory', role: 'admin', password: 'a long password 99' })],
        ['promote self', await post('/api/auth/users/vic', { role: 'admin' })],
        ['read access log', await fetch('/api/auth/access-log')],
        ['export access log', await fetch('/api/auth/access-log/export')],
      ] as const)
        out.push([label, res.status, ((await res.json()) as { error: { kind: string } }).error.kind])
      return out
    })
    for (const [label, status, kind] of attempts) {
      expect(status, label).toBe(403)
      expect(kind, label).toBe('forbidden')
    }
    expect((await me(page)).user).toEqual({ name: 'vic', role: 'viewer' })
    // An admin page opened by a viewer says it is for admins, not "Page not found".
    await page.goto(`${BASE}/admin/users`)
    await expect(page.getByRole('heading', { name: 'Users is for admins' })).toBeVisible()
    await expect(page.getByText('Page not found')).toHaveCount(0)
    await page.goto(`${BASE}/admin/access-log`)
    await expect(page.getByRole('heading', { name: 'The access log is for admins' })).toBeVisible()
    // The missing export says who can make it.
    await page.goto(`${BASE}/numbers/18323232323?tid=PUHMGWS98301`)
    await expect(page.getByText(`Exporting the whole history is for ${whoCan('exportIndex')}`)).toBeVisible()
  })

  test('an admin manages users on the Users page; the server’s refusals show in words', async ({ page }) => {
    await page.goto(`${BASE}/signin`)
    await signInThroughForm(page, ALICE)
    await expect(page).toHaveURL(`${BASE}/`)
    await page.goto(`${BASE}/admin/users`)
    await expect(page.getByRole('heading', { name: 'Users' })).toBeVisible()
    const add = page.getByRole('form', { name: 'Add a user' })
    await add.getByLabel('New user’s name').fill('carol')
    await add.getByLabel('Role').selectOption('viewer')
    await add.getByLabel(/^Password/).fill('too short')
    await add.getByRole('button', { name: 'Add user' }).click()
    await expect(add.getByRole('alert')).toContainText('at least 12 characters')
    // Refused: focus goes to the field the server named, beside the error (it fell to the page).
    await expect(add.getByLabel(/^Password/)).toBeFocused()
    await add.getByLabel(/^Password/).fill('carol long password 3')
    await add.getByRole('button', { name: 'Add user' }).click()
    await expect(page.getByRole('status').filter({ hasText: 'Added carol (viewer).' })).toBeVisible()
    const row = page.getByRole('row', { name: /carol/ })
    await row.getByLabel('Role of carol').selectOption('admin')
    await expect(page.getByText('carol is now admin.')).toBeVisible()
    await row.getByRole('button', { name: 'Disable carol' }).click()
    await expect(page.getByText('carol can no longer sign in.')).toBeVisible()
    await expect(row).toContainText('Disabled')
    // By keyboard: the question takes focus on Cancel, Escape puts it back on Remove.
    await row.getByRole('button', { name: 'Remove carol' }).focus()
    await page.keyboard.press('Enter')
    await expect(row.getByRole('button', { name: 'Cancel' })).toBeFocused()
    await page.keyboard.press('Escape')
    await expect(row.getByRole('button', { name: 'Remove carol' })).toBeFocused()
    await row.getByRole('button', { name: 'Remove carol' }).click()
    await row.getByRole('button', { name: 'Confirm removal of carol' }).click()
    await expect(page.getByText('Removed carol.')).toBeVisible()
    await expect(page.getByRole('row', { name: /carol/ })).toHaveCount(0)
    // The server keeps the last admin: alice cannot make herself a viewer.
    await page.getByRole('row', { name: /alice/ }).getByLabel('Role of alice').selectOption('viewer')
    await expect(page.getByRole('alert')).toContainText('alice is the last enabled admin')
    await expect(page.getByRole('alert')).toContainText('Could not change alice')
    // On a phone the table scrolls inside its own region, not the page (it stuck out by 3 px).
    await page.setViewportSize({ width: 390, height: 844 })
    await expect(page.getByRole('region', { name: 'Users (scrolls sideways)' })).toBeVisible()
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
  })

  test('the access log holds a history view and an export, each with the right user', async ({ page }) => {
    // vic reads a conversation history.
    await page.goto(`${BASE}/signin`)
    await signInThroughForm(page, VIC)
    await expect(page).toHaveURL(`${BASE}/`)
    await page.goto(`${BASE}${historyUrl(NUMBERS.big)}`)
    await expect(page.getByRole('table', { name: /Messages/ })).toBeVisible()
    await page.getByRole('group', { name: 'Signed-in user' }).getByRole('button', { name: 'Sign out' }).click()
    await expect(page).toHaveURL(/\/signin/)

    // alice (admin) reads the access log, filtered to vic, and exports it.
    await signInThroughForm(page, ALICE)
    await expect(page).toHaveURL(`${BASE}/`)
    await page.goto(`${BASE}/admin/access-log?user=vic&action=history.view`)
    const table = page.getByRole('table', { name: /Access log entries/ })
    await expect(table.getByRole('row').nth(1)).toContainText('history.view')
    await expect(table.getByRole('row').nth(1)).toContainText(NUMBERS.big.number)
    await expect(table.getByRole('row').nth(1)).toContainText('vic')
    const { name, text } = await downloadText(page, () => page.getByRole('link', { name: 'Export CSV' }).click())
    expect(name).toMatch(/^switchboard-access-log-\d{4}-\d{2}-\d{2}\.csv$/)
    const rows = parseCsv(text)
    expect(rows[0]).toEqual(['at', 'user', 'via', 'address', 'action', 'number', 'party', 'details'])
    expect(rows.slice(1).some((r) => r[1] === 'vic' && r[4] === 'history.view' && r[5] === NUMBERS.big.number)).toBe(true)
    // On paper, at A4's width: the filters in words, no controls, and the table within the sheet.
    const shown = page.viewportSize()!
    await page.setViewportSize({ width: 700, height: shown.height })
    await page.emulateMedia({ media: 'print' })
    await expect(page.locator('header').filter({ hasText: 'Printed:' })).toContainText('Entries with user vic, action history.view')
    await expect(page.getByRole('form', { name: 'Filter the access log' })).toBeHidden()
    await expect(page.getByRole('link', { name: 'Export CSV' })).toBeHidden()
    const widths = await page
      .getByRole('region', { name: 'Access log entries (scrolls sideways)' })
      .evaluate((el) => [el.querySelector('table')!.scrollWidth, el.clientWidth])
    expect(widths[0]).toBeLessThanOrEqual(widths[1]!)
    await page.emulateMedia({ media: 'screen' })
    await page.setViewportSize(shown)

    // The export itself is in the log, as alice's, under the subject its file is named by.
    await page.goto(`${BASE}/admin/access-log?action=access-log.export`)
    const first = page
      .getByRole('table', { name: /Access log entries/ })
      .getByRole('row')
      .nth(1)
    await expect(first).toContainText('alice')
    await expect(first).toContainText('Access log: exported access-log.export')
    expect(name.startsWith(`${fileStem(subjectOf('access-log.export'))}-`)).toBe(true)
    // No password ever reaches the log.
    const all = await page.evaluate(async () => await (await fetch('/api/auth/access-log?limit=500')).text())
    for (const secret of [ALICE.password, VIC.password, 'not the password!']) expect(all).not.toContain(secret)
  })
})

test.describe('team access, other servers', () => {
  test('a session ends after SESSION_IDLE_MIN without activity, and activity keeps it', async ({ page }) => {
    // A server of its own (a user added, PGlite opened) takes up to spawnProc's 90 s on a busy machine.
    test.setTimeout(150_000)
    // The server's clock is moved through e2e/clock-server.ts rather than waited out: a minute
    // of idleness costs no minute of the suite.
    const short = await accessServer(4091, { ACCESS: 'password', SESSION_IDLE_MIN: '1' }, [VIC], 'e2e/clock-server.ts')
    const advance = async (ms: number) => {
      const seen = short.proc.output().length
      short.proc.child.stdin?.write(`advance ${ms}\n`)
      await expect.poll(() => /clock \+\d+/.test(short.proc.output().slice(seen))).toBe(true)
    }
    try {
      await page.goto('http://127.0.0.1:4091/signin')
      await signInThroughForm(page, VIC)
      await expect(page).toHaveURL('http://127.0.0.1:4091/')
      expect((await me(page)).user).toEqual({ name: 'vic', role: 'viewer' })
      // Used within the minute, twice: 90 s after sign-in it is alive, never idle 60 s.
      await advance(45_000)
      expect((await me(page)).user).toEqual({ name: 'vic', role: 'viewer' })
      await advance(45_000)
      expect((await me(page)).user).toEqual({ name: 'vic', role: 'viewer' })
      // Then idle past the minute: the next page is the sign-in form, and the server knows no one.
      await advance(61_000)
      await page.goto(`http://127.0.0.1:4091${historyUrl(NUMBERS.big)}`)
      await expect(page).toHaveURL(/\/signin\?next=/)
      expect((await me(page)).user).toBeNull()
      // Mid-use: a history open when the session ends. Its next request is refused; the sign-in
      // page says the session ended, and nobody is shown signed in (it said "signed in as vic").
      await signInThroughForm(page, VIC)
      await expect(page).toHaveURL(/\/numbers\//)
      await expect(page.getByRole('button', { name: 'Next page' })).toBeEnabled()
      await advance(61_000)
      // The click's request is refused, unless the header's own check (every 10 s) was refused first
      // and the page has already gone: either way, the next stop is the sign-in page.
      await page
        .getByRole('button', { name: 'Next page' })
        .click({ timeout: 5_000 })
        .catch(() => undefined)
      await expect(page).toHaveURL(/\/signin\?next=.*ended=1/)
      await expect(page.getByRole('status').filter({ hasText: 'Your session ended' })).toBeVisible()
      await expect(page.getByText(/You are signed in as/)).toHaveCount(0)
      await expect(page.getByRole('button', { name: 'Sign out' })).toHaveCount(0)
    } finally {
      // The page leaves first: a chunk it is still fetching (the quiet-time preload) is not cut
      // by the server stopping, which the fixture would report as a console error.
      await page.goto('about:blank')
      await short.stop()
    }
  })

  test('ACCESS=header: the identity header from an address that is not a trusted proxy is refused (401)', async ({ page }) => {
    // A server of its own (PGlite opened) takes up to spawnProc's 90 s on a busy machine.
    test.setTimeout(150_000)
    const header = await accessServer(
      4092,
      { ACCESS: 'header', AUTH_HEADER: 'X-Forwarded-Email', TRUSTED_PROXIES: '10.20.30.40', ADMINS: 'boss@example.com' },
      [],
    )
    try {
      // The browser connects from 127.0.0.1, which is not in TRUSTED_PROXIES, and claims to be the admin.
      await page.setExtraHTTPHeaders({ 'X-Forwarded-Email': 'boss@example.com', 'X-Forwarded-For': '10.20.30.40' })
      const refused = page.waitForResponse(
        (r) => r.url().includes('/api/') && !r.url().includes('/api/auth/') && !r.url().endsWith('/api/meta'),
      )
      await page.goto('http://127.0.0.1:4092/')
      expect((await refused).status()).toBe(401)
      const users = await page.evaluate(async () => (await fetch('/api/auth/users')).status)
      expect(users).toBe(401)
      expect((await me(page)).user).toBeNull()
    } finally {
      // The page leaves first: a chunk it is still fetching (the quiet-time preload) is not cut
      // by the server stopping, which the fixture would report as a console error.
      await page.goto('about:blank')
      await header.stop()
    }
  })

  test('with the index on, a viewer is told who can forget indexed messages and who can export search results', async ({ page }) => {
    test.setTimeout(150_000)
    const indexed = await accessServer(4096, { ACCESS: 'password', INDEX: 'on' }, [VIC])
    const base = 'http://127.0.0.1:4096'
    try {
      await page.goto(`${base}/signin`)
      await signInThroughForm(page, VIC)
      await expect(page).toHaveURL(`${base}/`)
      await page.goto(`${base}/index`)
      await expect(page.getByRole('heading', { name: 'Message index' })).toBeVisible()
      // The missing control says who has it, as the missing exports do.
      await expect(page.getByText('Forgetting indexed messages is for admins')).toBeVisible()
      await expect(page.getByRole('button', { name: /^Forget/ })).toHaveCount(0)
      await page.screenshot({ path: '/tmp/viewer-index-1400.png' })
      // Search results: a viewer exports the rows shown; every match is an admin's, and the line says so.
      const synced = await page.evaluate(
        async (n) =>
          (await fetch('/api/index/sync', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(n) }))
            .status,
        NUMBERS.dozens,
      )
      expect(synced).toBeLessThan(300)
      await expect
        .poll(
          async () => {
            await page.goto(`${base}/search?numbers=${NUMBERS.dozens.number}`)
            return page
              .getByText(`Exporting every match is for ${whoCan('exportIndex')}.`)
              .waitFor({ timeout: 3_000 })
              .then(() => true)
              .catch(() => false)
          },
          { timeout: 60_000 },
        )
        .toBe(true)
      await expect(page.getByRole('button', { name: /^Export all/ })).toHaveCount(0)
      const shown = await page
        .getByRole('table', { name: /Search results/ })
        .locator('tbody tr')
        .count()
      expect(shown).toBeGreaterThan(0)
      const file = await downloadText(page, () => page.getByRole('button', { name: 'Export CSV' }).click())
      expect(file.name).toMatch(/^switchboard-search-.*rows-shown.*\.csv$/)
      const [header, ...rows] = parseCsv(file.text)
      expect(header).toContain('number')
      expect(rows).toHaveLength(36)
      expect(new Set(rows.map((r) => r[header!.indexOf('number')]))).toEqual(new Set([NUMBERS.dozens.number]))
    } finally {
      await page.goto('about:blank')
      await indexed.stop()
    }
  })

  test('the server refuses to start on 0.0.0.0 without a sign-in mode, naming ACCESS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-e2e-exposed-'))
    try {
      const outcome = await startProxy(4093, { HOST: '0.0.0.0', DATA_DIR: join(dir, 'data'), INDEX: 'off', LOG_REQUESTS: '0' }).catch(
        (err: unknown) => err,
      )
      if (!(outcome instanceof Error)) {
        await (outcome as Proc).stop()
        throw new Error('The server started on 0.0.0.0 with ACCESS=local; it must refuse.')
      }
      expect(outcome.message).toMatch(/exited [1-9]/)
      expect(outcome.message).toMatch(/ACCESS/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
