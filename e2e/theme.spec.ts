import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'

/**
 * Issue 16, dark theme: the header's Theme control (System / Light / Dark) is remembered in
 * the browser across reloads, "System" follows prefers-color-scheme (also when it changes while
 * the page is open), and the class is on <html> before the first paint: no light flash.
 */
const isDark = (page: Page) => page.evaluate(() => document.documentElement.classList.contains('dark'))
const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor)

test.describe('theme', () => {
  test('System follows prefers-color-scheme, also while the page is open', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.goto('/')
    await expect(page.getByRole('combobox', { name: 'Theme' })).toHaveValue('system')
    expect(await isDark(page)).toBe(true)
    const dark = await background(page)
    await page.emulateMedia({ colorScheme: 'light' })
    await expect.poll(() => isDark(page)).toBe(false)
    // The palette really changed, not only a class.
    expect(await background(page)).not.toBe(dark)
  })

  test('a choice is remembered across reloads and wins over the system', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' })
    await page.goto('/')
    const select = page.getByRole('combobox', { name: 'Theme' })
    await select.selectOption('dark')
    await expect.poll(() => isDark(page)).toBe(true)
    await page.reload()
    await expect(page.getByRole('combobox', { name: 'Theme' })).toHaveValue('dark')
    expect(await isDark(page)).toBe(true)

    await page.emulateMedia({ colorScheme: 'dark' })
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('light')
    await expect.poll(() => isDark(page)).toBe(false)
    await page.reload()
    expect(await isDark(page)).toBe(false)

    // Back to System: the system (dark, emulated) decides again, and nothing is stored.
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('system')
    await expect.poll(() => isDark(page)).toBe(true)
    expect(await page.evaluate(() => localStorage.getItem('switchboard.theme'))).toBeNull()
  })

  test('the theme is set before the first paint (no light flash in the dark)', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' })
    // Recorded the moment <body> is parsed, before any layout or paint of it.
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (!document.body) return
        observer.disconnect()
        ;(window as unknown as { darkAtBody?: boolean }).darkAtBody = document.documentElement.classList.contains('dark')
      }).observe(document, { childList: true, subtree: true })
    })
    await page.goto('/')
    expect(await page.evaluate(() => (window as unknown as { darkAtBody?: boolean }).darkAtBody)).toBe(true)
  })
})
