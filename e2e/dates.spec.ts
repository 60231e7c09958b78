import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { MILLION_INDEX_MS, NUMBERS, historyUrl, indexNumber, startOwnProxy } from './helpers'
import { startSimulator } from './stack'

const rangeText = (page: import('@playwright/test').Page) => page.getByRole('navigation', { name: 'Pagination' }).locator('p[aria-live]')

/*
 * Simulator dates: record p of a history is END - (p-1)·step, END = 2026-11-20 12:00 UTC;
 * step 47 s for the million, 23 min 17 s for smaller histories. So:
 * - million, 2026-11-10 (UTC): the newest message of that day is record 17,465 (page 350 of 50);
 * - 5,000 messages, 2026-11-15 (UTC): record 280 (page 6).
 */
test.describe('go to date', () => {
  test('with the index it is a look-up: the first page holding that day, the row marked', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.thousands, 100_000)
    await page.goto(historyUrl(NUMBERS.thousands, 'tz=utc'))
    await expect(rangeText(page)).toHaveText('1–50 of 5,000')
    await page.getByLabel('Go to date').fill('2026-11-15')
    await page.getByRole('button', { name: 'Show that day' }).click()
    await expect(page.locator('#go-to-date-note')).toContainText('found with the message index')
    await expect(rangeText(page)).toHaveText('251–300 of 5,000')
    const marked = page.getByRole('table', { name: /Messages/ }).locator('[data-marked="true"]')
    await expect(marked).toContainText('280')
    await expect(marked).toBeInViewport()
    // Keyboard focus follows to the found record (it stayed in the form, scrolled off above).
    await expect(marked.getByRole('link', { name: 'Record 280: details' })).toBeFocused()
    expect(await axeViolations(page)).toEqual([])
    // A reload (or the link shared) shows the same: the day asked for, and where it led.
    await expect(page).toHaveURL(/[?&]date=2026-11-15(&|$)/)
    await page.reload()
    await expect(rangeText(page)).toHaveText('251–300 of 5,000')
    await expect(page.getByLabel('Go to date')).toHaveValue('2026-11-15')
    await expect(page.locator('#go-to-date-note')).toHaveText('Went to Sunday, November 15, 2026: record 280 is marked.')
    await expect(marked).toContainText('280')
  })

  test('asked before the index status has answered, it waits for the status and looks the day up in the index', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.thousands, 100_000)
    // A slow database: the status answers 3 s late (its real answer, held back). A click before then
    // bisected the history with one-record requests, though the index held it whole.
    let statusAsked = 0
    await page.route('**/api/index/status*', async (route) => {
      statusAsked++
      await new Promise((r) => setTimeout(r, 3_000))
      await route.continue().catch(() => undefined)
    })
    // One-record history requests (history_start = history_end): the bisection's look-ups.
    let oneRecord = 0
    page.on('request', (r) => {
      if (!r.url().endsWith('/api/smshistory')) return
      const f = new URLSearchParams(r.postData() ?? '')
      if (f.get('history_start') !== null && f.get('history_start') === f.get('history_end')) oneRecord++
    })
    await page.goto(historyUrl(NUMBERS.thousands, 'tz=utc'))
    await expect(rangeText(page)).toHaveText('1–50 of 5,000')
    expect(statusAsked).toBeGreaterThan(0)
    await page.getByLabel('Go to date').fill('2026-11-15')
    await page.getByRole('button', { name: 'Show that day' }).click()
    await expect(page.locator('#go-to-date-note')).toContainText('found with the message index', { timeout: 15_000 })
    await expect(rangeText(page)).toHaveText('251–300 of 5,000')
    expect(oneRecord).toBe(0)
  })

  test('without the index it bisects with 1-record requests, on the million-message history', { tag: '@long' }, async ({ page }) => {
    test.setTimeout(180_000)
    const simPort = 4473
    const sim = await startSimulator(simPort, { SIMULATOR_CONTROL: '1' })
    const proxy = await startOwnProxy(4472, {
      API_BASE_URL: `http://127.0.0.1:${simPort}`,
      API_SYS_ID: 'sim-demo',
      API_AUTH_TOKEN: 'sim-demo-token-7f3a',
      INDEX: 'off',
    }).catch(async (err: unknown) => {
      await sim.stop()
      throw err
    })
    try {
      await page.goto(`${proxy.url}${historyUrl(NUMBERS.million, 'tz=utc')}`)
      await expect(rangeText(page)).toHaveText('1–50 of 1,000,000')
      await fetch(`http://127.0.0.1:${simPort}/__sim/requests`, { method: 'DELETE' })
      await page.getByLabel('Go to date').fill('2026-11-10')
      await page.getByRole('button', { name: 'Show that day' }).click()
      await expect(page.locator('#go-to-date-note')).toContainText(/record 17,465\), found in \d+ one-record look-ups/, { timeout: 60_000 })
      await expect(rangeText(page)).toHaveText('17,451–17,500 of 1,000,000')
      await expect(page.getByRole('table', { name: /Messages/ }).locator('[data-marked="true"]')).toContainText('17,465')
      const log = (await (await fetch(`http://127.0.0.1:${simPort}/__sim/requests`)).json()) as {
        requests: Array<{ path: string; fields: Record<string, string[]> }>
      }
      const singles = log.requests.filter((r) => r.path === '/api/smshistory' && r.fields.history_start?.[0] === r.fields.history_end?.[0])
      expect(singles.length).toBeGreaterThanOrEqual(15)
      expect(singles.length).toBeLessThanOrEqual(22)
      // An error names what failed; a day before any message lands on the last page.
      await page.getByLabel('Go to date').fill('1999-01-01')
      await page.getByRole('button', { name: 'Show that day' }).click()
      await expect(page.locator('#go-to-date-note')).toContainText('No messages on or before', { timeout: 60_000 })
      await expect(rangeText(page)).toHaveText('999,951–1,000,000 of 1,000,000')
    } finally {
      // The page leaves first: its idle preloads would otherwise meet a server going away (a console error).
      await page.goto('about:blank')
      await proxy.stop()
      await sim.stop()
    }
  })

  test('with the index on the million-message history', { tag: '@scale' }, async ({ page }) => {
    // Needs the whole million indexed: minutes on this machine, so it is `npm run test:scale`'s.
    test.setTimeout(MILLION_INDEX_MS + 2 * 60_000)
    await indexNumber(NUMBERS.million, MILLION_INDEX_MS)
    await page.goto(historyUrl(NUMBERS.million, 'tz=utc'))
    await page.getByLabel('Go to date').fill('2026-11-10')
    await page.getByRole('button', { name: 'Show that day' }).click()
    await expect(page.locator('#go-to-date-note')).toContainText('record 17,465), found with the message index')
    await expect(rangeText(page)).toHaveText('17,451–17,500 of 1,000,000')
  })
})

test.describe('go to date in the reader’s own zone', () => {
  // UTC+14: the local day 2026-11-15 ends at 2026-11-15 10:00 UTC, 14 hours before the UTC day does.
  test.use({ timezoneId: 'Pacific/Kiritimati' })

  test('with the index, the day is the local day, not the UTC one', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.thousands, 100_000)
    await page.goto(historyUrl(NUMBERS.thousands))
    await expect(rangeText(page)).toHaveText('1–50 of 5,000')
    await expect(page.locator('#go-to-date-note')).toContainText('days in Local time (Pacific/Kiritimati)')
    await page.getByLabel('Go to date').fill('2026-11-15')
    await page.getByRole('button', { name: 'Show that day' }).click()
    // END − (p−1)·1,397 s < 2026-11-15 10:00 UTC first holds for p = 316 (the UTC day would give 280, on page 6).
    await expect(page.locator('#go-to-date-note')).toContainText('record 316), found with the message index')
    await expect(page.locator('#go-to-date-note')).toContainText('Showing the newest message of')
    await expect(rangeText(page)).toHaveText('301–350 of 5,000')
    await expect(page.getByRole('table', { name: /Messages/ }).locator('[data-marked="true"]')).toContainText('316')
  })
})
