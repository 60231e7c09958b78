import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { NUMBERS, startOwnProxy } from './helpers'
import { startSimulator } from './stack'

/**
 * What the account's listing says about a number, on the Index page: listed under two tids (a
 * finding naming both), and gone from the account after it was indexed ("Removed from the
 * account", no longer "Up to date"). A simulator and server of their own: the quirks change the
 * account's listing, which the shared stack's other specs read.
 */
test('the index page names a number listed twice and one removed from the account', { tag: '@long' }, async ({ page }) => {
  test.setTimeout(180_000)
  const simPort = 4483
  const sim = await startSimulator(simPort)
  const quirks = async (q: Record<string, unknown>) => {
    const res = await fetch(`http://127.0.0.1:${simPort}/__sim/quirks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(q),
    })
    expect(res.ok, await res.text()).toBe(true)
  }
  const proxy = await startOwnProxy(4482, {
    API_BASE_URL: `http://127.0.0.1:${simPort}`,
    API_SYS_ID: 'sim-demo',
    API_AUTH_TOKEN: 'sim-demo-token-7f3a',
  }).catch(async (err: unknown) => {
    await sim.stop()
    throw err
  })
  try {
    // One number listed twice whose second tid is refused; another whose second tid serves 700 messages of its own.
    await quirks({ listedTwice: [NUMBERS.one.number], twoHistories: [NUMBERS.hundreds.number] })
    await page.goto(`${proxy.url}/index`)
    await page.getByRole('button', { name: 'Index all numbers' }).click()
    const table = page.getByRole('table', { name: 'Indexed numbers' })
    // 60 numbers, the header, and the second history's line.
    await expect.poll(() => table.getByRole('row').count(), { timeout: 60_000 }).toBe(62)

    // Listed twice: one row, its finding in words naming the tid it is indexed under and the other.
    const twice = table.getByRole('row', { name: /\(514\) 790-1725/ })
    const finding = twice.locator('p').filter({ hasText: /^Worth a look: listed twice\./ })
    await expect(finding).toHaveText(/^Worth a look: listed twice\. Indexed under tid \S+; the account also lists it with tid \S+\.$/)
    const [, kept, other] = /tid (\S+);.* tid (\S+)\.$/.exec((await finding.textContent()) ?? '') ?? []
    expect([kept, other]).toContain(NUMBERS.one.tid)
    expect(kept).not.toBe(other)

    // Two histories: the second is a line of its own beside its number, and the finding says where its messages are.
    const [own, line] = await table.getByRole('row', { name: /\(720\) 295-1888/ }).all()
    await expect(own!).toContainText(
      /Worth a look: listed twice\. Indexed under tid KVYPFWW99804; the account also lists it with tid \S+\. That tid serves a history of its own, indexed beside it as line 2 \(tid \S+\)/,
    )
    await expect(line!).toContainText('(720) 295-1888 · line 2')
    await expect(line!).toContainText('Up to date', { timeout: 60_000 })
    await expect(line!).toContainText('A second history of (720) 295-1888')
    // Its messages are searchable: every one of the 700, each row naming the line.
    await page.goto(`${proxy.url}/search?numbers=${NUMBERS.hundreds.number}~2`)
    await expect(page.getByRole('status').filter({ hasText: 'matches' })).toHaveText('700 matches')
    const results = page.getByRole('table', { name: /Search results/ })
    await expect(results.getByRole('row').nth(1)).toContainText('(720) 295-1888 · line 2')
    await page.screenshot({ path: test.info().outputPath('second-line-search.png') })
    // "In history" opens the number's history under the line's tid, at that record.
    await results
      .getByRole('row')
      .nth(1)
      .getByRole('link', { name: /^In history/ })
      .click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('History of (720) 295-1888')
    await expect(page).toHaveURL(/tid=X02951888DUP/)
    await expect(page.getByRole('table', { name: /Messages/ }).locator('[data-marked="true"]')).toHaveCount(1)
    // The page's index parts read the line: its whole export is the line's 700 messages, not the number's 420.
    await expect(page.getByRole('button', { name: 'Export all 700 messages as CSV' })).toBeVisible()
    await page.screenshot({ path: test.info().outputPath('second-line-history.png'), fullPage: true })
    await page.goto(`${proxy.url}/index`)
    await expect.poll(() => table.getByRole('row').count(), { timeout: 60_000 }).toBe(62)

    // Indexed, then gone from the account's listing: the next listing marks it, whatever its sync left.
    const gone = table.getByRole('row', { name: /\(855\) 200-9444/ })
    await expect(gone).toContainText('Up to date', { timeout: 90_000 })
    await quirks({ removed: [NUMBERS.dozens.number] })
    await page.getByRole('button', { name: 'Index all numbers' }).click()
    await expect(gone).toContainText('Removed from the account')
    await expect(gone).not.toContainText('Up to date')
    await expect(gone).toContainText('What is indexed stays here until forgotten.')
    expect(await axeViolations(page)).toEqual([])

    // At a phone's width each number is a card, its findings in words within the screen.
    await page.setViewportSize({ width: 390, height: 844 })
    const card = page.getByRole('list', { name: 'Indexed numbers' }).getByRole('article', { name: '(514) 790-1725' })
    const onPhone = card.locator('p').filter({ hasText: /^Worth a look: listed twice\./ })
    await onPhone.scrollIntoViewIfNeeded()
    await expect(onPhone).toHaveText(/^Worth a look: listed twice\. Indexed under tid \S+; the account also lists it with tid \S+\.$/)
    const box = (await onPhone.boundingBox())!
    expect(box.x + box.width).toBeLessThanOrEqual(390)
    await expect(page.getByRole('article', { name: '(855) 200-9444' })).toContainText('Removed from the account')
  } finally {
    await proxy.stop()
    await sim.stop()
  }
})
