import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { NUMBERS, indexNumber } from './helpers'

test.describe('charts', () => {
  test('per number: two charts and a table of the same figures; the range selector changes the days', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
    await page.goto(`/charts?number=${NUMBERS.big.number}&range=all`)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Charts: (832) 323-2323')
    await expect(page.getByRole('img', { name: /inbound and outbound messages per week/ })).toBeVisible()
    await expect(page.getByRole('img', { name: /failure rate per week/ })).toBeVisible()
    await expect(page.locator('canvas').first()).toBeVisible()
    const table = page.getByRole('table', { name: /Messages per week and failure rate/ })
    const total = table.locator('tfoot tr')
    // The table's totals add up to the whole indexed history.
    const cells = await total.locator('td').allTextContents()
    expect(Number(cells[0]!.replace(/,/g, '')) + Number(cells[1]!.replace(/,/g, ''))).toBe(2345)
    expect(await axeViolations(page)).toEqual([])

    await page.getByRole('radio', { name: '30 days' }).click()
    await expect(page).toHaveURL(/range=30d/)
    await expect(page.getByRole('table', { name: /Messages per day/ }).locator('tbody tr')).toHaveCount(30)
    expect(await axeViolations(page)).toEqual([])
  })

  test('the range answers an arrow key at once, on a slow CPU, before the charts under it have redrawn', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
    await page.goto(`/charts?number=${NUMBERS.big.number}&range=all`)
    await expect(page.getByRole('table', { name: /Messages per week and failure rate/ })).toBeVisible()
    await page.getByRole('radio', { name: 'All' }).focus()
    // From the key's click (after React has handled it) to the frame where the page shows the new
    // range: each frame's state of the radio picked and whether the page has committed the range.
    await page.evaluate(() => {
      const w = window as unknown as { samples: Array<{ checked: boolean; committed: boolean }> }
      w.samples = []
      const sample = () => {
        const radio = document.querySelector<HTMLInputElement>('input[name="range"][value="1y"]')!
        const note = [...document.querySelectorAll('p')].find((p) => p.textContent.startsWith('Days are'))!
        const s = { checked: radio.checked, committed: !note.textContent.includes('the whole indexed history') }
        w.samples.push(s)
        if (!s.committed) requestAnimationFrame(sample)
      }
      window.addEventListener('click', sample, { once: true })
    })
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 })
    await page.keyboard.press('ArrowLeft')
    await expect(page).toHaveURL(/range=1y/)
    await expect(page.getByText(/Days are .*, \d{4}-\d{2}-\d{2} to /)).toBeVisible({ timeout: 60_000 })
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 })
    const samples = await page.evaluate(() => (window as unknown as { samples: Array<{ checked: boolean; committed: boolean }> }).samples)
    // The page took at least one frame to follow (else this proves nothing), and every frame showed the pick.
    expect(samples.filter((s) => !s.committed).length).toBeGreaterThan(0)
    expect(samples.filter((s) => !s.checked)).toEqual([])
    await expect(page.getByRole('radio', { name: 'A year' })).toBeChecked()
    await expect(page.getByRole('radio', { name: 'A year' })).toBeFocused()
  })

  test('in UTC the days are UTC days, and every day opened in Search has as many messages as counted', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
    await page.goto(`/charts?number=${NUMBERS.big.number}&range=30d&tz=utc`)
    await expect(page.getByText(/Days are UTC days/)).toBeVisible()
    const figures = page.getByRole('region', { name: /Chart figures/ })
    const rows = figures.locator('tbody tr')
    await expect(rows).toHaveCount(30)
    // The busiest day: a zone mix-up would move some of its messages to a neighbouring day.
    const totals = await rows.evaluateAll((trs) =>
      trs.map((tr) => {
        const [i, o] = [...tr.querySelectorAll('td')].map((td) => Number(td.textContent!.replace(/,/g, '')))
        return { day: tr.querySelector('th')!.textContent!.trim(), n: i! + o! }
      }),
    )
    const busiest = totals.reduce((a, b) => (b.n > a.n ? b : a))
    expect(busiest.n).toBeGreaterThan(0)
    await figures.getByRole('link', { name: `${busiest.day}: open its messages` }).click()
    await expect(page).toHaveURL(new RegExp(`from=${busiest.day}&to=${busiest.day}`))
    await expect(page).toHaveURL(/tz=utc/)
    await expect(page.getByRole('status').filter({ hasText: /^[\d,]+ match/ })).toHaveText(
      new RegExp(`^${busiest.n.toLocaleString('en-US')} match`),
    )
  })

  test('account-wide, from the main navigation', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
    await page.goto('/')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Charts' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Charts: all numbers')
    await expect(page.getByRole('table', { name: /Messages per day and failure rate for all numbers/ }).locator('tbody tr')).toHaveCount(90)
    expect(await axeViolations(page)).toEqual([])
  })

  test('at phone width the figures fit: short column titles on screen, the full ones for a screen reader', async ({ page }) => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`/charts?number=${NUMBERS.big.number}`)
    const table = page.getByRole('table', { name: /Messages per day and failure rate/ })
    await expect(table.locator('tbody tr')).toHaveCount(90)
    for (const name of ['Day', 'Inbound', 'Outbound', 'Failed', 'Failure rate'])
      await expect(table.getByRole('columnheader', { name, exact: true })).toBeVisible()
    const region = page.getByRole('region', { name: 'Chart figures, scrollable' })
    // No column behind a sideways scroll ("Failure rate" was cut at the right edge).
    expect(await region.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0)
    await expect(table.locator('tbody tr').first().locator('th')).toHaveText(/^\d{4}-\d{2}-\d{2}$/)
    expect(
      await table
        .locator('tbody tr')
        .first()
        .locator('th')
        .evaluate((el) => el.getBoundingClientRect().height),
    ).toBeLessThan(30)
  })
})

