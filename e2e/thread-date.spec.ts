import type { Page } from '@playwright/test'
import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { NUMBERS, indexNumber } from './helpers'

/**
 * The thread's go-to-date, as the number's history has it: a day typed and Enter, by keyboard,
 * marks the newest message with that party on or before that day (found in the index), the day
 * and the message go in the URL so a reload lands there again, and it fits a phone.
 */
const PARTY = '13105831111'
const threadUrl = `/numbers/${NUMBERS.big.number}/thread?tid=${NUMBERS.big.tid}&party=${PARTY}&tz=utc`

/** The thread's messages, newest first, from the index's own answer: what the page should land on. */
async function threadRows(page: Page): Promise<Array<{ ordinal: number; date: string }>> {
  const r = await page.request.get(`/api/index/thread?number=${NUMBERS.big.number}&party=${PARTY}&limit=500`)
  expect(r.status()).toBe(200)
  return ((await r.json()) as { rows: Array<{ ordinal: number; date: string }> }).rows
}

/** The newest message on or before the end of `day` (UTC). */
const newestBy = (rows: Array<{ ordinal: number; date: string }>, day: string) => rows.find((m) => m.date.slice(0, 10) <= day)!

test.describe('thread: go to date', () => {
  test.beforeAll(async () => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
  })

  test('by keyboard at a desk: the day marked, in the URL, and again after a reload', async ({ page }) => {
    test.setTimeout(60_000)
    await page.setViewportSize({ width: 1280, height: 900 })
    const rows = await threadRows(page)
    expect(rows.length).toBeGreaterThan(60)
    // A day some way back, with messages with this party on it.
    const day = rows[rows.length - 20]!.date.slice(0, 10)
    const expected = newestBy(rows, day)
    await page.goto(threadUrl)
    const thread = page.getByRole('region', { name: /^Messages with .*, oldest first$/ })
    await expect(thread.locator('li[data-ordinal]').first()).toBeVisible({ timeout: 15_000 })
    const field = page.getByLabel('Go to date')
    await field.focus()
    await page.keyboard.type(day.slice(5, 7) + day.slice(8, 10) + day.slice(0, 4))
    await expect(field).toHaveValue(day)
    await page.keyboard.press('Enter')
    await expect(page.locator('#go-to-date-note')).toContainText('Showing the newest message of')
    await expect(page).toHaveURL(new RegExp(`[?&]at=${expected.ordinal}(&|$)`))
    await expect(page).toHaveURL(new RegExp(`[?&]date=${day}(&|$)`))
    const marked = thread.locator('[data-marked="true"]')
    await expect(marked).toHaveAttribute('data-ordinal', String(expected.ordinal))
    await expect(marked).toBeInViewport()
    await expect(marked).toContainText('The newest message on or before')
    await page.screenshot({ path: '.test-results/thread-go-to-date-1280.png' })
    expect(await axeViolations(page)).toEqual([])

    await page.reload()
    await expect(page.getByLabel('Go to date')).toHaveValue(day)
    await expect(page.locator('#go-to-date-note')).toContainText('Went to')
    await expect(thread.locator('[data-marked="true"]')).toHaveAttribute('data-ordinal', String(expected.ordinal))
  })

  test('at 390 px: the form fits, a day before the thread began says so', async ({ page }) => {
    test.setTimeout(60_000)
    await page.setViewportSize({ width: 390, height: 844 })
    const rows = await threadRows(page)
    const day = rows[5]!.date.slice(0, 10)
    const expected = newestBy(rows, day)
    await page.goto(threadUrl)
    await expect(page.locator('li[data-ordinal]').first()).toBeVisible({ timeout: 15_000 })
    await page.getByLabel('Go to date').fill(day)
    await page.getByRole('button', { name: 'Show that day' }).click()
    await expect(page.locator('[data-marked="true"]')).toHaveAttribute('data-ordinal', String(expected.ordinal))
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    const button = await page.getByRole('button', { name: 'Show that day' }).boundingBox()
    expect(button!.x + button!.width).toBeLessThanOrEqual(390)
    await page.screenshot({ path: '.test-results/thread-go-to-date-390.png' })
    expect(await axeViolations(page)).toEqual([])

    await page.getByLabel('Go to date').fill('2001-01-01')
    await page.getByRole('button', { name: 'Show that day' }).click()
    await expect(page.locator('#go-to-date-note')).toHaveText(/^No messages with \(310\) 583-1111 on or before Monday, January 1, 2001\.$/)
  })
})
