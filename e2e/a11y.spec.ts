import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { NUMBERS, downloadText, historyUrl, rowTexts } from './helpers'

test.describe('axe-core finds no violations', () => {
  test('the scanner itself reports a planted violation', async ({ page }) => {
    await page.setContent('<html lang="en"><body><main><img src="data:,"><button></button></main></body></html>')
    const found = await axeViolations(page)
    expect(found.some((v) => v.startsWith('image-alt'))).toBe(true)
    expect(found.some((v) => v.startsWith('button-name'))).toBe(true)
  })

  for (const tab of ['All', 'Local', 'Toll-free']) {
    test(`numbers, ${tab} tab, with the audit summary`, async ({ page }) => {
      await page.goto('/')
      await page.getByRole('tab', { name: tab }).click()
      await expect(page.getByRole('region', { name: 'Callback audit' })).toBeVisible()
      await expect(page.getByRole('table', { name: /Owned numbers/ })).toBeVisible()
      expect(await axeViolations(page)).toEqual([])
    })
  }

  test('numbers, audit filter applied and column menu open', async ({ page }) => {
    await page.goto('/?audit=dlr.missing')
    await page.getByText('Columns', { exact: true }).click()
    await expect(page.getByRole('checkbox', { name: 'tid' })).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
  })

  test('history, log view', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.big, 'media=1'))
    await expect(page.getByRole('table', { name: /Messages/ })).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
  })

  test('history, conversation view', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.big, 'view=conversation'))
    await expect(page.getByRole('listbox')).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
  })

  test('history, media viewer open', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.big, 'media=1'))
    await page
      .getByRole('button', { name: /^Open Picture message/ })
      .first()
      .click()
    await expect(page.getByRole('dialog')).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
  })

  test('an error state', async ({ page, sim }) => {
    await sim.fault({ op: 'allownednumbers', kind: 'reject', message: 'Account suspended' })
    await page.goto('/')
    await expect(page.getByRole('alert')).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
  })

  test('the empty states', async ({ page, sim }) => {
    await page.goto(historyUrl(NUMBERS.empty))
    await expect(page.getByText(/No messages for/)).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
    await sim.fault({ op: 'allownednumbers', kind: 'empty_data' })
    await page.goto('/')
    await expect(page.getByText('This account owns no numbers')).toBeVisible()
    expect(await axeViolations(page)).toEqual([])
  })
})

/**
 * Every page in both themes: light is the system default here; dark comes from the
 * system's prefers-color-scheme, which public/theme.js reads before the first paint. Axe's
 * colour-contrast rule then checks every badge, audit label, chart legend and link against the
 * dark palette. Pages wait for their content, not a time.
 */
const EVERY_PAGE: Array<{ name: string; url: string; ready: (page: import('@playwright/test').Page) => Promise<void> }> = [
  {
    name: 'numbers, audit findings open',
    url: '/',
    ready: async (page) => {
      await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
      await page.getByText('Findings by kind, and endpoints').click()
      await expect(page.getByRole('button', { name: /dlr: Missing/ })).toBeVisible()
    },
  },
  {
    name: 'numbers, Any problem filter',
    url: '/?audit=problem',
    ready: async (page) => void (await expect(page.getByRole('button', { name: /Any problem/ })).toHaveAttribute('aria-pressed', 'true')),
  },
  {
    name: 'history, log with media',
    url: historyUrl(NUMBERS.big, 'media=1'),
    ready: async (page) => void (await expect(page.getByRole('table', { name: /Messages/ })).toBeVisible()),
  },
  {
    name: 'history, conversations',
    url: historyUrl(NUMBERS.big, 'view=conversation'),
    ready: async (page) => void (await expect(page.getByRole('listbox')).toBeVisible()),
  },
  {
    name: 'thread',
    url: `/numbers/${NUMBERS.big.number}/thread?tid=${NUMBERS.big.tid}&party=13105831111`,
    ready: async (page) => void (await expect(page.locator('[data-col="body"]').first()).toBeVisible({ timeout: 15_000 })),
  },
  {
    name: 'message',
    url: `/numbers/${NUMBERS.big.number}/messages/1?tid=${NUMBERS.big.tid}`,
    ready: async (page) => void (await expect(page.getByRole('heading', { level: 1 })).toBeVisible()),
  },
  {
    name: 'search',
    url: '/search?q=appointment',
    ready: async (page) => void (await expect(page.locator('[data-col="body"]').first()).toBeVisible({ timeout: 15_000 })),
  },
  {
    name: 'charts',
    url: `/charts?number=${NUMBERS.big.number}`,
    ready: async (page) => void (await expect(page.locator('canvas').first()).toBeVisible({ timeout: 15_000 })),
  },
  {
    name: 'not found',
    url: '/no/such/page',
    ready: async (page) => void (await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible()),
  },
]

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`every page in the ${scheme} theme`, () => {
    test.use({ colorScheme: scheme })
    for (const p of EVERY_PAGE) {
      test(`${p.name}: axe finds no violations`, async ({ page }) => {
        await page.goto(p.url)
        await expect(page.locator('html')).toHaveClass(scheme === 'dark' ? /\bdark\b/ : /^(?!.*\bdark\b)/)
        await p.ready(page)
        expect(await axeViolations(page)).toEqual([])
      })
    }
    test('narrow screen (cards): axe finds no violations', async ({ page }) => {
      await page.setViewportSize({ width: 390, height: 844 })
      await page.goto(historyUrl(NUMBERS.big, 'media=1'))
      await expect(page.locator('[data-col="body"]').first()).toBeVisible()
      expect(await axeViolations(page)).toEqual([])
      await page.goto('/')
      await expect(page.getByRole('list', { name: /Owned numbers/ })).toBeVisible()
      expect(await axeViolations(page)).toEqual([])
    })
  })
}

