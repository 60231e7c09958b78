import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { NUMBERS, historyUrl } from './helpers'

test.describe('one message', () => {
  test('every row links to its message page: every field, status decoded with the raw text, its place in the history', async ({ page }) => {
    await page.goto(historyUrl(NUMBERS.big, 'page=2'))
    await page.getByRole('link', { name: 'Record 51: details' }).click()
    // One numbering on screen: the link said record 51 and the page says record 51. The address
    // counts from the oldest (stable as messages arrive): record 51 of 2,345 is message 2,295.
    await expect(page).toHaveURL(/\/numbers\/18323232323\/messages\/2295/)
    await expect(page.getByRole('heading', { name: 'Record 51 of (832) 323-2323' })).toBeVisible()
    const facts = page.locator('dl')
    for (const label of [
      'Date',
      'Direction',
      'Other party',
      'Message',
      'Status',
      'Media',
      'Place in the history',
      'Message id',
      'System id',
      'tid',
      'Number',
    ])
      await expect(facts.getByText(label, { exact: true })).toBeVisible()
    await expect(facts).toContainText('Record 51 of 2,345')
    await expect(facts).toContainText('Raw:')
    await expect(facts).toContainText(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z \(UTC\)/)
    expect(await axeViolations(page)).toEqual([])
    await page.getByRole('link', { name: 'Show it in the history' }).click()
    await expect(page).toHaveURL(/page=2/)
    await expect(page.getByRole('table', { name: /Messages/ }).locator('[data-marked="true"]')).toContainText('51')
  })

  test('a message that does not exist says so in words', async ({ page }) => {
    await page.goto(`/numbers/${NUMBERS.dozens.number}/messages/999?tid=${NUMBERS.dozens.tid}`)
    await expect(page.getByRole('alert')).toContainText(/no message 999|Not found/)
    expect(await axeViolations(page)).toEqual([])
  })
})
