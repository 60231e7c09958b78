import { expect, test } from './fixtures'
import { appUrl, NUMBERS, historyUrl, indexNumber } from './helpers'

/** A new user's ordinary steps, as they would take them: typing, clicking, reading. */
test.describe('date fields', () => {
  test.beforeAll(async () => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
  })

  test('typing a date digit by digit changes the URL only once the date is whole', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}&tz=utc`)
    await expect(page.getByRole('status').filter({ hasText: /^2,345 matches/ })).toBeVisible()
    const from = page.getByLabel('From (day)')
    // focus(), not a click: a click lands on whichever part (month, day, year) is under the pointer.
    await from.focus()
    // Each URL the page passes through while the digits go in: none may name a partial date.
    const seen: string[] = []
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) seen.push(f.url())
    })
    const urls: string[] = []
    for (const key of '11192026') {
      await page.keyboard.type(key)
      urls.push(page.url())
    }
    await expect(page).toHaveURL(/from=2026-11-19/)
    await expect(from).toHaveValue('2026-11-19')
    const partial = [...urls, ...seen].map((u) => new URL(u).searchParams.get('from')).filter((v) => v !== null && v !== '2026-11-19')
    expect(partial).toEqual([])
    await expect(page.getByRole('status').filter({ hasText: /^\d+ match/ })).not.toHaveText(/^2,345/)

    // Pasting (a fill) a whole date commits it; clearing the field removes the filter.
    await page.getByLabel('To (day, included)').fill('2026-11-19')
    await expect(page).toHaveURL(/to=2026-11-19/)
    await expect(page.getByRole('status').filter({ hasText: /^62 matches/ })).toBeVisible()
    await from.fill('')
    await expect(page).not.toHaveURL(/from=/)
  })

  test('a half-typed date is not saved and the field says what is missing', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}&from=2026-11-19&tz=utc`)
    const from = page.getByLabel('From (day)')
    await expect(from).toHaveValue('2026-11-19')
    // The year replaced by its first digit: the URL keeps the last whole date.
    await from.click()
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    await page.keyboard.type('2')
    await page.waitForTimeout(400)
    await expect(page).toHaveURL(/from=2026-11-19/)
    await from.blur()
    await expect(page.getByText(/Type the whole date/)).toBeVisible()
  })

  test('an impossible date typed into an empty field says so instead of dropping the filter without a word', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}&tz=utc`)
    await expect(page.getByRole('status').filter({ hasText: /^2,345 matches/ })).toBeVisible()
    const from = page.getByLabel('From (day)')
    await from.focus()
    // 31 February: every part typed, no such day. The box stays '' with badInput, as it was.
    await page.keyboard.type('02312026')
    await from.blur()
    await expect(from).toHaveAttribute('aria-invalid', 'true')
    await expect(page.getByText('Type the whole date (day, month and four-digit year). No date filter yet.')).toBeVisible()
    await expect(page).not.toHaveURL(/from=/)
  })

  test('a link whose day is not a real one says which filter was left out, until the form rewrites the link', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}&tz=utc&from=2026-13-45&dir=sideways`)
    const note = page.getByRole('status').filter({ hasText: 'this page could not read' })
    await expect(note).toContainText('From “2026-13-45”: not a real day written YYYY-MM-DD.')
    await expect(note).toContainText('Direction “sideways”: neither inbound nor outbound.')
    // The page shows what it says: every message of the number, no date or direction filter.
    await expect(page.getByRole('status').filter({ hasText: /^2,345 matches/ })).toBeVisible()
    // Setting the day in the form: its line goes; the direction is still left out, and said.
    await page.getByLabel('From (day)').fill('2026-11-01')
    await expect(page).toHaveURL(/from=2026-11-01/)
    await expect(note).not.toContainText('From')
    await expect(note).toContainText('Direction “sideways”')
    // Leaving the page lets the link go: back on Search from the navigation, no note.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Charts' }).click()
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click()
    await expect(page.getByRole('heading', { name: 'Search all messages' })).toBeVisible()
    await expect(page.getByText('could not read')).toHaveCount(0)
    // Quiet hours reads its days the same way.
    await page.goto(`/desk/quiet-hours?number=${NUMBERS.big.number}&to=2026-02-30`)
    await expect(page.getByRole('status').filter({ hasText: 'This link had a filter' })).toContainText('To “2026-02-30”')
  })

  test('a To before its From says so at the To box and asks the server nothing', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}&tz=utc&q=code`)
    await expect(page.getByRole('status').filter({ hasText: /^\d[\d,]* match/ })).toBeVisible()
    const searches: string[] = []
    page.on('request', (r) => {
      if (r.url().includes('/api/index/search')) searches.push(r.url())
    })
    await page.getByLabel('From (day)').fill('2026-11-20')
    await page.getByLabel('To (day, included)').fill('2026-11-01')
    await expect(page).toHaveURL(/to=2026-11-01/)
    const problem = 'To (2026-11-01) is before From (2026-11-20): no day is in that range. Change one of them.'
    await expect(page.getByLabel('To (day, included)')).toHaveAttribute('aria-invalid', 'true')
    await expect(page.getByText('No day is in that range', { exact: true })).toBeVisible()
    await expect(page.getByText(problem)).toHaveCount(2)
    await expect(page.getByText(/refused|Searching…/)).toHaveCount(0)
    // The From alone was searched; the pair never was.
    expect(searches.filter((u) => u.includes('to=2026-11-01'))).toEqual([])
    // Putting the days in order searches again.
    await page.getByLabel('To (day, included)').fill('2026-11-25')
    await expect(page.getByRole('status').filter({ hasText: /^\d[\d,]* match/ })).toBeVisible()
    await expect(page.getByText(problem)).toHaveCount(0)
  })

  test('letters in Other party are refused in words and the party filter stays as it was', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}&party=9172079778&tz=utc`)
    const matches = page.getByRole('status').filter({ hasText: /^\d[\d,]* match/ })
    await expect(matches).toBeVisible()
    const before = await matches.textContent()
    const party = page.getByRole('searchbox', { name: 'Other party' })
    await party.fill('abc')
    await expect(
      page.getByText('Other party takes a phone number: digits, spaces and + ( ) . - / only. Still using 9172079778.'),
    ).toBeVisible()
    await expect(party).toHaveAttribute('aria-invalid', 'true')
    await page.waitForTimeout(400)
    await expect(page).toHaveURL(/party=9172079778/)
    await expect(matches).toHaveText(before!)
  })
})

