import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { expect, test } from './fixtures'
import { NUMBERS, historyUrl } from './helpers'
import { startProxy, startSimulator } from './stack'

/**
 * A sentinel API_AUTH_TOKEN is planted and the whole surface a browser or an operator can see
 * is searched for it: responses (bodies and headers, error bodies that quote it included),
 * request URLs, browser storage and cookies, the built bundle and the server's log.
 */
test('the auth token appears nowhere the browser or an operator can see', async ({ page }) => {
  // A simulator and a server of their own: their start-up alone can pass the 45 s default on a busy machine.
  test.setTimeout(150_000)
  const sentinel = `SENTINEL${randomBytes(8).toString('hex')}`
  const sysId = 'leak-acct-77'
  const sim = await startSimulator(4031, { SIM_EXTRA_ACCOUNT: `${sysId}:${sentinel}` })
  const proxy = await startProxy(4030, {
    API_BASE_URL: 'http://127.0.0.1:4031',
    API_SYS_ID: sysId,
    API_AUTH_TOKEN: sentinel,
    LOG_REQUESTS: '1',
  })
  const seen: string[] = []
  page.on('request', (req) => seen.push(`URL ${req.url()}`))
  page.on('response', async (res) => {
    seen.push(`HEADERS ${res.url()} ${JSON.stringify(res.headers())}`)
    const type = res.headers()['content-type'] ?? ''
    if (/json|text|javascript|html/.test(type)) seen.push(`BODY ${res.url()} ${await res.text().catch(() => '')}`)
  })
  try {
    const base = 'http://127.0.0.1:4030'
    await page.goto(`${base}/`)
    await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
    await page.getByRole('tab', { name: 'Toll-free' }).click()
    await expect(page.getByRole('table', { name: /toll-free/ })).toBeVisible()
    await page.goto(`${base}${historyUrl(NUMBERS.big, 'view=conversation')}`)
    await expect(page.getByRole('listbox')).toBeVisible()

    // An upstream whose error text quotes the credentials back.
    await fetch('http://127.0.0.1:4031/__sim/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'echo_token', op: 'smshistory' }),
    })
    await page.getByRole('button', { name: 'Last page' }).click()
    const alert = page.getByRole('alert')
    await expect(alert).toContainText('[redacted]')
    await expect(alert).not.toContainText(sentinel)

    const storage = await page.evaluate(() =>
      JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }),
    )
    const cookies = JSON.stringify(await page.context().cookies())
    const logs = proxy.output()
    expect(logs).toMatch(/Switchboard on/)
    expect(logs).toMatch(/POST \/api\/smshistory 502/)

    const dist = join(process.cwd(), 'dist')
    const files: string[] = []
    const walk = async (dir: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(join(dir, e.name))
        else files.push(await readFile(join(dir, e.name), 'latin1'))
      }
    }
    await walk(dist)

    expect(seen.length).toBeGreaterThan(10)
    for (const [where, text] of [
      ['responses and URLs', seen.join('\n')],
      ['browser storage', storage],
      ['cookies', cookies],
      ['server log', logs],
      ['bundle', files.join('\n')],
      ['page text', await page.locator('body').innerText()],
    ] as const) {
      expect(text.includes(sentinel), `token found in ${where}`).toBe(false)
    }
    // The sys_id is not secret the way the token is, but it is scrubbed from quoted errors too.
    expect(seen.filter((s) => s.startsWith('BODY')).join('\n')).not.toContain(sysId)
  } finally {
    await proxy.stop()
    await sim.stop()
  }
})