test.describe('keyboard only', () => {
  test('search, filter, tabs with arrow keys, open a history', async ({ page }) => {
    await page.goto('/')
    await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
    const search = page.getByRole('searchbox', { name: /Search/ })
    for (let i = 0; i < 16 && !(await search.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab')
    await expect(search).toBeFocused()
    await page.keyboard.type('2323')
    await expect(page.getByRole('status').filter({ hasText: '1 number of 60' })).toBeVisible()
    await page.keyboard.press('Shift+Tab')
    await expect(page.getByRole('tab', { name: 'All' })).toBeFocused()
    await page.keyboard.press('ArrowRight')
    await expect(page.getByRole('tab', { name: 'Local' })).toBeFocused()
    await expect(page.getByRole('tab', { name: 'Local' })).toHaveAttribute('aria-selected', 'true')
    await page.keyboard.press('ArrowLeft')
    await expect(page.getByRole('tab', { name: 'All' })).toHaveAttribute('aria-selected', 'true')
    await expect(page.getByRole('searchbox', { name: /Search/ })).toHaveValue('2323')
    const link = page.getByRole('link', { name: '(832) 323-2323', exact: true })
    for (let i = 0; i < 40 && !(await link.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab')
    await expect(link).toBeFocused()
    const outline = await link.evaluate((el) => getComputedStyle(el).outlineStyle)
    expect(outline).not.toBe('none')
    await page.keyboard.press('Enter')
    await expect(page.getByRole('heading', { name: 'History of (832) 323-2323' })).toBeVisible()
  })

  test('change page and page size, open and close the viewer, export, conversations with Load older', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.big))
    const tabTo = async (loc: import('@playwright/test').Locator, max = 60) => {
      for (let i = 0; i < max && !(await loc.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab')
      await expect(loc).toBeFocused()
    }
    await expect.poll(async () => (await rowTexts(page, /Messages/, 0))[0]).toBe('1')
    await tabTo(page.getByRole('button', { name: 'Next page' }))
    await page.keyboard.press('Enter')
    await expect(page.getByRole('navigation', { name: 'Pagination' })).toContainText('51–100 of 2,345')
    await page.keyboard.down('Shift')
    await tabTo(page.getByRole('combobox', { name: 'Rows per page' }))
    await page.keyboard.up('Shift')
    await page.keyboard.press('ArrowDown') // 50 -> 100
    await expect(page.getByRole('navigation', { name: 'Pagination' })).toContainText('1–100 of 2,345')

    await page.getByRole('checkbox', { name: 'Has media' }).focus()
    await page.keyboard.press('Space')
    const thumb = page.getByRole('button', { name: /^Open Picture message/ }).first()
    await tabTo(thumb)
    await page.keyboard.press('Enter')
    await expect(page.getByRole('dialog')).toBeVisible()
    // Focus stays inside the open dialog.
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => !!document.activeElement?.closest('dialog'))).toBe(true)
    await page.keyboard.press('Escape')
    await expect(page.getByRole('dialog')).toBeHidden()
    await expect(thumb).toBeFocused()

    await page.getByRole('button', { name: 'Export CSV' }).focus()
    const { text } = await downloadText(page, () => page.keyboard.press('Enter'))
    expect(text.split('\r\n').length).toBeGreaterThan(2)

    await page.getByRole('tab', { name: 'Log' }).focus()
    await page.keyboard.press('ArrowRight')
    await expect(page.getByRole('tab', { name: 'Conversations' })).toHaveAttribute('aria-selected', 'true')
    const listbox = page.getByRole('listbox')
    await tabTo(listbox)
    await page.keyboard.press('ArrowDown')
    await expect(listbox.getByRole('option').nth(1)).toHaveAttribute('aria-selected', 'true')
    // With the index on, the thread is the whole one with that party: older messages page in on demand.
    await tabTo(page.getByRole('button', { name: 'Load older' }))
    await page.keyboard.press('Enter')
    await expect(page.getByText(/^The whole thread: [\d,]+ messages(, the newest 200 loaded)?\./)).toBeVisible()
    await expect
      .poll(async () => page.getByRole('list', { name: 'Messages, oldest first' }).getByRole('listitem').count())
      .toBeGreaterThan(100)
  })
})

test.describe('announcements and structure', () => {
  test('result counts, page ranges and errors go to live regions; sort state is exposed', async ({ page, sim }) => {
    await page.goto('/')
    await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
    const count = page.getByRole('status').filter({ hasText: /^\d+ numbers/ })
    await expect(count).toHaveAttribute('aria-live', 'polite')
    await page.getByRole('searchbox', { name: /Search/ }).fill('hooks.switchboard')
    await expect(count).toHaveText(/^\d+ numbers of 60$/)
    const header = page.getByRole('columnheader', { name: /Number/ })
    await expect(header).toHaveAttribute('aria-sort', 'none')
    await header.getByRole('button').click()
    await expect(header).toHaveAttribute('aria-sort', 'ascending')
    const table = page.getByRole('table', { name: /Owned numbers/ })
    await expect(table).toHaveAttribute('aria-rowcount', /^\d+$/)
    const idx = await table.locator('tbody tr[aria-rowindex]').first().getAttribute('aria-rowindex')
    expect(idx).toBe('2')

    await page.goto(historyUrl(NUMBERS.big))
    const range = page.getByRole('navigation', { name: 'Pagination' }).locator('[aria-live="polite"]')
    await expect(range).toHaveText('1–50 of 2,345')
    await sim.fault({ op: 'smshistory', kind: 'reject', message: 'nope' })
    await page.getByRole('button', { name: 'Last page' }).click()
    await expect(page.getByRole('alert')).toBeVisible()
  })

  test('virtualised rows say where they are in the whole set', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.big, 'size=1000'))
    const table = page.getByRole('table', { name: /Messages/ })
    await expect(table).toHaveAttribute('aria-rowcount', '1001')
    const region = page.getByRole('region', { name: /Messages .* scrollable/ })
    await region.evaluate((el) => el.scrollTo(0, el.scrollHeight))
    await expect.poll(async () => table.locator('tbody tr[aria-rowindex]').last().getAttribute('aria-rowindex')).toBe('1001')
    expect(await table.locator('tbody tr[aria-rowindex]').count()).toBeLessThan(60)
  })

  test('reduced motion turns animations off', async ({ page, sim }) => {
    await page.emulateMedia({ reducedMotion: 'reduce' })
    await sim.fault({ op: 'allownednumbers', kind: 'latency', ms: 1500, times: 1 })
    await page.goto('/')
    const bar = page.getByRole('status', { name: 'Loading numbers' }).locator('div').first()
    const duration = await bar.evaluate((el) => getComputedStyle(el).animationDuration)
    expect(parseFloat(duration)).toBeLessThan(0.001)
    // The same element does pulse when motion is welcome: the check above is not vacuous.
    await page.emulateMedia({ reducedMotion: 'no-preference' })
    expect(parseFloat(await bar.evaluate((el) => getComputedStyle(el).animationDuration))).toBeGreaterThan(0.5)
  })
})