test.describe('one meaning of a day, and charts that lead to the messages', () => {
  test.use({ timezoneId: 'America/New_York' })
  test.beforeAll(async () => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
  })

  test('Search says its days are the shown zone’s days', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}`)
    await expect(page.getByText('From and To are whole days in Local time (America/New_York).')).toBeVisible()
    await expect(page.getByText(/whole UTC days/)).toHaveCount(0)
    await page.getByRole('button', { name: /switch to UTC/ }).click()
    await expect(page.getByText('From and To are whole days in UTC.')).toBeVisible()
  })

  test('the failure axis starts at 0 and a day’s failures open in Search on that local day, the same messages as counted', async ({
    page,
  }) => {
    await page.goto(`/charts?number=${NUMBERS.big.number}`)
    // The charts count the days of the zone the console shows (the browser's here), as Search does.
    await expect(page.getByText(/Days are America\/New_York days \(local time\)/)).toBeVisible()
    await expect(page.getByText(/UTC days/)).toHaveCount(0)
    const figures = page.getByRole('region', { name: /Chart figures/ })
    await expect(figures.getByRole('row').nth(2)).toBeVisible()
    const failureChart = page.getByRole('img', { name: /failure rate/ })
    await expect(failureChart).toHaveAttribute('data-y-min', '0')
    const link = figures.getByRole('link', { name: / failed on \d{4}-\d{2}-\d{2}: open them$/ }).first()
    const day = /(\d{4}-\d{2}-\d{2})/.exec((await link.getAttribute('aria-label'))!)![1]!
    const count = (await link.textContent())!.trim()
    await link.click()
    await expect(page).toHaveURL(new RegExp(`/search\\?.*from=${day}&to=${day}`))
    await expect(page).toHaveURL(/status=error/)
    await expect(page).not.toHaveURL(/tz=utc/)
    await expect(page.getByText('From and To are whole days in Local time (America/New_York).')).toBeVisible()
    await expect(page.getByRole('status').filter({ hasText: new RegExp(`^${count} match`) })).toBeVisible()
    // Back to the chart, a day's link opens that local day's messages: as many as the day's in and out.
    await page.goBack()
    const row = figures.getByRole('row').filter({ has: page.getByRole('link', { name: `${day}: open its messages` }) })
    // Read once the chart is back: read at once, the row was not there yet and its counts came back empty.
    await expect(row).toBeVisible()
    const [inbound, outbound] = (await row.locator('td').allTextContents()).map((c) => Number(c.replace(/,/g, '')))
    await page.getByRole('link', { name: `${day}: open its messages` }).click()
    await expect(page).toHaveURL(new RegExp(`from=${day}&to=${day}`))
    await expect(page).not.toHaveURL(/status=|tz=utc/)
    await expect(page.getByRole('status').filter({ hasText: /^[\d,]+ match/ })).toHaveText(
      new RegExp(`^${(inbound! + outbound!).toLocaleString('en-US')} match`),
    )
  })
})

test.describe('empty and error states say their cause', () => {
  test.beforeAll(async () => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
  })

  test('a phone number typed into the text box is offered as the other party', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}&tz=utc`)
    await page.getByRole('searchbox', { name: /Search all messages/ }).fill('(917) 207-9778')
    await expect(page.getByRole('status').filter({ hasText: /^0 matches/ })).toBeVisible()
    await expect(page.getByText(/Try fewer filters/)).toHaveCount(0)
    await page.getByRole('button', { name: /Search by other party instead\?/ }).click()
    await expect(page).toHaveURL(/party=9172079778/)
    await expect(page).not.toHaveURL(/q=/)
    await expect(page.getByRole('status').filter({ hasText: /^[1-9][\d,]* match/ })).toBeVisible()
  })

  test('a number with nothing indexed offers indexing, not fewer filters', async ({ page }) => {
    const forgot = await fetch(`${appUrl()}/api/index/forget`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ number: NUMBERS.one.number }),
    })
    expect(forgot.ok).toBe(true)
    await page.goto(`/search?numbers=${NUMBERS.one.number}`)
    await expect(page.getByRole('status').filter({ hasText: /^0 matches/ })).toBeVisible()
    await expect(page.getByText('Nothing is indexed yet')).toBeVisible()
    await expect(page.getByText(/Try fewer filters/)).toHaveCount(0)
    await page.getByRole('button', { name: 'Index all numbers' }).click()
    await expect(page.getByText(/Indexing has started|match/).first()).toBeVisible()
    // "Index all" queued the million-message number too: its walk would take a core for the rest
    // of the run (the @scale journeys index it on their own stack). Forgetting it stops it.
    const million = await fetch(`${appUrl()}/api/index/forget`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ number: NUMBERS.million.number }),
    })
    expect(million.ok).toBe(true)
  })

  test('with the provider down, an unindexed number names the cause', async ({ page, sim }) => {
    const post = (path: string, body: unknown) =>
      fetch(`${appUrl()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    expect((await post('/api/index/forget', { number: NUMBERS.one.number })).ok).toBe(true)
    await sim.fault({ op: 'smshistory', kind: 'reject', message: 'Service down for maintenance' })
    expect((await post('/api/index/sync', { number: NUMBERS.one.number, tid: NUMBERS.one.tid })).ok).toBe(true)
    // A refused sync leaves the number paused or in error, with the provider's words as its error.
    await expect
      .poll(
        async () => {
          const s = (await (await fetch(`${appUrl()}/api/index/status`)).json()) as {
            numbers: Array<{ number: string; error: string | null }>
          }
          return s.numbers.find((n) => n.number === NUMBERS.one.number)?.error ?? null
        },
        { timeout: 30_000 },
      )
      .not.toBeNull()
    await page.goto(`/search?numbers=${NUMBERS.one.number}`)
    await expect(page.getByText(/could not be read from the messaging provider/)).toBeVisible()
    await expect(page.getByText(/Try fewer filters/)).toHaveCount(0)
  })

  test('History beside an error shows neither “Loading…” nor “of …”', async ({ page, sim }) => {
    await sim.fault({ op: 'smshistory', kind: 'reject', message: 'Number suspended' })
    await page.goto(historyUrl(NUMBERS.big))
    await expect(page.getByRole('alert')).toContainText('Number suspended')
    const pager = page.getByRole('navigation', { name: 'Pagination' })
    await expect(pager).not.toContainText('Loading…')
    await expect(pager).not.toContainText('of …')
  })
})

test.describe('a thread opened from a message', () => {
  test.beforeAll(async () => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
  })

  test('opens at the clicked message, marked, with focus on the heading', async ({ page }) => {
    // An old message of a long thread: far above the newest 100.
    await page.goto(`/search?numbers=${NUMBERS.big.number}&party=9172079778&q=code&from=2026-10-27&to=2026-10-27&tz=utc`)
    const table = page.getByRole('table', { name: /Search results/ })
    const details = table.getByRole('link', { name: /^Details of record [\d,]+$/ }).first()
    const ordinal = /\/messages\/(\d+)/.exec((await details.getAttribute('href'))!)![1]!
    await table
      .getByRole('link', { name: /^Thread with \(\d{3}\) \d{3}-\d{4}$/ })
      .first()
      .click()
    await expect(page).toHaveURL(new RegExp(`/thread\\?.*at=${ordinal}`))
    const marked = page.locator(`li[data-marked="true"][data-ordinal="${ordinal}"]`)
    await expect(marked).toBeVisible({ timeout: 15_000 })
    // Whole, in the window (the list put it some 100 px lower than meant, past the window's edge
    // once the header grew a line).
    await expect(marked).toBeInViewport({ ratio: 1 })
    await expect(marked).toContainText('The message you opened')
    await expect(page.getByRole('heading', { level: 1, name: /Thread between/ })).toBeFocused()
    // Its Details, by keyboard: the message page takes focus at its heading too.
    const link = marked.getByRole('link', { name: /^Details/ })
    await link.focus()
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(new RegExp(`/messages/${ordinal}\\?`))
    await expect(page.getByRole('heading', { level: 1, name: /^Record [\d,]+ of / })).toBeFocused()
  })
})

test.describe('nothing clipped, nothing broken mid-word', () => {
  test.beforeAll(async () => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
  })

  for (const tz of ['local', 'utc'] as const)
    test(`Search's and History's dates are whole at 1400 px (${tz})`, async ({ page }) => {
      await page.setViewportSize({ width: 1400, height: 900 })
      const zone = tz === 'utc' ? '&tz=utc' : ''
      for (const url of [`/search?numbers=${NUMBERS.big.number}${zone}`, `${historyUrl(NUMBERS.big)}${zone}`]) {
        await page.goto(url)
        const dates = page.locator('td[data-col="date"] time')
        await expect(dates.first()).toBeVisible()
        // A cut date is one whose text runs past its cell's clipping box.
        const cut = await dates.evaluateAll((els) =>
          els
            .filter((t) => {
              const cell = t.closest('td')!.getBoundingClientRect()
              const r = t.getBoundingClientRect()
              return r.right > cell.right + 0.5 || r.bottom > cell.bottom + 0.5
            })
            .map((t) => t.textContent),
        )
        expect(cut, url).toEqual([])
      }
    })

  test('a phone number in a thread heading stays on one line on a phone', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`/numbers/${NUMBERS.big.number}/thread?tid=${NUMBERS.big.tid}&party=13105831111`)
    const heading = page.getByRole('heading', { level: 1, name: 'Thread between (832) 323-2323 and (310) 583-1111' })
    await expect(heading).toBeVisible()
    // Each number's text is one line box: its client rects are one (a break at the hyphen makes two).
    const lines = await heading.evaluate((h) =>
      [...h.querySelectorAll('span')].map((s) => {
        const range = document.createRange()
        range.selectNodeContents(s)
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size
      }),
    )
    expect(lines).toEqual([1, 1])
  })

  test('the export tray keeps every word of its label whole on a phone', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`/search?numbers=${NUMBERS.big.number}&q=code`)
    await page.getByRole('button', { name: /^Export all [\d,]+ matches as CSV$/ }).click()
    const label = page.getByRole('region', { name: 'Exports' }).locator('li p').first()
    await expect(label).toBeVisible()
    const broken = await label.evaluate((p) => {
      const text = p.firstChild!
      const words = [...(text.textContent ?? '').matchAll(/\S+/g)]
      return words
        .filter((w) => {
          const r = document.createRange()
          r.setStart(text, w.index)
          r.setEnd(text, w.index + w[0].length)
          return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size > 1
        })
        .map((w) => w[0])
    })
    expect(broken).toEqual([])
    // Scrolled to the end, the page's last content clears the tray: nothing stays behind it.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight))
    const tray = page.getByRole('region', { name: 'Exports' })
    await expect(async () => {
      const trayTop = (await tray.boundingBox())!.y
      const lastBottom = await page.evaluate(() => document.querySelector('main')!.getBoundingClientRect().bottom)
      expect(lastBottom).toBeLessThanOrEqual(trayTop)
    }).toPass({ timeout: 5_000 })
    await page.screenshot({ path: test.info().outputPath('tray-390.png') })
  })
})

test.describe('a number the account does not hold', () => {
  test('a shared link to it says so in words, whatever the upstream answered, and offers no Retry', async ({ page }) => {
    // Not one of the account's numbers: the reference upstream refuses it as HTTP 200 with
    // success "0", the plain one with a 404 in its own words (proxy/simulator/dialect.ts).
    await page.goto(`/numbers/15550001111?tid=${NUMBERS.big.tid}`)
    const alert = page.getByRole('alert')
    await expect(alert).toContainText('Not found')
    await expect(alert).toContainText('The account has no such number or message')
    await expect(page.getByRole('button', { name: 'Retry' })).toHaveCount(0)
  })

  test('a link with a tid the number is not listed under offers the tid it is listed under, and that opens its history', async ({
    page,
  }) => {
    const n = NUMBERS.dozens
    await page.goto(`/numbers/${n.number}?tid=WRONG${n.tid.slice(5)}`)
    const alert = page.getByRole('alert')
    await expect(alert).toContainText('Not found')
    const offer = page.getByRole('link', { name: `open its history (tid ${n.tid})` })
    await expect(offer).toBeVisible()
    await offer.focus()
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(new RegExp(`/numbers/${n.number}\\?tid=${n.tid}$`))
    await expect(page.getByRole('table', { name: /Messages/ })).toBeVisible()
    await expect(page.getByRole('alert')).toHaveCount(0)
    // A link without any tid offers it too.
    await page.goto(`/numbers/${n.number}`)
    await expect(page.getByText('This link is missing the number')).toBeVisible()
    await expect(page.getByRole('link', { name: `open its history (tid ${n.tid})` })).toBeVisible()
  })
})
