import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { verify } from '../proxy/alerts/signing'
import { DEMO_CREDENTIALS, makeAccount } from '../proxy/simulator/dataset'
import { DESK_INDEX } from '../proxy/simulator/desk-cases'
import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { indexNumber } from './helpers'

/**
 * The Alerts page, as the stack's local admin: a webhook channel added (its secret shown once, a
 * test that arrives signed at a real receiver on loopback, marked as a witness of the access log
 * on a stack without a signing key), a rule switched and a bad threshold
 * refused naming it, the desk's waiting customers firing an alert that links to the queue, then
 * acknowledged and silenced; by keyboard, at a phone's width, and through axe.
 */

const DESK = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60).numbers[DESK_INDEX]!

test.describe('alerts', () => {
  test.describe.configure({ mode: 'serial' })
  const got: Array<{ headers: IncomingHttpHeaders; body: string }> = []
  const receiver = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('utf8')))
    req.on('end', () => {
      got.push({ headers: req.headers, body })
      res.writeHead(200).end()
    })
  })
  let hook = ''

  test.beforeAll(async () => {
    test.setTimeout(120_000)
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok))
    hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
    await indexNumber(DESK, 100_000)
  })
  test.afterAll(async () => {
    receiver.closeAllConnections()
    await new Promise<void>((ok) => receiver.close(() => ok()))
  })

  test('a channel, a rule, a firing alert acknowledged and silenced, on a desktop', async ({ page }) => {
    test.setTimeout(60_000)
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.goto('/')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Alerts' })).toBeVisible()
    await expect(page).toHaveTitle(/^Alerts/)

    // Channels: a webhook to the receiver, its secret shown once, then a test that verifies.
    await page.getByRole('tab', { name: 'Channels' }).click()
    await expect(page).toHaveURL(/tab=channels/)
    const form = page.getByRole('form', { name: 'Add a channel' })
    await form.getByLabel('Name', { exact: true }).fill('Ops hook')
    await form.getByLabel('URL', { exact: true }).fill('http://10.9.9.9/hook')
    await form.getByRole('button', { name: 'Add channel' }).click()
    await expect(form.getByRole('alert')).toContainText(/private address.*ALERT_ALLOWED_HOSTS/)
    await form.getByLabel('URL', { exact: true }).fill(hook)
    await form.getByRole('button', { name: 'Add channel' }).click()
    await expect(page.getByRole('status').filter({ hasText: 'Added Ops hook.' })).toBeVisible()
    const secret = (await page.getByRole('note').locator('.font-mono').innerText()).trim()
    expect(secret).toMatch(/^whsec_/)
    const card = page.getByRole('article', { name: 'Ops hook' })
    await expect(card).toContainText('set (never shown again)')
    await card.getByRole('button', { name: 'Send a test to Ops hook' }).click()
    await expect(card.getByRole('status')).toContainText(/Test delivered \(200/)
    const last = got.at(-1)!
    expect(
      verify(
        secret,
        String(last.headers['webhook-id']),
        Number(last.headers['webhook-timestamp']),
        last.body,
        String(last.headers['webhook-signature']),
      ),
    ).toBe(true)
    await card.getByText(/^Delivery log/).click()
    await expect(card.getByText(/Test notice \(test\).*delivered/)).toBeVisible()
    // A witness of the access log: marked here; this stack has no signing key, and the page says nothing goes.
    await card.getByRole('checkbox', { name: 'Witness of the access log (Ops hook)' }).check()
    await expect(card).toContainText('yes: gets the access log’s signed head')
    const witnesses = page.getByRole('region', { name: 'Witnesses of the access log' })
    await expect(witnesses).toContainText('LOG_SIGNING_KEY_FILE is not set')
    await expect(witnesses.getByRole('button', { name: 'Send the signed head now' })).toHaveCount(0)
    // After a reload the secret is nowhere on the page.
    await page.reload()
    await expect(page.getByRole('article', { name: 'Ops hook' })).toBeVisible()
    expect(await page.content()).not.toContain(secret.slice(6))

    // Rules: a switch, and a threshold the server refuses, naming it.
    await page.getByRole('tab', { name: 'Rules' }).click()
    const rule = page.getByRole('form', { name: 'Customer waiting' })
    await rule.getByRole('checkbox', { name: 'On (Customer waiting)' }).uncheck()
    await expect(rule.getByRole('status')).toHaveText('Customer waiting is off.')
    await rule.getByRole('checkbox', { name: 'On (Customer waiting)' }).check()
    await expect(rule.getByRole('status')).toHaveText('Customer waiting is on.')
    await rule.getByLabel('Minutes', { exact: true }).fill('1')
    await rule.getByRole('button', { name: 'Save Customer waiting' }).click()
    await expect(rule.getByRole('alert')).toContainText('minutes must be at least 5.')
    await rule.getByLabel('Minutes', { exact: true }).fill('30')
    await rule.getByRole('button', { name: 'Save Customer waiting' }).click()
    await expect(rule.getByRole('status')).toHaveText('Customer waiting: thresholds saved.')

    // The desk's waiting customers fire at the next evaluation; the notice reaches the receiver.
    const before = got.length
    await page.getByRole('tab', { name: /^Firing now/ }).click()
    await expect(page).not.toHaveURL(/tab=/)
    await page.getByRole('button', { name: 'Check the rules now' }).click()
    await expect(page.getByRole('status').filter({ hasText: /^Rules checked: \d+ new/ })).toBeVisible()
    const alert = page.getByRole('article', { name: `Customer waiting · ${DESK.number}` })
    await expect(alert).toContainText(/customers? waiting longer than 30 min/)
    await expect(alert.getByRole('link', { name: 'Show the rows behind Customer waiting' })).toHaveAttribute(
      'href',
      `/desk/needs-reply?number=${DESK.number}`,
    )
    await expect.poll(() => got.slice(before).some((g) => (JSON.parse(g.body) as { type: string }).type === 'alert.firing')).toBe(true)
    // No customer phone in the notice (details are off by default).
    const notice = got.slice(before).find((g) => g.body.includes('Customer waiting'))!
    expect(notice.body).not.toMatch(/"phones"/)

    await alert.getByRole('button', { name: `Acknowledge Customer waiting on ${DESK.number}` }).click()
    await expect(alert).toContainText('Acknowledged')
    await alert.getByRole('combobox', { name: `How long to silence Customer waiting on ${DESK.number}` }).selectOption('1')
    await alert.getByRole('button', { name: `Silence Customer waiting on ${DESK.number}` }).click()
    await expect(page.getByText(new RegExp(`${DESK.number} silenced until`))).toBeVisible()
    await page.getByRole('button', { name: `End silence of ${DESK.number}` }).click()
    await expect(page.getByText('No silence is in force.')).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
  })

  test('by keyboard at a phone’s width, the page does not scroll sideways', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto('/alerts?tab=channels')
    await expect(page.getByRole('article', { name: 'Ops hook' })).toBeVisible()
    // Arrow keys move between the tabs, which hold the URL.
    await page.getByRole('tab', { name: 'Channels' }).focus()
    await page.keyboard.press('ArrowLeft')
    await expect(page.getByRole('tab', { name: 'Rules' })).toBeFocused()
    await expect(page).toHaveURL(/tab=rules/)
    await page.keyboard.press('Home')
    await expect(page.getByRole('tab', { name: /^Firing now/ })).toBeFocused()
    await page.keyboard.press('Tab')
    await expect(page.getByRole('article', { name: `Customer waiting · ${DESK.number}` })).toBeVisible()
    for (const tab of ['now', 'rules', 'channels', 'history']) {
      await page.goto(`/alerts${tab === 'now' ? '' : `?tab=${tab}`}`)
      await expect(page.getByRole('tabpanel')).toBeVisible()
      await expect(page.getByRole('status', { name: 'Loading alerts…' })).toHaveCount(0)
      const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }))
      expect(scroll, tab).toBeLessThanOrEqual(width)
      await page.screenshot({ path: `.test-results/alerts-390-${tab}.png`, fullPage: true })
    }
    expect(await axeViolations(page)).toEqual([])
  })
})
