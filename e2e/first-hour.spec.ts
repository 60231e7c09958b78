import { expect, test } from './fixtures'
import { startOwnProxy } from './helpers'

/**
 * A newcomer's first minutes on `npm start` without an account: the server runs on its built-in
 * simulator, and the app says so on every page, with a first-run guide on the numbers page. Both
 * work by keyboard, stay put away once put away, and fit a phone. Screenshots land in /tmp for a
 * person to look at.
 */
test.describe('the demo says what it is', () => {
  let proxy: Awaited<ReturnType<typeof startOwnProxy>> | null = null
  test.beforeAll(async () => {
    test.setTimeout(180_000)
    // No API_BASE_URL: the embedded simulator answers, as on a first `npm start`.
    proxy = await startOwnProxy(4486, { API_BASE_URL: '', INDEX_AUTO_SYNC: 'off', SYNC_RATE: '0' })
  })
  test.afterAll(async () => {
    await proxy?.stop()
  })

  test('desktop: the demo notice and the first-run guide, by keyboard, remembered', async ({ page }) => {
    await page.setViewportSize({ width: 1400, height: 900 })
    await page.goto(`${proxy!.url}/`)
    const notice = page.getByRole('region', { name: 'Demo data from the built-in simulator' })
    await expect(notice).toContainText('Every number, customer and message here is made up')
    const guide = page.getByRole('region', { name: 'Welcome to Switchboard' })
    await expect(guide).toBeVisible()
    for (const name of ['Search every message', 'Read a number’s messages', 'See the callback audit’s problems', 'Open the desk'])
      await expect(guide.getByRole('link', { name })).toBeVisible()
    await expect(guide).toContainText(/numbers done so far|indexed/)
    await page.screenshot({ path: '/tmp/first-hour-1400.png', fullPage: true })

    // By keyboard: the notice folds to a label that stays, focus on the control that opens it again.
    const hide = notice.getByRole('button', { name: 'Hide this notice' })
    await hide.focus()
    await page.keyboard.press('Enter')
    const again = page.getByRole('button', { name: 'What is this?' })
    await expect(again).toBeFocused()
    await expect(page.getByText('Demo data (built-in simulator)', { exact: true })).toBeVisible()
    await guide.getByRole('button', { name: 'Hide this guide' }).click()
    await expect(guide).toHaveCount(0)
    await page.reload()
    await expect(page.getByText('Demo data (built-in simulator)', { exact: true })).toBeVisible()
    await expect(page.getByRole('region', { name: 'Welcome to Switchboard' })).toHaveCount(0)
    // On every page, not only the first.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click()
    await expect(page.getByText('Demo data (built-in simulator)', { exact: true })).toBeVisible()
    await page.screenshot({ path: '/tmp/first-hour-folded-1400.png' })
  })

  test('phone: the notice and the guide fit 390 px without sideways scrolling', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${proxy!.url}/`)
    await expect(page.getByRole('region', { name: 'Demo data from the built-in simulator' })).toBeVisible()
    await expect(page.getByRole('region', { name: 'Welcome to Switchboard' })).toBeVisible()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await page.screenshot({ path: '/tmp/first-hour-390.png', fullPage: true })
  })

  test('charts: the number picker filters as digits are typed, and picks with Enter', async ({ page }) => {
    await page.setViewportSize({ width: 1400, height: 900 })
    // An indexed number first, so the picker has numbers to offer.
    const r = await fetch(`${proxy!.url}/api/index/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ number: '18323232323' }),
    })
    expect(r.status).toBeLessThan(300)
    await page.goto(`${proxy!.url}/charts`)
    const box = page.getByRole('combobox', { name: 'Number' })
    await expect(box).toHaveValue('All numbers (account-wide)')
    await box.fill('832')
    const option = page.getByRole('option', { name: '(832) 323-2323' })
    await expect(option).toBeVisible({ timeout: 30_000 })
    await page.screenshot({ path: '/tmp/first-hour-combobox-1400.png' })
    await box.press('ArrowDown')
    await box.press('Enter')
    await expect(page).toHaveURL(/number=18323232323/)
    await expect(box).toHaveValue('(832) 323-2323')
  })
})

test.describe('the first-run guide with the index off', () => {
  let proxy: Awaited<ReturnType<typeof startOwnProxy>> | null = null
  test.beforeAll(async () => {
    test.setTimeout(180_000)
    proxy = await startOwnProxy(4487, { API_BASE_URL: '', INDEX: 'off' })
  })
  test.afterAll(async () => {
    await proxy?.stop()
  })

  // /api/meta says `index: { enabled: false }`; the app read a name the server never sent, and
  // the guide offered indexing progress on a server that does not index.
  test('says the index is off, and offers neither indexing progress nor what needs the index', async ({ page }) => {
    await page.goto(`${proxy!.url}/`)
    const guide = page.getByRole('region', { name: 'Welcome to Switchboard' })
    await expect(guide).toContainText('The message index is off on this server')
    await expect(guide).not.toContainText(/Nothing is indexed yet|numbers done so far/)
    // What needs the index is not offered; what does not is.
    await expect(guide.getByRole('link', { name: 'Search every message' })).toHaveCount(0)
    await expect(guide.getByRole('link', { name: 'Open the desk' })).toHaveCount(0)
    await expect(guide.getByRole('link', { name: 'Read a number’s messages' })).toBeVisible()
    await expect(guide.getByRole('link', { name: 'See the callback audit’s problems' })).toBeVisible()
    await page.screenshot({ path: '/tmp/first-hour-index-off.png' })
  })
})
