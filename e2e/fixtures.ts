import { test as base, expect, type Page } from '@playwright/test'

/** The simulator of the stack the running test's project uses (playwright.config.ts). */
export const simUrl = () => `http://127.0.0.1:${String(base.info().project.metadata.simPort ?? 4011)}`

export interface SimControl {
  fault: (fault: Record<string, unknown>) => Promise<void>
  clearFaults: () => Promise<void>
  addMessages: (number: string, add: number) => Promise<void>
  requests: () => Promise<{
    calls: number
    requests: Array<{ path: string; contentType: string; fields: Record<string, string[]>; authenticated: boolean }>
  }>
  clearRequests: () => Promise<void>
}

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${simUrl()}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`simulator control ${path}: HTTP ${res.status}`)
  return res.json() as Promise<unknown>
}

/**
 * Every test: a clean simulator, and a page that fails the test on any console error or
 * uncaught page error. Expected failed /api requests (the error states under test) and the
 * deliberately missing media file are the only resource errors tolerated.
 */
export const test = base.extend<{ sim: SimControl; page: Page }>({
  sim: [
    async ({}, use) => {
      await call('POST', '/__sim/reset')
      await use({
        fault: async (f) => void (await call('POST', '/__sim/faults', f)),
        clearFaults: async () => void (await call('DELETE', '/__sim/faults')),
        addMessages: async (number, add) => void (await call('POST', '/__sim/messages', { number, add })),
        requests: async () => (await call('GET', '/__sim/requests')) as Awaited<ReturnType<SimControl['requests']>>,
        clearRequests: async () => void (await call('DELETE', '/__sim/requests')),
      })
      // And leaves none of its faults behind: a describe's beforeAll runs before the next test's
      // reset, and an index sync it starts met the last test's refusal and paused (a CI run lost
      // two journeys so).
      await call('DELETE', '/__sim/faults')
    },
    // Every test starts on a clean simulator, whether or not it touches it.
    { auto: true },
  ],
  page: async ({ page }, use, testInfo) => {
    const problems: string[] = []
    // What the page asked the server, kept so a failed test says what it was waiting on (a
    // request not sent, refused, or slow): CI keeps only its printed output.
    const started = Date.now()
    const calls: string[] = []
    const at = () => `${((Date.now() - started) / 1000).toFixed(2)} s`
    page.on('request', (r) => {
      if (r.url().includes('/api/')) calls.push(`${at()} ${r.method()} ${apiPath(r.url())} ${r.postData()?.slice(0, 120) ?? ''}`)
    })
    page.on('requestfinished', (r) => {
      if (!r.url().includes('/api/')) return
      void r
        .response()
        .then((res) => calls.push(`${at()} ${res?.status() ?? '?'} ${apiPath(r.url())} (${Math.round(r.timing().responseEnd)} ms)`))
        // The page closed first (the test ended): nothing to record.
        .catch(() => undefined)
    })
    page.on('requestfailed', (r) => {
      if (r.url().includes('/api/')) calls.push(`${at()} failed ${apiPath(r.url())}: ${r.failure()?.errorText ?? ''}`)
    })
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`))
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return
      const url = msg.location().url
      if (/Failed to load resource/.test(msg.text()) && (/\/api\//.test(url) || /\/media\/missing/.test(url))) return
      // A test's own server (not the shared one) stopped while its page was still open: the app's
      // idle fetch of the other pages' chunks finds no one there (refused), or is cut off by the
      // stop (reset, or a socket not connected yet). The shared server must serve every asset.
      if (
        /ERR_(CONNECTION_(REFUSED|RESET)|SOCKET_NOT_CONNECTED)/.test(msg.text()) &&
        /\/assets\//.test(url) &&
        new URL(url).port !== new URL(base.info().project.use.baseURL ?? url).port
      )
        return
      problems.push(`console.error: ${msg.text()} (${url})`)
    })
    await use(page)
    if (testInfo.status !== testInfo.expectedStatus) {
      const alerts = await page
        .getByRole('alert')
        .allInnerTexts()
        .catch(() => [])
      console.log(
        [
          `-- ${testInfo.title}: the page at ${page.url()}`,
          `alerts: ${JSON.stringify(alerts)}`,
          'its /api/ requests:',
          ...calls.slice(-40),
        ].join('\n'),
      )
    }
    expect(problems, 'console errors or page errors').toEqual([])
  },
})

/** A request's path and query, without the origin. */
function apiPath(url: string): string {
  const u = new URL(url)
  return u.pathname + u.search
}

export { expect }
