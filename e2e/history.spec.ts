import { expect, test } from './fixtures'
import { NUMBERS, downloadText, historyUrl, indexStatus, parseCsv, rowTexts, startOwnProxy, uiRanges } from './helpers'
import { startSimulator } from './stack'

const ranges = async (sim: { requests: () => Promise<{ requests: Array<{ path: string; fields: Record<string, string[]> }> }> }) =>
  uiRanges((await sim.requests()).requests)

const rangeText = (page: import('@playwright/test').Page) => page.getByRole('navigation', { name: 'Pagination' }).locator('p[aria-live]')

test.describe('message history', () => {
  test('sends the exact ranges for first, next, last and page-size changes, and shows the range text', async ({ page, sim }) => {
    await page.goto(historyUrl(NUMBERS.big))
    await expect(rangeText(page)).toHaveText('1–50 of 2,345')
    await expect.poll(() => ranges(sim)).toEqual(['1-50', '51-100']) // first page, then the prefetched next
    await page.getByRole('button', { name: 'Next page' }).click()
    await expect(rangeText(page)).toHaveText('51–100 of 2,345')
    await expect(page).toHaveURL(/page=2/)
    await expect.poll(() => ranges(sim)).toEqual(['1-50', '51-100', '101-150'])
    await sim.clearRequests()
    await page.getByRole('button', { name: 'Last page' }).click()
    await expect(rangeText(page)).toHaveText('2,301–2,345 of 2,345')
    expect(await ranges(sim)).toEqual(['2301-2345'])
    await sim.clearRequests()
    await page.getByRole('button', { name: 'First page' }).click()
    await expect(rangeText(page)).toHaveText('1–50 of 2,345')
    await page.getByRole('combobox', { name: 'Rows per page' }).selectOption('100')
    await expect(rangeText(page)).toHaveText('1–100 of 2,345')
    await expect.poll(() => ranges(sim)).toContain('1-100')
    await page.getByRole('textbox', { name: 'Go to page' }).fill('3')
    await page.getByRole('button', { name: 'Go', exact: true }).click()
    await expect(rangeText(page)).toHaveText('201–300 of 2,345')
  })

  test('a deep link opens the same page after reload, and the header shows the envelope', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.big, 'page=3&size=25'))
    await expect(rangeText(page)).toHaveText('51–75 of 2,345')
    await page.reload()
    await expect(rangeText(page)).toHaveText('51–75 of 2,345')
    await expect(page.getByRole('combobox', { name: 'Rows per page' })).toHaveValue('25')
    const header = page.locator('dl')
    await expect(header).toContainText('(832) 323-2323')
    await expect(header).toContainText('PUHMGWS98301')
    await expect(header).toContainText('Opt-in')
    await expect(header).toContainText('yes')
    await expect(header).toContainText('2,345')
    await expect(header).toContainText('id 200000002345')
    const firstPos = await rowTexts(page, /Messages/, 0)
    expect(firstPos[0]).toBe('51')
  })

  test('says when new messages shift the pages, with a way back to the newest', async ({ page, sim }) => {
    await page.goto(historyUrl(NUMBERS.big))
    await expect(rangeText(page)).toHaveText('1–50 of 2,345')
    await sim.addMessages(NUMBERS.big.number, 7)
    await page.getByRole('button', { name: 'Last page' }).click()
    const banner = page.getByRole('status').filter({ hasText: 'New messages arrived' })
    await expect(banner).toBeVisible()
    await banner.getByRole('button', { name: 'Go to newest' }).click()
    await expect(rangeText(page)).toHaveText('1–50 of 2,352')
    await expect(banner).toHaveCount(0)
  })

  test('status badges read Success, Error and Unknown with the code; full text on hover, and no tab stop of their own', async ({
    page,
  }) => {
    await page.goto(historyUrl(NUMBERS.dozens, 'status=Unknown'))
    const table = page.getByRole('table', { name: /Messages/ })
    await expect(table).toContainText('Unknown (503)')
    const badges = await rowTexts(page, /Messages/, 5)
    expect(badges.some((b) => b.startsWith('?Unknown(503 Carrier busy') || b.includes('Unknown (503)'))).toBe(true)
    expect(badges.some((b) => /^\?Unknown(pending)?$/.test(b.replace(/\s/g, '')))).toBe(true)
    const busy = table.getByText('Unknown (503)')
    await busy.hover()
    await expect(page.getByRole('tooltip', { name: '503 Carrier busy' })).toBeVisible()
    // The full text is the badge's description, not a stop for the keyboard (one per row before).
    await expect(busy).toHaveAccessibleDescription('503 Carrier busy')
    expect(await table.locator('.chip[tabindex]').count()).toBe(0)

    await page.getByRole('combobox', { name: 'Status' }).selectOption('Error')
    await expect(table).toContainText('Error')
    await page.getByRole('combobox', { name: 'Status' }).selectOption('Success')
    await expect(table).toContainText('Success')
    await table.locator('.chip').filter({ hasText: 'Success' }).first().hover()
    await expect(page.getByRole('tooltip', { name: /^200/ }).first()).toBeVisible()
  })

  test('image thumbnails open a viewer that closes with Escape and returns focus; other media are file links', async ({
    page,
    baseURL,
  }) => {
    // Media loads through the server: the page asks no other origin for anything.
    const elsewhere: string[] = []
    page.on('request', (r) => {
      if (new URL(r.url()).origin !== new URL(baseURL!).origin) elsewhere.push(r.url())
    })
    await page.goto(historyUrl(NUMBERS.big, 'media=1'))
    const thumb = page.getByRole('button', { name: /^Open Picture message photo-\d\.png from/ }).first()
    await expect(thumb).toBeVisible()
    const img = thumb.locator('img')
    // Asked by message (the page's number and the message's ids), never by address: the server
    // looks the address and the customer up in the page it served.
    await expect(img).toHaveAttribute('src', new RegExp(`^/api/media\\?number=${NUMBERS.big.number}&system=\\d+&message=[0-9a-f]+$`))
    await expect(img).toHaveAttribute('loading', 'lazy')
    await expect(img).toHaveAttribute('referrerpolicy', 'no-referrer')
    await expect(img).toHaveAttribute('alt', /Picture message photo-\d\.png from \(\d{3}\) \d{3}-\d{4}/)
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBeGreaterThan(0)
    await thumb.click()
    const dialog = page.getByRole('dialog')
    await expect(dialog).toBeVisible()
    await expect(dialog.locator('img')).toBeVisible()
    await expect(dialog.locator('img')).toHaveAttribute('src', (await img.getAttribute('src')) ?? "the thumbnail's own")
    await expect.poll(() => dialog.locator('img').evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBeGreaterThan(0)
    await page.keyboard.press('Escape')
    await expect(dialog).toBeHidden()
    await expect(thumb).toBeFocused()

    const table = page.getByRole('table', { name: /Messages/ })
    const fileLink = table
      .getByRole('link', { name: /Contact card \(vCard\): card\.vcf|Video: clip\.mp4|PDF document: invoice\.pdf/ })
      .first()
    await expect(fileLink).toBeVisible()
    await expect(fileLink).toHaveAttribute('href', /^\/api\/media\?number=\d+&system=\d+&message=[0-9a-f]+$/)
    expect(elsewhere).toEqual([])
    // The server fetches no address a page names.
    const byAddress = await page.request.get(`/api/media?url=${encodeURIComponent(`${new URL(baseURL!).origin}/favicon.svg`)}`)
    expect(byAddress.status()).toBe(400)
    expect(((await byAddress.json()) as { error: { field: string } }).error.field).toBe('url')
  })

  test('a media URL that fails to load shows a placeholder', async ({ page }) => {
    // Records whose media is the simulator's missing.png: seq % 7 === 3 and floor(seq/7) % 8 === 7.
    await page.goto(historyUrl(NUMBERS.thousands, 'media=1&size=1000'))
    const table = page.getByRole('table', { name: /Messages/ })
    await expect(table).toBeVisible()
    // Scroll until a placeholder shows (bounded: the page holds 1,000 rows).
    const region = page.getByRole('region', { name: /Messages .* scrollable/ })
    let found = false
    for (let i = 0; i < 30 && !found; i++) {
      found = (await table.getByRole('img', { name: /could not be loaded/ }).count()) > 0
      if (!found) await region.evaluate((el) => el.scrollBy(0, 600))
      await page.waitForTimeout(150)
    }
    expect(found).toBe(true)
  })

  test('pictures a fast scroll only passes by are not asked for; the ones it stops at are', async ({ page }) => {
    // Each picture asked for is fetched from its host and logged as a view of customer data.
    const asked = new Set<string>()
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/media') asked.add(r.url())
    })
    // The page's messages with media only: pictures on every screen.
    await page.goto(historyUrl(NUMBERS.big, 'media=1&size=1000'))
    const region = page.getByRole('region', { name: /Messages .* scrollable/ })
    await expect(region.getByRole('button', { name: /^Open Picture message/ }).first()).toBeVisible()
    await expect.poll(() => asked.size).toBeGreaterThan(0)
    const atStart = asked.size
    // A fling: 700 px a frame to the page's end, noting every picture that was on the page meanwhile.
    const passed = await region.evaluate(async (el) => {
      const seen = new Set<string>()
      for (let i = 0; i < 40; i++) {
        const before = el.scrollTop
        el.scrollTop += 700
        if (el.scrollTop === before) break
        await new Promise((r) => requestAnimationFrame(r))
        for (const b of el.querySelectorAll('button[aria-label^="Open Picture message"]')) seen.add(b.getAttribute('aria-label') ?? '')
      }
      return seen.size
    })
    // Asked for while it flew past (read before any timer of the rows it stopped at runs out).
    const duringFling = asked.size - atStart
    expect(passed).toBeGreaterThan(20)
    expect(duringFling).toBeLessThan(passed / 4)
    // Where it stopped, the pictures in view (of the region and the window) show.
    const inView = () =>
      region.evaluate((el) => {
        const box = el.getBoundingClientRect()
        const [top, bottom] = [Math.max(box.top, 0), Math.min(box.bottom, window.innerHeight)]
        return [...el.querySelectorAll('button[aria-label^="Open Picture message"]')]
          .filter((b) => {
            const r = b.getBoundingClientRect()
            return r.bottom > top && r.top < bottom
          })
          .map((b) => b.querySelector('img')?.naturalWidth ?? 0)
      })
    await expect.poll(async () => (await inView()).length).toBeGreaterThan(0)
    await expect.poll(async () => (await inView()).every((w) => w > 0)).toBe(true)
    expect(asked.size - atStart).toBeGreaterThan(duringFling)
  })

  test('hostile bodies and unsafe media URLs stay inert', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.hostile, 'size=25'))
    const table = page.getByRole('table', { name: /Messages/ })
    await expect(table).toContainText('<script>window.__pwned = 1</script>')
    await expect(table).toContainText('<img src=x onerror="window.__pwned = 2">')
    // URL-bound: clicked, then awaited (see the uncheck below).
    await page.getByRole('checkbox', { name: 'Has media' }).click()
    await expect(page.getByRole('checkbox', { name: 'Has media' })).toBeChecked()
    await expect(table.getByText('Unsafe media link, not opened')).toHaveCount(7)
    await expect(table.getByRole('button', { name: /Open Picture message photo-1\.png/ })).toHaveCount(1)
    const bad = await page.evaluate(() =>
      [...document.querySelectorAll('[src],[href]')]
        .map((el) => el.getAttribute('src') ?? el.getAttribute('href') ?? '')
        .filter((v) => !/^(https?:\/\/|\/)/i.test(v) && !v.startsWith('#') && !v.startsWith('blob:')),
    )
    expect(bad).toEqual([])
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined()
    // The 1 MB body is clamped, with a way to read it all.
    // The box follows the URL, which the router commits in a transition: it turns off once the
    // table for the new filter renders (a checked-state read right after the click can be early).
    const hasMedia = page.getByRole('checkbox', { name: 'Has media' })
    await hasMedia.click()
    await expect(hasMedia).not.toBeChecked()
    await page.getByRole('searchbox', { name: 'Search messages' }).fill('AAAAAAAAAA')
    await expect(table.getByRole('button', { name: /Show more \(1,000,000 characters\)/ })).toBeVisible()
    const width = await table.evaluate((el) => el.getBoundingClientRect().width)
    expect(width).toBeLessThanOrEqual(page.viewportSize()!.width)
  })

  test('with the index on, conversations are the whole history: every party with its count, the whole thread, older pages on demand', async ({
    page,
  }) => {
    await page.goto(historyUrl(NUMBERS.big, 'view=conversation'))
    const parties = page.getByRole('listbox', { name: /^Conversations across the whole history \([\d,]+\)$/ })
    await expect(parties).toBeVisible({ timeout: 15_000 })
    const counts = async () =>
      (await parties.getByRole('option').locator('span.tabular-nums').allTextContents()).map((t) =>
        Number(/^([\d,]+)/.exec(t)?.[1]?.replace(/,/g, '') ?? 'NaN'),
      )
    // Opening the history indexes the number; the counts then cover every message the index holds
    // of it (2,345 and any a test on this stack added before), not a page of them.
    const held = async () => (await indexStatus()).numbers.find((n) => n.number === NUMBERS.big.number)?.indexed ?? -1
    await expect
      .poll(
        async () => {
          const sum = (await counts()).reduce((a, b) => a + b, 0)
          return sum >= 2_345 && sum === (await held())
        },
        { timeout: 30_000 },
      )
      .toBe(true)
    await expect(page.getByText('This view covers the loaded records only')).toHaveCount(0)
    const thread = page.getByRole('list', { name: 'Messages, oldest first' })
    await expect(page.getByText(/^The whole thread: [\d,]+ messages, the newest 100 loaded\./)).toBeVisible()
    expect(await thread.getByRole('listitem').count()).toBe(100)
    // A picture in the indexed thread is asked for by its place in the index, and shows.
    const picture = thread.getByRole('button', { name: /^Open Picture message photo-\d\.png/ }).first()
    await picture.scrollIntoViewIfNeeded()
    await expect(picture.locator('img')).toHaveAttribute('src', new RegExp(`^/api/media\\?number=${NUMBERS.big.number}&ordinal=\\d+$`))
    await expect.poll(() => picture.locator('img').evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBeGreaterThan(0)
    await page.getByRole('button', { name: 'Load older' }).click()
    await expect.poll(async () => thread.getByRole('listitem').count()).toBeGreaterThan(100)
  })

  test('the Conversations tab, read from the index, stays while the messaging service fails', async ({ page, sim }) => {
    // Indexed first (opening the history indexes it), then the service fails every history request.
    await page.goto(historyUrl(NUMBERS.big, 'view=conversation'))
    const parties = page.getByRole('listbox', { name: /^Conversations across the whole history \([\d,]+\)$/ })
    await expect(parties).toBeVisible({ timeout: 15_000 })
    await expect
      .poll(async () => (await indexStatus()).numbers.find((n) => n.number === NUMBERS.big.number)?.state, { timeout: 30_000 })
      .toBe('idle')
    await sim.fault({ op: 'smshistory', number: NUMBERS.big.number, kind: 'status', status: 500 })
    await page.reload()
    await expect(page.getByRole('alert')).toContainText(/could not be reached/, { timeout: 15_000 })
    // The error says what failed; the conversations are still there to read.
    await expect(parties).toBeVisible()
    await expect(parties.getByRole('option').first()).toBeVisible()
  })

  test('Export CSV of the visible rows matches the screen', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.big, 'status=Error&size=250'))
    await expect(page.getByRole('table', { name: /Messages/ })).toContainText('Error')
    const onScreen = await rowTexts(page, /Messages/, 0)
    expect(onScreen.length).toBeGreaterThan(0)
    const { name, text } = await downloadText(page, () => page.getByRole('button', { name: 'Export CSV' }).click())
    const rows = parseCsv(text)
    // The name says what it holds: the number, that it is filtered and how many rows, the records, the zone.
    expect(name).toMatch(
      new RegExp(`^switchboard-history-18323232323-filtered-${rows.length - 1}-of-records-1-250-local-\\d{4}-\\d{2}-\\d{2}\\.csv$`),
    )
    // The one layout of every message export (contract/message-csv.ts), the index's export's too.
    const header = rows[0]!
    expect(header.slice(0, 5)).toEqual(['number', 'ordinal', 'position', 'date_utc', expect.stringMatching(/^date_local \(/)])
    const [POSITION, UTC, LOCAL, STATUS, RAW] = [header.indexOf('position'), 3, 4, header.indexOf('status'), header.indexOf('status_raw')]
    expect(rows.slice(1).map((r) => Number(r[POSITION]).toLocaleString('en-US'))).toEqual(onScreen)
    for (const r of rows.slice(1)) {
      // One word for the status, the upstream's own text beside it.
      expect(r[STATUS]).toBe('error')
      expect(r[RAW]).toMatch(/^400/)
      // Unambiguous dates: ISO 8601 UTC with the Z, and the same instant on the named zone's clock.
      expect(r[UTC]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
      expect(new Date(r[LOCAL]!.replace(' ', 'T')).getTime()).toBe(new Date(r[UTC]!).getTime())
    }
  })

  test(
    'without the index, the whole-history export goes in HISTORY_PAGE_CAP chunks, shows progress, can be cancelled and saves what it has',
    { tag: '@long' },
    async ({ page }) => {
      // A server of its own: INDEX=off and a cap of 250, so the fallback path and the cap are what run.
      const simPort = 4471
      const sim = await startSimulator(simPort, { SIMULATOR_CONTROL: '1' })
      test.setTimeout(180_000)
      const proxy = await startOwnProxy(4470, {
        API_BASE_URL: `http://127.0.0.1:${simPort}`,
        API_SYS_ID: 'sim-demo',
        API_AUTH_TOKEN: 'sim-demo-token-7f3a',
        API_TIMEOUT_MS: '3000',
        INDEX: 'off',
        HISTORY_PAGE_CAP: '250',
      }).catch(async (err: unknown) => {
        await sim.stop()
        throw err
      })
      const base = proxy.url
      try {
        await page.goto(`${base}${historyUrl(NUMBERS.hundreds)}`)
        // Rows-per-page never offers more than the cap.
        await expect(page.getByRole('combobox', { name: 'Rows per page' }).locator('option')).toHaveText(['25', '50', '100', '250'])
        const full = await downloadText(page, () => page.getByRole('button', { name: 'Export all 420 messages as CSV' }).click())
        expect(parseCsv(full.text)).toHaveLength(421)
        expect(full.name).toMatch(/^switchboard-history-17202951888-newest-420-of-420-local-/)

        await page.goto(`${base}${historyUrl(NUMBERS.thousands)}`)
        await fetch(`http://127.0.0.1:${simPort}/__sim/requests`, { method: 'DELETE' })
        await fetch(`http://127.0.0.1:${simPort}/__sim/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ op: 'smshistory', number: NUMBERS.thousands.number, kind: 'latency', ms: 400 }),
        })
        await page.getByRole('button', { name: 'Export all 5,000 messages as CSV' }).click()
        await expect(page.getByRole('progressbar', { name: 'Export progress' })).toBeVisible()
        // Chunks of 250 arrive every 400 ms: wait until at least 1,000 are in.
        await expect(page.getByText(/^[1-4],\d{3} of 5,000 messages$/)).toBeVisible({ timeout: 15_000 })
        await page.getByRole('button', { name: 'Cancel export' }).click()
        await expect(page.getByText(/Export stopped after [\d,]+ of 5,000 messages\. You cancelled the export\./)).toBeVisible()
        const partial = await downloadText(page, () => page.getByRole('button', { name: /Save the [\d,]+ messages fetched/ }).click())
        expect(partial.name).toMatch(/partial/)
        const rows = parseCsv(partial.text)
        expect(rows.length - 1).toBeGreaterThanOrEqual(1000)
        expect(rows.length - 1).toBeLessThan(5000)
        // Every export request stayed within the cap.
        const log = (await (await fetch(`http://127.0.0.1:${simPort}/__sim/requests`)).json()) as {
          requests: Array<{ path: string; fields: Record<string, string[]> }>
        }
        const sizes = log.requests
          .filter((r) => r.path === '/api/smshistory')
          .map((r) => Number(r.fields.history_end?.[0]) - Number(r.fields.history_start?.[0]) + 1)
        expect(Math.max(...sizes)).toBe(250)

        await page.goto(`${base}${historyUrl(NUMBERS.million)}`)
        await expect(
          page.getByText('This history holds 1,000,000 messages. Without the message index the export is capped at the newest 50,000'),
        ).toBeVisible()
        // Without the index the thread offer says what it covers.
        await page.getByRole('tab', { name: 'Conversations' }).click()
        await expect(page.getByText('This view covers the loaded records only: whole threads need the message index')).toBeVisible()
        // The pages built from the index say it is off, as how this server is set up: no error "while
        // loading" them, no word of a threshold the queue cannot use.
        for (const path of ['/desk/needs-reply', '/charts', '/search?q=store']) {
          await page.goto(`${base}${path}`)
          await expect(page.getByRole('status').filter({ hasText: 'The message index is off on this server' })).toContainText(
            'This page is built from the index.',
          )
          await expect(page.getByRole('alert')).toHaveCount(0)
          await expect(page.getByText(/threshold/)).toHaveCount(0)
        }
      } finally {
        // The page leaves first: its idle preloads would otherwise meet a server going away (a console error).
        await page.goto('about:blank')
        await proxy.stop()
        await sim.stop()
      }
    },
  )

  test('while the index has not answered, the whole-history export waits for it rather than offering the capped one', async ({ page }) => {
    // A slow database: the index's status answers 3 s late. A click in those seconds ran the
    // browser's capped export (the newest 50,000, no export in the access log) on a number the
    // index may hold whole.
    let release: () => void = () => undefined
    const held = new Promise<void>((r) => (release = r))
    await page.route('**/api/index/status*', async (route) => {
      await held
      await route.continue()
    })
    await page.goto(historyUrl(NUMBERS.million))
    await expect(page.getByRole('status').filter({ hasText: 'Checking the message index for the whole-history export…' })).toBeVisible()
    await expect(page.getByText(/Without the message index the export is capped/)).toHaveCount(0)
    await expect(page.getByRole('button', { name: /^Export all [\d,]+ messages as CSV$/ })).toHaveCount(0)
    release()
    // Answered: the export the index allows, for all 1,000,000, never the capped 50,000.
    await expect(page.getByRole('button', { name: 'Export all 1,000,000 messages as CSV' })).toBeVisible()
    await expect(page.getByText(/Without the message index the export is capped/)).toHaveCount(0)
  })

  test('a rejection says what to do instead of offering Retry, and rows already shown stay', async ({ page, sim }) => {
    await page.goto(historyUrl(NUMBERS.big))
    await expect(rangeText(page)).toHaveText('1–50 of 2,345')
    await sim.fault({ op: 'smshistory', kind: 'reject', message: 'Number suspended' })
    await page.getByRole('button', { name: 'Last page' }).click()
    const alert = page.getByRole('alert')
    await expect(alert).toContainText('refused the request')
    await expect(alert).toContainText('Number suspended')
    await expect(alert).toContainText('use Refresh')
    await expect(alert).not.toContainText(/below|above/)
    await expect(alert.getByRole('button', { name: 'Retry' })).toHaveCount(0)
    expect(await rowTexts(page, /Messages/, 0)).toContain('1')
    await sim.clearFaults()
    await page.getByRole('button', { name: 'Refresh' }).click()
    await expect(page.getByRole('alert')).toHaveCount(0)
    await expect.poll(async () => (await rowTexts(page, /Messages/, 0))[0]).toBe('2,301')
  })

  test('a wrong tid says the account has no such number and offers no next page', async ({ page }) => {
    await page.goto(`/numbers/${NUMBERS.big.number}?tid=WRONG`)
    await expect(page.getByRole('alert')).toContainText('no such number')
    await expect(rangeText(page)).toHaveText('Not loaded: see the error')
    for (const name of ['First page', 'Previous page', 'Next page', 'Last page'])
      await expect(page.getByRole('button', { name, exact: true })).toBeDisabled()
    await expect(page.locator('dl div').filter({ hasText: 'Total messages' }).locator('dd')).toHaveText('—')
  })

  test('a link past the last page lands on the last page and says so', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.big, 'page=99999'))
    await expect(rangeText(page)).toHaveText('2,301–2,345 of 2,345')
    await expect(page.getByRole('status').filter({ hasText: 'Page 99,999 does not exist' })).toContainText(
      'this history has 47 pages of 50. Showing the last page.',
    )
    await expect(page).toHaveURL(/page=47/)
    await expect(page.getByText(/No loaded messages match/)).toHaveCount(0)
    expect((await rowTexts(page, /Messages/, 0))[0]).toBe('2,301')
    await page.reload()
    await expect(rangeText(page)).toHaveText('2,301–2,345 of 2,345')
  })

  test('Refresh reloads the page shown and every page names its time zone', async ({ page, sim }) => {
    await page.goto(historyUrl(NUMBERS.big))
    await expect(rangeText(page)).toHaveText('1–50 of 2,345')
    await expect(page.getByText(/^Dates in Local time \(.+\)\.$/)).toBeVisible()
    await sim.clearRequests()
    await page.getByRole('button', { name: 'Refresh' }).click()
    await expect.poll(() => ranges(sim)).toContain('1-50')
    await page.getByRole('button', { name: /switch to UTC/ }).click()
    await expect(page.getByText('Dates in UTC.')).toBeVisible()
    // The envelope's created date is formatted like every other date, not shown raw.
    await expect(page.locator('dl').getByText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)).toHaveCount(0)
  })

  test("a hand-typed page size the page does not offer is named as the reason, not the server's cap", async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.big, 'size=0&page=-3'))
    const notice = page.getByRole('status').filter({ hasText: 'This link named records' })
    await expect(notice).toContainText('Pages of 1 are not offered here (25, 50, 100')
    await expect(notice).not.toContainText('at most')
    await expect(page.getByRole('navigation', { name: 'Pagination' }).locator('p[aria-live]')).toHaveText('1–25 of 2,345')
  })

  test('an empty history says No messages with the number', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.empty))
    await expect(page.getByText('No messages for (415) 807-4499')).toBeVisible()
  })

  test('times switch between local and UTC, with the exact UTC value on hover', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.big))
    const firstDate = page
      .getByRole('table', { name: /Messages/ })
      .locator('time')
      .first()
    await expect(firstDate).toHaveAttribute('title', '2026-11-20 12:00:00 UTC')
    await page.getByRole('button', { name: /switch to UTC/ }).click()
    await expect(firstDate).toContainText('UTC')
    await expect(page).toHaveURL(/tz=utc/)
  })

  test('switching number mid-request never shows the old number under the new one', async ({ page, sim }) => {
    await sim.fault({ op: 'smshistory', number: NUMBERS.big.number, kind: 'latency', ms: 1500 })
    await page.goto(historyUrl(NUMBERS.big))
    await page.evaluate(
      ([n, t]) => {
        window.history.pushState(null, '', `/numbers/${n}?tid=${t}`)
        window.dispatchEvent(new PopStateEvent('popstate'))
      },
      [NUMBERS.one.number, NUMBERS.one.tid] as const,
    )
    await expect(page.getByRole('heading', { name: 'History of (514) 790-1725' })).toBeVisible()
    await expect(rangeText(page)).toHaveText('1–1 of 1')
    await page.waitForTimeout(1800)
    await expect(rangeText(page)).toHaveText('1–1 of 1')
    await expect(page.locator('dl')).not.toContainText('2,345')
  })

  test('direction and text filters act on the loaded page and say so', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.dozens))
    await expect(page.getByText('Filters apply to the 36 messages on this page only.')).toBeVisible()
    await page.getByRole('combobox', { name: 'Direction' }).selectOption('inbound')
    await expect(page).toHaveURL(/dir=inbound/)
    await expect(page.getByText(/^\d+ of 36 loaded messages match\. Filters apply to this page only\.$/)).toBeVisible()
    const directions = await rowTexts(page, /Messages/, 2)
    expect(directions.length).toBeGreaterThan(0)
    expect(new Set(directions)).toEqual(new Set(['Inbound']))
    await page.getByRole('searchbox', { name: 'Search messages' }).fill('zzzz-no-such-text')
    await expect(page.getByText('No loaded messages match the filters')).toBeVisible()
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await expect(page.getByText('Filters apply to the 36 messages on this page only.')).toBeVisible()
  })

  test('sorting the loaded page by a column is in the URL and orders the rows', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.dozens))
    const header = page.getByRole('columnheader', { name: /#/ })
    // Numeric columns sort descending first, as TanStack Table does by default.
    await header.getByRole('button').click()
    await expect(header).toHaveAttribute('aria-sort', 'descending')
    await expect(page).toHaveURL(/sort=position\.desc/)
    const positions = (await rowTexts(page, /Messages/, 0)).map(Number)
    expect(positions[0]).toBe(36)
    expect(positions).toEqual([...positions].sort((a, b) => b - a))
    await page.reload()
    await expect.poll(async () => (await rowTexts(page, /Messages/, 0))[0]).toBe('36')
  })

  test('message and system ids copy their raw values', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    await page.goto(historyUrl(NUMBERS.big))
    const button = page.getByRole('button', { name: /^Copy system id 200000002345$/ })
    await button.click()
    await expect(button).toHaveText('Copied')
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('200000002345')
  })
})
