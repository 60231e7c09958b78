import { axeViolations } from './axe'
import { expect, simUrl, test } from './fixtures'

/**
 * The Callbacks page as an account owner meets it on a phone: the first listing taken with
 * Check now, the endpoints' states in words, a webhook changed upstream between two listings
 * and shown with its window (and the plain note that the API cannot say who changed it), the
 * tabs from the keyboard with the tab in the URL, no sideways scroll at 390 px, axe clean.
 */

const DEMO = { sys_id: 'sim-demo', auth_token: 'sim-demo-token-7f3a' }

async function firstNumber(): Promise<{ number: string; webhook: string }> {
  const res = await fetch(`${simUrl()}/api/allownednumbers`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(DEMO).toString(),
  })
  const data = ((await res.json()) as { data: Array<{ number: string; webhook: string }> }).data
  return data.find((n) => n.webhook.startsWith('https://hooks.'))!
}

test.use({ viewport: { width: 390, height: 844 } })

test('callbacks: a changed webhook with its window, a failed listing as a gap, endpoints in words, at 390 px and from the keyboard', async ({
  page,
  sim,
}) => {
  test.setTimeout(120_000)
  const { number, webhook } = await firstNumber()
  await page.goto('/callbacks')
  await expect(page.getByRole('heading', { name: 'Callbacks', level: 1 })).toBeVisible()
  const check = page.getByRole('button', { name: 'Check now' })
  await check.click()
  await expect(page.getByRole('status').filter({ hasText: /First listing taken|Listed: \d+ change/ })).toBeVisible({ timeout: 45_000 })
  await expect(page.getByText('Not checked (private address)').first()).toBeVisible()
  await expect(page.getByText(/Failing/).first()).toBeVisible()
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
  await page.screenshot({ path: '.test-results/callbacks-endpoints-390.png', fullPage: false })
  expect(await axeViolations(page)).toEqual([])

  // A listing that fails is said in words and kept as a gap, never as every number removed.
  await sim.fault({ kind: 'status', status: 503, op: 'allownednumbers' })
  await check.click()
  await expect(page.getByRole('status').filter({ hasText: /The listing failed \(.+\): recorded as a gap\./ })).toBeVisible({
    timeout: 45_000,
  })
  await sim.clearFaults()

  const moved = 'https://moved.switchboard-demo.example/in?token=s3cret'
  const changed = await fetch(`${simUrl()}/__sim/quirks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ callbacks: { number, webhook: moved } }),
  })
  expect(changed.status).toBe(200)
  await check.click()
  await expect(page.getByRole('status').filter({ hasText: /Listed: 1 change\./ })).toBeVisible({ timeout: 45_000 })

  // The tabs from the keyboard; the tab lives in the URL.
  await page.getByRole('tab', { name: 'Endpoints' }).focus()
  await page.keyboard.press('ArrowRight')
  await expect(page.getByRole('tab', { name: 'Changes' })).toHaveAttribute('aria-selected', 'true')
  await expect(page).toHaveURL(/tab=changes/)
  const change = page.getByRole('listitem').filter({ hasText: 'Webhook changed from' })
  await expect(change).toContainText(`Webhook changed from ${webhook} to https://moved.switchboard-demo.example/in?token=•••`)
  await expect(change).toContainText(/between .+ and /)
  await expect(page.getByText(/The API cannot say who changed it/)).toBeVisible()
  // The secret in the query never reaches the page.
  await expect(page.getByText(/s3cret/)).toHaveCount(0)
  await expect(page.getByText(/the first listing \(\d+ numbers\) is the baseline/)).toBeVisible()
  await expect(page.getByRole('listitem').filter({ hasText: /^Gap: the listing at .+ failed/ })).toBeVisible()
  await expect(page.getByText(/No longer listed/)).toHaveCount(0)
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
  await page.screenshot({ path: '.test-results/callbacks-changes-390.png', fullPage: false })
  expect(await axeViolations(page)).toEqual([])

  await page.keyboard.press('ArrowRight')
  await expect(page).toHaveURL(/tab=at-risk/)
  await expect(page.getByRole('status').filter({ hasText: /at risk/ })).toBeVisible()
  await page.reload()
  await expect(page.getByRole('tab', { name: 'Messages at risk' })).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByRole('status').filter({ hasText: /at risk/ })).toBeVisible()
  expect(await axeViolations(page)).toEqual([])

  // The dark theme: the same page, axe clean there too.
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.goto('/callbacks')
  await expect(page.locator('html')).toHaveClass(/dark/)
  await expect(page.getByText('Not checked (private address)').first()).toBeVisible()
  expect(await axeViolations(page)).toEqual([])
  await page.screenshot({ path: '.test-results/callbacks-endpoints-dark-390.png', fullPage: false })
})

test('numbers page: a number whose callback address the watch found failing says so in its row, linked to its callback history, which survives reload', async ({
  page,
}) => {
  test.setTimeout(120_000)
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 })
    await page.goto('/callbacks')
    if (width === 1280) {
      await page.getByRole('button', { name: 'Check now' }).click()
      await expect(page.getByRole('status').filter({ hasText: /First listing taken|Listed: \d+ change/ })).toBeVisible({ timeout: 45_000 })
    }
    await expect(page.getByText(/Failing/).first()).toBeVisible()

    await page.goto('/')
    const note = page.getByRole('link', { name: /^(Webhook|DLR): endpoint failing \(callback history of .+\)$/ }).first()
    await expect(note).toBeVisible({ timeout: 20_000 })
    await note.scrollIntoViewIfNeeded()
    await page.screenshot({ path: `.test-results/numbers-watch-${width}.png`, fullPage: false })
    const href = await note.getAttribute('href')
    expect(href).toMatch(/^\/callbacks\?tab=changes&number=\d{6,15}$/)
    const digits = /number=(\d+)/.exec(href!)![1]!
    await note.click()
    await expect(page).toHaveURL(new RegExp(`/callbacks\\?tab=changes&number=${digits}$`))
    await expect(page.getByRole('tab', { name: 'Changes' })).toHaveAttribute('aria-selected', 'true')
    await expect(page.getByLabel('Number (empty: every number)')).toHaveValue(digits)
    await page.reload()
    await expect(page.getByLabel('Number (empty: every number)')).toHaveValue(digits)
    await expect(page.getByRole('status').filter({ hasText: /No change seen on|change.? on/ })).toBeVisible()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width)

    // On the Callbacks page, each number an endpoint serves links to that number's callback history.
    await page.getByRole('tab', { name: 'Endpoints' }).click()
    const numberLink = page.getByRole('link', { name: /\(its callback history\)$/ }).first()
    await expect(numberLink).toBeVisible()
    await numberLink.click()
    await expect(page).toHaveURL(/\/callbacks\?tab=changes&number=\d{6,15}$/)
    await expect(page.getByRole('tab', { name: 'Changes' })).toHaveAttribute('aria-selected', 'true')
    await page.screenshot({ path: `.test-results/callbacks-number-${width}.png`, fullPage: false })
    expect(await axeViolations(page)).toEqual([])
  }
})
