import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { NUMBERS, indexNumber, rowTexts } from './helpers'

/** The search page over the message index. The index persists for the whole run. */
test.describe('search all messages', () => {
  test.beforeAll(async () => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
  })

  test('a match on record 1,500 of the 2,345-message history is found, and links to its place in the history', async ({ page, sim }) => {
    await page.goto('/')
    await expect(page).toHaveTitle('Numbers · Switchboard')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click()
    await expect(page).toHaveTitle('Search · Switchboard')
    const box = page.getByRole('searchbox', { name: /Search all messages/ })
    await expect(box).toBeVisible()
    await box.fill('table')
    await page.getByRole('searchbox', { name: 'Other party' }).fill('(917) 207-9778')
    await page.getByLabel('From (day)').fill('2026-10-27')
    await page.getByLabel('To (day, included)').fill('2026-10-27')
    // The numbers picker is a combobox: type digits, pick from the list.
    const picker = page.getByRole('combobox', { name: 'Numbers' })
    await picker.fill('832 323')
    await page.getByRole('option', { name: '(832) 323-2323' }).click()
    await expect(page.getByRole('button', { name: 'Remove (832) 323-2323' })).toBeVisible()
    // The whole query is in the URL, so it survives a reload and can be shared.
    await expect(page).toHaveURL(/q=table/)
    await expect(page).toHaveURL(/party=9172079778/)
    await expect(page).toHaveURL(/numbers=18323232323/)
    await page.reload()
    await expect(page.getByRole('status').filter({ hasText: /^\d[\d,]* match(es)?/ })).toBeVisible()
    const table = page.getByRole('table', { name: /Search results/ })
    // Record 1,500 is a reminder to that customer that day.
    await expect(table).toContainText('your table for 2')
    // The match is highlighted as text in a <mark>.
    await expect(table.locator('mark').first()).toHaveText('table')
    await expect(page.getByText(/numbers indexed|still indexing/)).toBeVisible()
    expect(await axeViolations(page)).toEqual([])

    await table.getByRole('link', { name: 'In history: record 1,500 of (832) 323-2323' }).click()
    await expect(page).toHaveURL(/\/numbers\/18323232323\?.*page=30/)
    await expect(page.getByRole('navigation', { name: 'Pagination' }).locator('p[aria-live]')).toHaveText('1,451–1,500 of 2,345')
    const marked = page.getByRole('table', { name: /Messages/ }).locator('[data-marked="true"]')
    await expect(marked).toBeInViewport()
    await expect(marked).toContainText('1,500')
    await expect(marked).toContainText('Found')
    const found = await marked.textContent()
    // Seven messages arrive; the shared link still marks the message it named (by its ordinal),
    // now record 1,507 on page 31, not whichever message record 1,500 has become.
    const link = page.url()
    await sim.addMessages(NUMBERS.big.number, 7)
    await page.goto(link)
    await expect(page).toHaveURL(/page=31/)
    await expect(marked).toContainText('1,507')
    await expect(page.getByRole('navigation', { name: 'Pagination' }).locator('p[aria-live]')).toHaveText('1,501–1,550 of 2,352')
    expect((await marked.textContent())?.replace('1,507', '1,500')).toBe(found)
  })

  test('results come as you type, with the exact count; the empty and index states are in words', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}`)
    const box = page.getByRole('searchbox', { name: /Search all messages/ })
    await box.pressSequentially('zzqx-no-such', { delay: 20 })
    await expect(page.getByText('No messages match')).toBeVisible()
    await expect(page.getByRole('status').filter({ hasText: '0 matches' })).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
    await box.fill('')
    await expect(page.getByRole('status').filter({ hasText: '2,345 matches' })).toBeVisible()
    const numbers = await rowTexts(page, /Search results/, 0)
    expect(new Set(numbers)).toEqual(new Set(['(832) 323-2323']))
  })

  test('the search result links to the whole thread and the message page', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}&party=9172079778&q=code&from=2026-10-27&to=2026-10-27`)
    const table = page.getByRole('table', { name: /Search results/ })
    await expect(table).toContainText('your code is')
    await table
      .getByRole('link', { name: /^Details of record/ })
      .first()
      .click()
    await expect(page.getByRole('heading', { name: /^Record [\d,]+ of \(832\) 323-2323$/ })).toBeVisible()
    await expect(page.getByText('Raw:')).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
  })
})

test.describe('search dates in the reader’s own zone', () => {
  // UTC+14. Record p of the 2,345-message history is dated 2026-11-20 12:00 UTC − (p−1)·1,397 s, so the local
  // day 2026-11-19 (2026-11-18 10:00 to 2026-11-19 10:00 UTC) holds p = 69…129 (61 messages) and the UTC day
  // 2026-11-19 holds p = 32…93 (62 messages).
  test.use({ timezoneId: 'Pacific/Kiritimati' })
  test.beforeAll(async () => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
  })

  test('a day range is the shown zone’s days: local days in local time, UTC days in UTC', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}&from=2026-11-19&to=2026-11-19`)
    await expect(page.getByRole('status').filter({ hasText: /^61 matches/ })).toBeVisible()
    await page.goto(`/search?numbers=${NUMBERS.big.number}&from=2026-11-19&to=2026-11-19&tz=utc`)
    await expect(page.getByRole('status').filter({ hasText: /^62 matches/ })).toBeVisible()
  })
})
