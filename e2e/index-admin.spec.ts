import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { NUMBERS, startOwnProxy } from './helpers'

/**
 * The message index page, on a server of its own (a fresh DATA_DIR and its embedded simulator),
 * so indexing the whole account here does not load the shared stack the other specs use.
 */
test(
  'the index page indexes every number, shows each one getting up to date, fits a phone, and forgets one',
  { tag: '@long' },
  async ({ page }) => {
    test.setTimeout(180_000)
    const proxy = await startOwnProxy(4480, { SYNC_RATE: '10' })
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

      // On a phone, with the whole account indexed: the pages whose tables and charts are wider than
      // the screen scroll inside a region of their own (reached with Tab), never the page itself.
      // Before: the index table's hidden "Actions" header widened the page to 411 px, the access
      // log's table to 843 and the charts at 320 px to 383. The index's numbers are cards there:
      // as a table, each row's Sync now and Forget… sat off-screen past four columns.
      for (const width of [390, 320]) {
        await page.setViewportSize({ width, height: 800 })
        for (const [path, ready] of [
          ['/index', page.getByRole('list', { name: 'Indexed numbers' }).getByRole('article', { name: '(855) 200-9444' })],
          ['/admin/access-log', page.getByRole('region', { name: 'Access log entries (scrolls sideways)' })],
          ['/charts', page.getByRole('img', { name: /^Line chart of inbound and outbound messages per/ })],
        ] as const) {
          await page.goto(`${proxy.url}${path}`)
          await expect(ready).toBeVisible()
          await expect
            .poll(() => page.evaluate(() => document.documentElement.scrollWidth), { message: `${path} at ${width} px` })
            .toBeLessThanOrEqual(width)
          if (path === '/index') {
            await expect(ready).toContainText('Up to date')
            await expect(ready).toContainText('Messages indexed36')
            for (const name of ['Sync now: (855) 200-9444', 'Forget…: (855) 200-9444']) {
              const box = await ready.getByRole('button', { name }).boundingBox()
              expect(box, name).not.toBeNull()
              expect(box!.x, `${name} at ${width} px`).toBeGreaterThanOrEqual(0)
              expect(box!.x + box!.width, `${name} at ${width} px`).toBeLessThanOrEqual(width)
            }
          }
        }
      }
      await page.setViewportSize({ width: 1280, height: 800 })

      // The desk's number picker by keyboard, with the account's numbers indexed: the arrow keys pass
      // numbers without opening (or logging) them; Enter opens the one reached, once.
      {
        /** The quiet-hours views the access log holds, newest first: their seq and number. */
        const views = () =>
          page.evaluate(async () => {
            const r = (await (await fetch('/api/auth/access-log?action=quiet-hours.view&limit=200')).json()) as {
              entries: Array<{ seq: string | null; details: { number?: string } }>
            }
            return r.entries.map((e) => ({ seq: Number(e.seq), number: e.details.number }))
          })
        await page.goto(`${proxy.url}/desk/quiet-hours`)
        const box = page.getByRole('combobox', { name: 'Number' })
        await box.focus()
        const before = Math.max(0, ...(await views()).map((v) => v.seq))
        // The arrow keys open the list and move through it: nothing is opened or logged on the way.
        await box.press('ArrowDown')
        const list = page.getByRole('listbox', { name: 'Number' })
        await expect(list.getByRole('option')).not.toHaveCount(0)
        for (let i = 0; i < 3; i++) await box.press('ArrowDown')
        const activeId = await box.getAttribute('aria-activedescendant')
        expect(activeId).toBeTruthy()
        const passed = ((await page.locator(`[id="${activeId}"]`).textContent()) ?? '').replace(/\D/g, '')
        expect(passed).toMatch(/^\d{10}$/)
        await page.waitForTimeout(1_000)
        await expect(page).toHaveURL(/\/desk\/quiet-hours$/)
        expect((await views()).filter((v) => v.seq > before)).toEqual([])
        // Enter picks the one the keys reached: one page opened, one view logged.
        await box.press('Enter')
        await expect(page).toHaveURL(new RegExp(`[?&]number=1?${passed}(&|$)`))
        await expect.poll(async () => (await views()).filter((v) => v.seq > before).length).toBe(1)
        // The page it opened keeps focus on the picker, for the next number.
        await expect(box).toBeFocused()
        const picked = await box.inputValue()
        // Escape goes back to the number open.
        await box.fill('zzz')
        await expect(page.getByText('No number matches “zzz”.')).toBeVisible()
        await box.press('Escape')
        await expect(box).toHaveValue(picked)
        // A pick with the pointer opens at once.
        await box.click()
        const other = list.getByRole('option').nth(4)
        const otherDigits = ((await other.textContent()) ?? '').replace(/\D/g, '')
        await other.click()
        await expect(page).toHaveURL(new RegExp(`[?&]number=1?${otherDigits}(&|$)`))
      }
      await page.goto(`${proxy.url}/index`)

      // The keyboard: the question takes focus on its safe answer, Escape takes it back, and focus
      // returns to the button that asked (it once fell to the page's body), here and for Forget all.
      const forgetOne = row.getByRole('button', { name: 'Forget…: (855) 200-9444' })
      await forgetOne.focus()
      await page.keyboard.press('Enter')
      await expect(row.getByRole('button', { name: 'Cancel' })).toBeFocused()
      await page.keyboard.press('Escape')
      await expect(forgetOne).toBeFocused()
      const forgetAll = page.getByRole('button', { name: 'Forget all…' })
      await forgetAll.focus()
      await page.keyboard.press('Enter')
      await expect(page.getByText('Delete every indexed message of every number?')).toBeVisible()
      await page.keyboard.press('Enter') // on Cancel
      await expect(forgetAll).toBeFocused()

      await forgetOne.click()
      await row.getByRole('button', { name: 'Delete 36 messages of (855) 200-9444' }).click()
      await expect(page.getByRole('status').filter({ hasText: 'Forgot 36 messages of (855) 200-9444.' })).toBeVisible()
      // The number's messages are gone, and the row says it is forgotten, not merely "Not indexed".
      await expect(row).toContainText('Forgotten')
      await expect(row).toContainText('The index leaves it alone until an admin presses Sync now or Index all numbers.')
      await expect(row).not.toContainText('Up to date')
      // Its history's conversations say so, and viewing it does not index it again.
      await page.goto(`${proxy.url}/numbers/${NUMBERS.dozens.number}?tid=${NUMBERS.dozens.tid}&view=conversation`)
      const notice = page.getByRole('status').filter({ hasText: 'messages of this number were forgotten' })
      await expect(notice).toContainText('It is left alone until an admin indexes it again.')
      await expect(page.getByText('No conversations indexed yet')).toBeVisible()
      await expect(page.getByText('They appear here once the number is indexed again.')).toBeVisible()
      await expect(page.getByText(/still being indexed/)).toHaveCount(0)
      await page.waitForTimeout(1_500)
      const state = async () => {
        const res = await fetch(`${proxy.url}/api/index/status?number=${NUMBERS.dozens.number}`)
        return ((await res.json()) as { numbers: Array<{ state: string; indexed: number }> }).numbers[0]
      }
      expect(await state()).toMatchObject({ state: 'never', indexed: 0 })
      // A person asks: indexed again, its conversations back.
      await notice.getByRole('button', { name: 'Index this number again' }).click()
      await expect(page.getByRole('listbox', { name: /^Conversations across the whole history/ })).toBeVisible({ timeout: 60_000 })
      await expect(notice).toHaveCount(0)
      await page.goto(`${proxy.url}/index`)
      await expect(row).toContainText('Up to date', { timeout: 60_000 })
      await expect(row).not.toContainText('Forgotten')
      await expect(row.getByRole('cell').nth(1)).toHaveText('36')
    } finally {
      await proxy.stop()
    }
  },
)
