import { expect, test } from '@playwright/test'

/*
 * A page's code that does not load (a tab opened before Switchboard was updated, whose chunk names
 * are gone, or a dropped connection): the page says so in its own words, not as an error of the
 * messaging service, and "Reload the page" gets it. The chunk's request is failed in the browser;
 * the console errors that failure causes are the only ones this test tolerates.
 */
test('a page whose code did not load says so and offers a reload that brings it back', async ({ page }) => {
  const problems: string[] = []
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`))
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return
    const text = msg.text()
    if (/Failed to load resource/.test(text) && /\/assets\/search-page-/.test(msg.location().url)) return
    if (/dynamically imported module/.test(text)) return
    problems.push(`console.error: ${text}`)
  })
  const chunk = '**/assets/search-page-*.js'
  await page.route(chunk, (route) => route.abort('failed'))
  await page.goto('/')
  await expect(page.getByRole('heading', { level: 1, name: 'Owned numbers' })).toBeVisible()
  await page.getByRole('navigation').getByRole('link', { name: 'Search', exact: true }).click()

  const alert = page.getByRole('alert')
  await expect(alert).toContainText('The page could not be loaded while opening search')
  await expect(alert).toContainText('Switchboard may have been updated since this tab was opened')
  await expect(alert).not.toContainText('messaging service')
  await expect(page).toHaveURL(/\/search$/)

  await page.unroute(chunk)
  await alert.getByRole('button', { name: 'Reload the page' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Search all messages' })).toBeVisible()
  await expect(page.getByRole('alert')).toHaveCount(0)
  expect(problems).toEqual([])
})
