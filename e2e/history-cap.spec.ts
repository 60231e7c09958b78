import { expect, test } from './fixtures'
import { NUMBERS, historyUrl, startOwnProxy } from './helpers'
import { startSimulator } from './stack'

/**
 * HISTORY_PAGE_CAP smaller than the page size a shared link was made with: the link names
 * records by page and size, and this server must show those records, not the same page number
 * of its smaller pages, and say what it did.
 */
test.describe('a history link under a smaller HISTORY_PAGE_CAP', () => {
  test('size=500&page=3 with a cap of 100 shows records 1,001–1,100 with a notice, and the URL names them', async ({ page }) => {
    test.setTimeout(180_000)
    const simPort = 4475
    const sim = await startSimulator(simPort, { SIMULATOR_CONTROL: '1' })
    const proxy = await startOwnProxy(4474, {
      API_BASE_URL: `http://127.0.0.1:${simPort}`,
      API_SYS_ID: 'sim-demo',
      API_AUTH_TOKEN: 'sim-demo-token-7f3a',
      API_TIMEOUT_MS: '3000',
      INDEX: 'off',
      HISTORY_PAGE_CAP: '100',
    }).catch(async (err: unknown) => {
      await sim.stop()
      throw err
    })
    try {
      const ranges = async () => {
        const res = await fetch(`http://127.0.0.1:${simPort}/__sim/requests`)
        const body = (await res.json()) as { requests: Array<{ path: string; fields: Record<string, string[]> }> }
        return body.requests.filter((r) => r.fields.history_start).map((r) => `${r.fields.history_start?.[0]}-${r.fields.history_end?.[0]}`)
      }
      const rangeText = page.getByRole('navigation', { name: 'Pagination' }).locator('p[aria-live]')
      await page.setViewportSize({ width: 1400, height: 900 })
      await page.goto(`${proxy.url}${historyUrl(NUMBERS.big, 'size=500&page=3')}`)
      await expect(rangeText).toHaveText('1,001–1,100 of 2,345')
      // The URL names the records shown, and keeps the ones the link named for the notice.
      await expect(page).toHaveURL(/[?&]size=100(&|$)/)
      await expect(page).toHaveURL(/[?&]page=11(&|$)/)
      await expect(page).toHaveURL(/[?&]asked=1001-1500(&|$)/)
      const notice = page.getByRole('status').filter({ hasText: 'This link named records' })
      await expect(notice).toHaveText(
        'This link named records 1,001–1,500, 500 a page. This server shows at most 100 records a page, so this is records 1,001–1,100; pages 11–15 hold all 500 of them.',
      )
      // Nothing outside the named records was asked of the upstream (the first page, 201–300, least of all).
      expect(await ranges()).not.toContain('201-300')
      expect(await ranges()).toContain('1001-1100')
      await page.screenshot({ path: '/tmp/history-cap-1400.png' })
      await page.setViewportSize({ width: 390, height: 844 })
      await page.screenshot({ path: '/tmp/history-cap-390.png' })
      await page.setViewportSize({ width: 1400, height: 900 })

      // A reload of the rewritten link shows the same records and the same notice.
      await page.reload()
      await expect(rangeText).toHaveText('1,001–1,100 of 2,345')
      await expect(notice).toBeVisible()
      // Paging on clears the notice: the page is then the reader's own, named by size and page alone.
      await page.getByRole('button', { name: 'Next page' }).click()
      await expect(rangeText).toHaveText('1,101–1,200 of 2,345')
      await expect(notice).toHaveCount(0)
      await expect(page).not.toHaveURL(/asked=/)

      // A size past every cap (2,000: above the largest any server allows) is refitted the same way,
      // not cut to 1,000 first (records 1,001–2,000 opened without a word).
      await page.goto(`${proxy.url}${historyUrl(NUMBERS.big, 'size=2000&page=2')}`)
      await expect(rangeText).toHaveText('2,001–2,100 of 2,345')
      await expect(page).toHaveURL(/[?&]asked=2001-4000(&|$)/)
      await expect(notice).toContainText('This link named records 2,001–4,000, 2,000 a page.')

      // A link whose size the cap allows is read as it always was.
      await page.goto(`${proxy.url}${historyUrl(NUMBERS.big, 'size=50&page=3')}`)
      await expect(rangeText).toHaveText('101–150 of 2,345')
      await expect(notice).toHaveCount(0)
    } finally {
      // The page leaves first: its idle preloads would otherwise meet a server going away (a console error).
      await page.goto('about:blank')
      await proxy.stop()
      await sim.stop()
    }
  })
})
