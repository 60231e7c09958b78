import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { NUMBERS, indexNumber } from './helpers'

test.describe('charts', () => {
  test('per number: two charts and a table of the same figures; the range selector changes the days', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
    await page.goto(`/charts?number=${NUMBERS.big.number}&range=all`)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Charts: (832) 323-2323')
    await expect(page.getByRole('img', { name: /inbound and outbound messages per week/ })).toBeVisible()
    await expect(page.getByRole('img', { name: /failure rate per week/ })).toBeVisible()
    await expect(page.locator('canvas').first()).toBeVisible()
    const table = page.getByRole('table', { name: /Messages per week and failure rate/ })
    const total = table.locator('tfoot tr')
    // The table's totals add up to the whole indexed history.
    const cells = await total.locator('td').allTextContents()
    expect(Number(cells[0]!.replace(/,/g, '')) + Number(cells[1]!.replace(/,/g, ''))).toBe(2345)
    expect(await axeViolations(page)).toEqual([])

    await page.getByRole('radio', { name: '30 days' }).check()
    await expect(page).toHaveURL(/range=30d/)
    await expect(page.getByRole('table', { name: /Messages per day/ }).locator('tbody tr')).toHaveCount(30)
    expect(await axeViolations(page)).toEqual([])
  })

  test('account-wide, from the main navigation', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
    await page.goto('/')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Charts' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Charts: all numbers')
    await expect(page.getByRole('table', { name: /Messages per day and failure rate for all numbers/ }).locator('tbody tr')).toHaveCount(90)
    expect(await axeViolations(page)).toEqual([])
  })
})
