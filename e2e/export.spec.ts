import { parse } from 'csv-parse/sync'
import { readFile } from 'node:fs/promises'
import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { MILLION_INDEX_MS, NUMBERS, indexNumber } from './helpers'

/*
 * The million-message history, from 2026-10-18 (UTC) to its newest message (2026-11-20 12:00,
 * one message every 47 s): 61,583 messages. The whole million is indexed first (minutes here),
 * so the count does not move under the test and the server is not busy building indexes.
 */
const QUERY = `numbers=${NUMBERS.million.number}&from=2026-10-18`
const EXPECTED = 61_583

// Indexes the whole million first: `npm run test:scale`, not `npm test`.
test.describe('exports with no cap', { tag: '@scale' }, () => {
  test.beforeAll(async () => {
    test.setTimeout(MILLION_INDEX_MS + 2 * 60_000)
    await indexNumber(NUMBERS.million, MILLION_INDEX_MS)
  })

  test('an uncapped export of 60,000+ messages: the tray shows progress, survives navigation, never downloads by surprise, and the file holds every row', async ({
    page,
  }) => {
    test.setTimeout(180_000)
    await page.goto(`/search?${QUERY}`)
    await expect(page.getByRole('status').filter({ hasText: '61,583 matches' })).toBeVisible({ timeout: 20_000 })
    let downloads = 0
    page.on('download', () => downloads++)
    // The index streams 60,000 rows in well under a second on loopback: a slow link (2 MB/s down)
    // keeps the export running while the user leaves the page, as on a real network.
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 2_000_000, uploadThroughput: -1 })
    await page.getByRole('button', { name: 'Export all 61,583 matches as CSV' }).click()
    const tray = page.getByRole('region', { name: 'Exports' })
    await expect(tray).toBeVisible()
    // Leave the page: the tray stays, with rows written of how many.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Numbers' }).click()
    await expect(page).toHaveURL(/\/$/)
    await expect(tray).toBeVisible()
    await expect(tray).toContainText(/of 61,583 rows written/)
    expect(await axeViolations(page)).toEqual([])
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
    // Finished after the user left: it offers Save instead of downloading.
    await expect(tray).toContainText(/Finished: 61,583 rows \([\d.]+ MB\), ready to save as switchboard-13053851232-[\w-]+\.csv/, {
      timeout: 120_000,
    })
    expect(downloads).toBe(0)
    const [download] = await Promise.all([page.waitForEvent('download'), tray.getByRole('button', { name: /^Save / }).click()])
    const name = download.suggestedFilename()
    expect(name).toMatch(/13053851232/)
    expect(name).not.toMatch(/1-50/)
    const text = await readFile(await download.path(), 'utf8')
    const rows = parse(text, { bom: true, relax_column_count: false }) as string[][]
    expect(rows.length - 1).toBe(EXPECTED)
    // Dates unambiguous: a UTC column with the Z.
    const header = rows[0]!
    const utc = header.findIndex((h) => /utc/i.test(h))
    expect(utc).toBeGreaterThanOrEqual(0)
    expect(rows[1]![utc]).toMatch(/Z$/)
  })

  test('Cancel stops the export and nothing is saved', async ({ page }) => {
    await page.goto(`/search?${QUERY}`)
    await expect(page.getByRole('status').filter({ hasText: '61,583 matches' })).toBeVisible({ timeout: 20_000 })
    let downloads = 0
    page.on('download', () => downloads++)
    // A slow link (2 MB/s down), so the export is still running when Cancel is pressed.
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 2_000_000, uploadThroughput: -1 })
    await page.getByRole('button', { name: 'Export all 61,583 matches as CSV' }).click()
    const tray = page.getByRole('region', { name: 'Exports' })
    await tray.getByRole('button', { name: 'Cancel export' }).click()
    await expect(tray).toContainText(/Cancelled after [\d,]+ rows\. Nothing was saved\./)
    await page.waitForTimeout(500)
    expect(downloads).toBe(0)
  })
})
