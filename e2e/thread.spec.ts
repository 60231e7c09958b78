import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { MILLION_INDEX_MS, NUMBERS, historyUrl, indexNumber } from './helpers'

test.describe('whole threads from the index', () => {
  test('"Other party" opens the whole thread: header with party, count and span; opens at the newest; older load on scroll-up without a jump', async ({
    page,
  }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
    await page.goto(historyUrl(NUMBERS.big))
    const firstParty = page
      .getByRole('table', { name: /Messages/ })
      .locator('tbody tr[aria-rowindex]')
      .first()
      .getByRole('link', { name: /^\(\d{3}\) \d{3}-\d{4}$/ })
    const partyText = (await firstParty.textContent()) ?? ''
    await firstParty.click()
    await expect(page).toHaveURL(/\/numbers\/18323232323\/thread\?.*party=\d+/)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Thread between (832) 323-2323 and ${partyText}`)
    // The tab names the page and the number, and follows a move to another page.
    await expect(page).toHaveTitle('Thread of (832) 323-2323 · Switchboard')
    const header = page.getByRole('heading', { name: partyText, level: 2 }).locator('..')
    await expect(header).toContainText(/[\d,]+ messages?, .+ – .+ · Dates in Local time/)
    const total = Number(/([\d,]+) messages?/.exec((await header.textContent()) ?? '')?.[1]?.replace(/,/g, ''))
    const box = page.getByRole('region', { name: /Messages with .*, oldest first/ })
    // Opens at the bottom: the newest message is in view.
    const bubbles = box.getByRole('listitem')
    await expect(bubbles.last()).toBeInViewport()
    expect(await axeViolations(page)).toEqual([])
    // The page scrolls no further than its content: the messages' screen-reader words stay in
    // their box (they once stretched the page by thousands of pixels of blank space).
    const overhang = await page.evaluate(() => document.documentElement.scrollHeight - document.body.getBoundingClientRect().height)
    expect(overhang).toBeLessThan(100)
    if (total > 100) {
      await expect(bubbles).toHaveCount(100)
      // The message at the top of the view keeps its place while older ones arrive above it.
      const anchor = await bubbles.first().getAttribute('data-ordinal')
      const offsetOf = (ordinal: string | null) =>
        box.evaluate((el, o) => {
          const li = el.querySelector(`li[data-ordinal="${o}"] > :last-child`)
          return li ? li.getBoundingClientRect().top - el.getBoundingClientRect().top : null
        }, ordinal)
      // Where the oldest loaded message sits in the content; scrolled to the top, that is also where it shows.
      const before = await box.evaluate((el, o) => {
        const li = el.querySelector(`li[data-ordinal="${o}"] > :last-child`)!
        return li.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop
      }, anchor)
      await box.evaluate((el) => (el.scrollTop = 0))
      await expect.poll(() => bubbles.count()).toBeGreaterThan(100)
      // 100 older messages arrived above it, and it has not moved on screen: no jump.
      await expect.poll(async () => Math.abs(((await offsetOf(anchor)) ?? 1e9) - before)).toBeLessThan(10)
    }
  })

  test('the party list filters, and each party links to its thread', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
    await page.goto(`/numbers/${NUMBERS.big.number}/thread?tid=${NUMBERS.big.tid}`)
    const list = page.getByRole('navigation', { name: /Parties/ })
    const links = list.getByRole('link')
    await expect(links.first()).toBeVisible()
    const all = await links.count()
    await list.getByRole('searchbox', { name: 'Filter parties' }).fill('917207')
    await expect.poll(() => links.count()).toBeLessThan(all)
    await links.first().click()
    await expect(page).toHaveURL(/party=1917207/)
    await expect(
      page
        .getByRole('region', { name: /Messages with/ })
        .getByRole('listitem')
        .first(),
    ).toBeVisible()
  })

  test('on a phone, the chosen party is scrolled into the party list (the last of many was out of sight)', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`/numbers/${NUMBERS.big.number}/thread?tid=${NUMBERS.big.tid}`)
    const list = page.getByRole('navigation', { name: /Parties/ })
    const links = list.getByRole('link', { name: /^\(\d{3}\) \d{3}-\d{4}/ })
    await expect(links.first()).toBeVisible()
    const count = await links.count()
    // More than the six a phone shows: the last is below the fold of the list.
    expect(count).toBeGreaterThan(6)
    const lastHref = (await links.nth(count - 1).getAttribute('href'))!
    await page.goto(lastHref)
    const current = list.locator('a[aria-current="page"]')
    await expect(current).toHaveAttribute('href', lastHref)
    await expect(current).toBeInViewport()
  })

  test("the 1,000,000-message history's thread with one party", { tag: '@scale' }, async ({ page }) => {
    // Needs the whole million indexed: minutes on this machine, so it is `npm run test:scale`'s.
    test.setTimeout(MILLION_INDEX_MS + 2 * 60_000)
    await indexNumber(NUMBERS.million, MILLION_INDEX_MS)
    await page.goto(`/numbers/${NUMBERS.million.number}/thread?tid=${NUMBERS.million.tid}`)
    const list = page.getByRole('navigation', { name: /Parties/ })
    await list.getByRole('link').first().click()
    const header = page.locator('#thread-title').locator('..')
    await expect(header).toContainText(/[\d,]+ messages/)
    await expect(
      page
        .getByRole('region', { name: /Messages with/ })
        .getByRole('listitem')
        .last(),
    ).toBeInViewport()
  })
})