test.describe('chart colours', () => {
  for (const scheme of ['light', 'dark'] as const) {
    test(`series lines reach 3:1 and axis text 4.5:1 against the page, ${scheme} theme`, async ({ page }) => {
      test.setTimeout(120_000)
      await indexNumber(NUMBERS.big, 100_000)
      await page.emulateMedia({ colorScheme: scheme })
      await page.goto(`/charts?number=${NUMBERS.big.number}&range=all`)
      await expect(page.locator('canvas').first()).toBeVisible()
      // The canvas cannot be read by axe: measure the colours the charts draw with, as the browser resolves them.
      const m = await page.evaluate(() => {
        const probe = document.createElement('canvas').getContext('2d')!
        const rgb = (css: string) => {
          probe.clearRect(0, 0, 1, 1)
          probe.fillStyle = css
          probe.fillRect(0, 0, 1, 1)
          const [r, g, b] = probe.getImageData(0, 0, 1, 1).data
          return [r!, g!, b!]
        }
        const lum = ([r, g, b]: number[]) => {
          const c = [r!, g!, b!].map((v) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4))
          return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!
        }
        const ratio = (a: number[], b: number[]) => {
          const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p)
          return (x! + 0.05) / (y! + 0.05)
        }
        const figure = document.querySelector('figure')!
        let el: Element | null = figure
        let bg = 'rgb(255, 255, 255)'
        while (el) {
          const c = getComputedStyle(el).backgroundColor
          if (c && c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') {
            bg = c
            break
          }
          el = el.parentElement
        }
        const back = rgb(bg)
        const swatches = [...document.querySelectorAll('figcaption span[aria-hidden="true"]')].map(
          (s) => getComputedStyle(s).backgroundColor,
        )
        const axis = getComputedStyle(document.documentElement).getPropertyValue('--color-slate-700').trim()
        return {
          dark: document.documentElement.classList.contains('dark'),
          background: lum(back),
          series: swatches.map((s) => ratio(rgb(s), back)),
          axis: ratio(rgb(axis), back),
        }
      })
      expect(m.dark).toBe(scheme === 'dark')
      if (scheme === 'dark') expect(m.background).toBeLessThan(0.1)
      else expect(m.background).toBeGreaterThan(0.8)
      expect(m.series).toHaveLength(3) // inbound, outbound, failure rate
      for (const r of m.series) expect(r).toBeGreaterThanOrEqual(3)
      expect(m.axis).toBeGreaterThanOrEqual(4.5)
    })
  }
})
