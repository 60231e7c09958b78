import { expect, test } from './fixtures'

test('the app loads and lists the simulator numbers through the proxy', async ({ page, sim }) => {
  await page.goto('/')
  await expect(page.getByRole('heading', { name: 'Owned numbers' })).toBeVisible()
  await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
  await expect(page.getByRole('status').filter({ hasText: /^60 numbers$/ })).toBeVisible()
  // Local mode: no users to manage, but its reads are logged, and the log is a link away.
  const nav = page.getByRole('navigation', { name: 'Main' })
  await expect(nav.getByRole('link', { name: 'Access log' })).toBeVisible()
  await expect(nav.getByRole('link', { name: 'Users' })).toHaveCount(0)
  // The simulator saw the proxy's credentials, not the browser's (the browser sent none).
  const { requests } = await sim.requests()
  const last = requests.at(-1)
  expect(last?.path).toBe('/api/allownednumbers')
  // The simulator's log never holds the credentials themselves, only whether they were right.
  expect(last?.fields.sys_id).toEqual(['[redacted]'])
  expect(last?.fields.auth_token).toEqual(['[redacted]'])
  expect(last?.authenticated).toBe(true)
  expect(last?.contentType).toBe('application/x-www-form-urlencoded')
})

test('an unknown address and a history link without its tid say what to do', async ({ page }) => {
  await page.goto('/no/such/page')
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible()
  await page.getByRole('link', { name: 'Go to the numbers list' }).click()
  await expect(page.getByRole('heading', { name: 'Owned numbers' })).toBeVisible()

  await page.goto('/numbers/18323232323')
  await expect(page.getByRole('alert')).toContainText("missing the number's tid")
  await expect(page.getByRole('alert').getByRole('link', { name: 'numbers list' })).toBeVisible()
})

test('a keyboard user can skip straight to the content', async ({ page }) => {
  await page.goto('/')
  await expect(page.getByRole('heading', { name: 'Owned numbers' })).toBeVisible()
  await page.keyboard.press('Tab')
  const skip = page.getByRole('link', { name: 'Skip to content' })
  await expect(skip).toBeFocused()
  await expect(skip).toBeVisible()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/#main$/)
})

test("a history opened from a link downloads its page's code beside the entry, once", async ({ page }) => {
  const requested: string[] = []
  page.on('request', (r) => requested.push(new URL(r.url()).pathname))
  const res = await page.goto('/numbers/18323232323?tid=PUHMGWS98301')
  // The shell's Link header names the history page's chunk and the chunks it imports (proxy/page-hints.ts).
  const link = res?.headers()['link'] ?? ''
  const named = [...link.matchAll(/<([^>]+)>; rel=modulepreload/g)].map((m) => m[1]!)
  expect(named[0]).toMatch(/^\/assets\/history-page-[\w-]+\.js$/)
  await expect(page.getByRole('heading', { name: 'History of (832) 323-2323' })).toBeVisible()
  await expect(page.getByText('1–50 of 2,345', { exact: true })).toBeVisible()
  // Each named chunk was fetched, and only once: the page's import() took the preloaded module.
  for (const file of named)
    expect(
      requested.filter((p) => p === file),
      file,
    ).toHaveLength(1)
  // The numbers list is in the entry chunk: its shell names nothing.
  const home = await page.request.get('/')
  expect(home.headers()['link']).toBeUndefined()
})

test('a number taken from the address is formatted once libphonenumber arrives, even when no answer holds it', async ({ page }) => {
  // No such number in the account: the history's answer is an error and holds no phone. The
  // library's chunk is held back a while, so it lands after every answer of the page: nothing but
  // the library's arrival can make the page render again.
  await page.route(/\/assets\/min-[\w-]+\.js$/, async (route) => {
    await new Promise((r) => setTimeout(r, 2000))
    await route.continue()
  })
  await page.goto('/numbers/447911123456?tid=ABCDEF')
  await expect(page.getByRole('alert')).toBeVisible()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('History of 447911123456')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('History of +44 7911 123456')
})
