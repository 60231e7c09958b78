import { expect, test } from './fixtures'
import { readFile } from 'node:fs/promises'
import { axeViolations } from './axe'
import { NUMBERS, historyUrl, parseCsv, startOwnProxy } from './helpers'
import { startSimulator } from './stack'

/*
 * From a fresh start on a server of its own (a new data directory, INDEX_AUTO_SYNC=off, syncs
 * held to 6 requests a second of 100 records), so a sync lasts long enough to be seen: a number's
 * 5,000 messages take 10 to 20 s, the account (with its million-message number) far longer.
 */
const SIM_PORT = 4477
const APP_PORT = 4476

// At a phone's width in `npm test`; at a desk's in the long tier (@long: npm run test:scale).
for (const width of [1400, 390]) {
  test(
    `at ${width} px: the whole history exported while it syncs, its conversations from the index, then the account indexed from Search with progress in the header and on the Index page`,
    { tag: width === 390 ? [] : '@long' },
    async ({ page }) => {
      test.setTimeout(240_000)
      await page.setViewportSize({ width, height: 900 })
      const sim = await startSimulator(SIM_PORT)
      const proxy = await startOwnProxy(APP_PORT, {
        API_BASE_URL: `http://127.0.0.1:${SIM_PORT}`,
        API_SYS_ID: 'sim-demo',
        API_AUTH_TOKEN: 'sim-demo-token-7f3a',
        SYNC_RATE: '6',
        SYNC_CONCURRENCY: '1',
        HISTORY_PAGE_CAP: '100',
      }).catch(async (err: unknown) => {
        await sim.stop()
        throw err
      })
      const base = proxy.url
      const shot = (name: string) => page.screenshot({ path: `/tmp/index-progress-${width}-${name}.png`, fullPage: false })
      try {
        // 1. A history still being indexed: its whole export waits for the sync, then holds every message.
        await page.goto(`${base}${historyUrl(NUMBERS.thousands)}`)
        const exportAll = page.getByRole('region', { name: 'Export the whole history' })
        await expect(exportAll).toContainText('It is still being indexed')
        let downloads = 0
        page.on('download', () => downloads++)
        // The file comes once the sync has ended: longer than a download's usual wait.
        const saved = page.waitForEvent('download', { timeout: 120_000 })
        await exportAll.getByRole('button', { name: 'Export all 5,000 messages as CSV' }).click()
        const tray = page.getByRole('region', { name: 'Exports' })
        await expect(tray).toContainText(/Waiting for this number to be indexed: [\d,]+ of 5,000 messages so far/, { timeout: 10_000 })
        await expect(tray.getByRole('progressbar', { name: /^Indexing before History of/ })).toBeVisible()
        await shot('export-waiting')
        // Nothing is saved before the sync ends: a file cut short is what this replaces.
        expect(downloads).toBe(0)
        const download = await saved
        expect(parseCsv(await readFile(await download.path(), 'utf8')).length - 1).toBe(5_000)
        expect(download.suggestedFilename().length).toBeLessThanOrEqual(60)
        await expect(tray).toContainText(/Saved 5,000 rows \([\d.]+ (KB|MB)\) to your browser's downloads as /)
        await shot('export-saved')
        await tray.getByRole('button', { name: 'Dismiss' }).click()
        // No sync runs: the header shows no indicator (the one it shows while a sync runs is step 4's).
        await expect(page.getByRole('progressbar', { name: 'Indexing the account' })).toHaveCount(0, { timeout: 15_000 })

        // 2. Its Conversations tab is the whole history, from the index.
        await page.getByRole('tab', { name: 'Conversations' }).click()
        const parties = page.getByRole('listbox', { name: /^Conversations across the whole history \([\d,]+\)$/ })
        await expect(parties).toBeVisible()
        const counts = (await parties.getByRole('option').locator('span.tabular-nums').allTextContents()).map((t) =>
          Number(/^([\d,]+)/.exec(t)?.[1]?.replace(/,/g, '') ?? 'NaN'),
        )
        expect(counts.reduce((a, b) => a + b, 0)).toBe(5_000)
        await expect(page.getByText(/^The whole thread: [\d,]+ messages/)).toBeVisible()
        await expect(page.getByText('This view covers the loaded records only')).toHaveCount(0)
        await shot('conversations')
        expect(await axeViolations(page)).toEqual([])

        // 3. Search says what it covers, and offers to index the rest of the account.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click()
        await expect(page.getByText(/^1 of 1 numbers indexed, up to /)).toBeVisible()
        await expect(page.getByText(/this server does not index the account on its own \(INDEX_AUTO_SYNC=off\)/)).toBeVisible()
        await shot('search-offer')
        await page.getByRole('button', { name: 'Index all numbers' }).click()
        await expect(page.getByText('Indexing has started: matches grow as numbers are indexed.')).toBeVisible()

        // 4. The header follows it, and links to the Index page's figures.
        const indicator = page.getByRole('link', { name: /^Indexing [\d,]+\/[\d,]+ numbers/ })
        await expect(indicator).toBeVisible({ timeout: 15_000 })
        await expect(page.getByRole('progressbar', { name: 'Indexing the account' })).toHaveAttribute('aria-valuetext', /numbers$/)
        await shot('header-indexing')
        await indicator.click()
        await expect(page).toHaveURL(/\/index$/)
        const overall = page.getByRole('region', { name: 'Indexing the account' })
        await expect(overall).toBeVisible()
        const figure = (term: string) => overall.locator('dt', { hasText: term }).locator('xpath=following-sibling::dd[1]')
        await expect(figure('Numbers done')).toHaveText(/^[\d,]+ of [\d,]+$/)
        // The rate is the server's, over the last half minute.
        await expect(figure('Rate')).toHaveText(/^[\d,]+ messages\/s$/, { timeout: 20_000 })
        // Known once a number still to come has told its total; until then the page says so rather than guess.
        await expect(figure('Time left')).toHaveText(/^(about .+|under a minute|not known yet)$/)
        await shot('index-page')
        expect(await axeViolations(page)).toEqual([])
      } finally {
        // The page leaves first: its idle preloads would otherwise meet a server going away (a console error).
        await page.goto('about:blank')
        await proxy.stop()
        await sim.stop()
      }
    },
  )
}
