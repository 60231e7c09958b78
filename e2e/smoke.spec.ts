import { expect, test } from './fixtures'

test('the app loads and lists the simulator numbers through the proxy', async ({ page, sim }) => {
  await page.goto('/')
  await expect(page.getByRole('heading', { name: 'Owned numbers' })).toBeVisible()
  await expect(page.getByRole('link', { name: '(832) 323-2323' })).toBeVisible()
  await expect(page.getByRole('status').filter({ hasText: /^60 numbers$/ })).toBeVisible()
  // The simulator saw the proxy's credentials, not the browser's (the browser sent none).
  const { requests } = await sim.requests()
  const last = requests.at(-1)
  expect(last?.path).toBe('/api/allownednumbers')
  expect(last?.fields.sys_id).toEqual(['sim-demo'])
  expect(last?.fields.auth_token).toHaveLength(1)
  expect(last?.contentType).toBe('application/x-www-form-urlencoded')
})
