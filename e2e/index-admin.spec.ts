import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { startOwnProxy } from './helpers'

/**
 * The message index page, on a server of its own (a fresh DATA_DIR and its embedded simulator),
 * so indexing the whole account here does not load the shared stack the other specs use.
 */
test('the index page indexes every number, shows each one getting up to date, and forgets one', async ({ page }) => {
  test.setTimeout(180_000)
  const proxy = await startOwnProxy(4480, { SYNC_RATE: '0' })
  try {
    await page.goto(`${proxy.url}/index`)
    await expect(page.getByRole('heading', { name: 'Message index' })).toBeVisible()
    await expect(page.getByText('Nothing indexed yet')).toBeVisible()
    expect(await axeViolations(page)).toEqual([])

    await page.getByRole('button', { name: 'Index all numbers' }).click()
    await expect(page.getByRole('status').filter({ hasText: 'Indexing every number of the account has started.' })).toBeVisible()
    const table = page.getByRole('table', { name: 'Indexed numbers' })
    // The demo account's 60 numbers, one row each, under the header row.
    await expect.poll(() => table.getByRole('row').count(), { timeout: 60_000 }).toBe(61)

    const row = table.getByRole('row', { name: /\(855\) 200-9444/ })
    await expect(row).toContainText('Up to date', { timeout: 90_000 })
    await expect(row.getByRole('cell').nth(1)).toHaveText('36')
    expect(await axeViolations(page)).toEqual([])

    await row.getByRole('button', { name: 'Forget…: (855) 200-9444' }).click()
    await row.getByRole('button', { name: 'Delete 36 messages' }).click()
    await expect(page.getByRole('status').filter({ hasText: 'Forgot 36 messages of (855) 200-9444.' })).toBeVisible()
    // The number's messages are gone: its row is no longer up to date (or gone with its sync state).
    await expect.poll(async () => (await row.count()) === 0 || !/Up to date/.test(await row.innerText())).toBe(true)
  } finally {
    await proxy.stop()
  }
})
