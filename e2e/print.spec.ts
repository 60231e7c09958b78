import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { expect, test } from './fixtures'
import { NUMBERS, historyUrl, indexNumber } from './helpers'

/**
 * Issue 16, a printed transcript: Chromium renders the page to PDF (the print stylesheet, every
 * row of the loaded page, not only the rows a scrolling window holds) and poppler's pdftotext
 * reads the text back, as a person reading the paper would. Set PRINT_KEEP=dir to keep the PDFs
 * and a PNG of each first page (pdftoppm) for looking at.
 */
function pdfText(pdf: Buffer, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'print-'))
  try {
    const file = join(dir, `${name}.pdf`)
    writeFileSync(file, pdf)
    const keep = process.env.PRINT_KEEP
    if (keep) {
      writeFileSync(join(keep, `${name}.pdf`), pdf)
      execFileSync('pdftoppm', ['-png', '-r', '70', '-f', '1', '-l', '2', file, join(keep, name)])
    }
    execFileSync('pdftotext', ['-enc', 'UTF-8', file, join(dir, 'out.txt')])
    return readFileSync(join(dir, 'out.txt'), 'utf8')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function print(page: Page, name: string): Promise<string> {
  // A person's Ctrl+P fires beforeprint, which the table answers synchronously with every row;
  // CDP's printToPDF fires no such event, so print media is switched on first (the table
  // listens to it too) and the PDF taken once that frame is done.
  await page.emulateMedia({ media: 'print' })
  await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))))
  const pdf = await page.pdf({ format: 'A4', margin: { top: '12mm', bottom: '12mm', left: '12mm', right: '12mm' } })
  return pdfText(pdf, name)
}

/** What never belongs on paper: navigation, pager, filters, export and column controls. */
const CONTROLS = [
  'Export CSV',
  'Export JSON',
  'Rows per page',
  'Next page',
  'Go to page',
  'Filter the loaded page',
  'Columns',
  'Skip to content',
  'Theme',
]

test.describe('printing', () => {
  // The thread and search tests read the index: fill it here rather than rely on another spec having done so.
  test.beforeAll(async () => {
    test.setTimeout(120_000)
    await indexNumber(NUMBERS.big, 100_000)
  })

  test('a history page prints as a transcript: every loaded message with date, direction and status in words; media by file name; no controls', async ({
    page,
  }) => {
    await page.goto(historyUrl(NUMBERS.big, 'size=100'))
    await expect(page.getByRole('heading', { name: 'History of (832) 323-2323' })).toBeVisible()
    await expect(page.locator('[data-col="body"]').first()).toBeVisible()
    const text = await print(page, 'history')
    expect(text).toContain('History of (832) 323-2323')
    // The paper says it is one page of the history, and when it was printed in the page's own zone.
    expect(text).toContain('Records 1–100 of 2,345 (the page printed)')
    expect(text).toMatch(/Printed: [A-Z][a-z]{2} \d{1,2}, \d{4}/)
    // Every one of the 100 loaded messages, not the ~20 the scrolling window holds on screen.
    const dates = text.match(/\b[A-Z][a-z]{2} \d{1,2},\s+\d{4},\s+\d{1,2}:\d{2}\s*[AP]M\b/g) ?? []
    expect(dates.length).toBeGreaterThanOrEqual(100)
    expect(text).toMatch(/\bInbound\b/)
    expect(text).toMatch(/\bOutbound\b/)
    expect(text).toMatch(/\bSuccess\b/)
    // Media as file names and links.
    expect(text).toMatch(/[\w-]+\.(png|jpg|gif|vcf|pdf|mp4)\b/)
    for (const c of CONTROLS) expect(text, `"${c}" printed`).not.toContain(c)
    // Each sheet of the table repeats its whole header row, sortable columns' titles too (they are buttons on screen).
    const sheets = text.split('\f').filter((t) => /\b(Inbound|Outbound)\b/.test(t))
    expect(sheets.length).toBeGreaterThan(1)
    // Every title on every sheet. Not their order: pdftotext reads a sheet whose first row is tall
    // (a message of several lines beside a picture) with the last title after that row's cells, and
    // which rows fall on a sheet follows the demo's dates, which follow the day the test runs.
    for (const [i, sheet] of sheets.entries())
      for (const title of ['Date', 'Direction', 'Other party', 'Message', 'Status'])
        expect(sheet, `the header "${title}" on sheet ${i + 1}`).toMatch(new RegExp(`(^|\\n)${title}\\b`))
  })

  test('every printed date is whole on this machine’s fonts, in local time and in UTC (the longest form)', async ({ page }) => {
    for (const [zone, tail] of [
      ['', ''],
      ['&tz=utc', '\\s+UTC'],
    ] as const) {
      await page.emulateMedia({ media: 'screen' })
      await page.goto(historyUrl(NUMBERS.big, `size=100${zone}`))
      await expect(page.locator('[data-col="body"]').first()).toBeVisible()
      const text = await print(page, `dates${zone}`)
      const whole = text.match(new RegExp(`\\b[A-Z][a-z]{2} \\d{1,2},\\s+\\d{4},\\s+\\d{1,2}:\\d{2}\\s*[AP]M${tail}\\b`, 'g')) ?? []
      // Every one of the 100 rows (the header adds the envelope's dates), and no date cut short ("12:00 P", "12:00 PM U").
      expect(whole.length, `whole dates printed${zone}`).toBeGreaterThanOrEqual(100)
      const cut = text.match(new RegExp(`\\d{1,2}:\\d{2}\\s*(?:[AP](?!M)${tail ? '|[AP]M(?!\\s+UTC)' : ''})`, 'g')) ?? []
      expect(cut, `dates cut${zone}`).toEqual([])
    }
  })

  test('a thread prints with a header naming the number, the other party, the date span and the time zone', async ({ page }) => {
    await page.goto(`/numbers/${NUMBERS.big.number}/thread?tid=${NUMBERS.big.tid}&party=13105831111`)
    await expect(page.locator('[data-col="body"]').first()).toBeVisible({ timeout: 15_000 })
    const text = await print(page, 'thread')
    expect(text).toContain('(832) 323-2323')
    expect(text).toContain('(310) 583-1111')
    expect(text).toMatch(/time zone|UTC|GMT/i)
    // A conversation names direction as it reads to the account: Sent / Received; status in words;
    // media by file name and host, never the whole link (its path and query can carry a token).
    expect(text).toMatch(/\bSent\b/)
    expect(text).toMatch(/\bReceived\b/)
    expect(text).toMatch(/\bSuccess\b/)
    expect(text).toMatch(/Picture: photo-\d+\.png \(from 127\.0\.0\.1:\d+\)/)
    expect(text).not.toMatch(/\/media\/photo-/)
    for (const c of CONTROLS) expect(text, `"${c}" printed`).not.toContain(c)
  })

  test('a printed thread says exactly what the paper holds: how many of the thread’s messages, and their first and last dates', async ({
    page,
  }) => {
    await page.goto(`/numbers/${NUMBERS.big.number}/thread?tid=${NUMBERS.big.tid}&party=13105831111&tz=utc`)
    const list = page.getByRole('list', { name: 'Messages with (310) 583-1111' })
    await expect(list.locator('[data-col="body"]').first()).toBeVisible({ timeout: 15_000 })
    // What is loaded: its count, and its oldest and newest dates as the screen shows them.
    const heading = (await page.locator('#thread-title + p').textContent()) ?? ''
    const total = Number(/^([\d,]+) messages/.exec(heading)?.[1]?.replace(/,/g, ''))
    const loaded = await list.locator(':scope > li').count()
    expect(total).toBeGreaterThan(loaded)
    const times = (await list.locator('time').evaluateAll((els) => els.map((e) => e.textContent ?? ''))).map((t) => t.replace(/\s+/g, ' '))
    const text = (await print(page, 'thread-holds')).replace(/\s+/g, ' ')
    const holds = /Messages ([\d,]+) of ([\d,]+), from (.+?) to (.+?) Time zone/.exec(text)
    expect(holds, text.slice(0, 400)).not.toBeNull()
    expect(Number(holds![1]!.replace(/,/g, ''))).toBe(loaded)
    expect(Number(holds![2]!.replace(/,/g, ''))).toBe(total)
    expect(holds![3]).toBe(times[0])
    expect(holds![4]).toBe(times[times.length - 1])
    // The thread's whole span is not claimed.
    expect(text).not.toMatch(/Dates: /)
  })

  test('search results print with their messages and no controls', async ({ page }) => {
    await page.goto('/search?q=appointment')
    await expect(page.locator('[data-col="body"]').first()).toBeVisible({ timeout: 15_000 })
    const text = await print(page, 'search')
    expect(text).toMatch(/appointment/i)
    expect(text).toMatch(/\bInbound\b|\bOutbound\b/)
    for (const c of CONTROLS) expect(text, `"${c}" printed`).not.toContain(c)
  })

  test('printed search results say they hold the matches loaded, not every match', async ({ page }) => {
    await page.goto(`/search?numbers=${NUMBERS.big.number}`)
    const more = page.getByRole('button', { name: /^Show more results \(/ })
    await expect(more).toBeVisible({ timeout: 15_000 })
    const [, loaded, of] = /^Show more results \(([\d,]+) of (.+) shown\)$/.exec((await more.textContent()) ?? '')!
    const text = (await print(page, 'search-partial')).replace(/\s+/g, ' ')
    // The header's match count alone said the paper held all of them.
    expect(text).toContain(`This paper holds the ${loaded} matches loaded of ${of!}; the rest are not printed.`)
  })

  test('the charts page prints every row of its figures, not the ones its scrolling box shows', async ({ page }) => {
    await page.goto(`/charts?number=${NUMBERS.big.number}&range=90d&tz=utc`)
    const figures = page.getByRole('region', { name: 'Chart figures, scrollable' })
    await expect(figures.locator('tbody tr').first()).toBeVisible()
    const days = await figures.locator('tbody th[scope="row"]').allInnerTexts()
    // More rows than the box's 24rem shows on screen, so the test can tell.
    expect(days.length).toBeGreaterThan(15)
    const text = await print(page, 'charts')
    for (const d of [days[0]!, days[Math.floor(days.length / 2)]!, days.at(-1)!]) expect(text, `${d} printed`).toContain(d.trim())
    // The paper says what it is, in which zone, and when it was printed, as every other page does.
    expect(text).toContain('Charts: (832) 323-2323')
    expect(text).toContain(`Account number: (832) 323-2323 (${NUMBERS.big.number})`)
    expect(text).toContain('Time zone: UTC')
    expect(text).toMatch(/Printed: \w{3} \d{1,2}, \d{4}/)
    // On paper each chart is scaled to the sheet: uPlot's canvas keeps the pixel width it was drawn
    // at on screen, and a 1,400 px chart ran past the sheet's edge, its last days cut.
    await page.emulateMedia({ media: 'print' })
    const canvases = await page.locator('.uplot canvas').evaluateAll((els) => els.map((el) => getComputedStyle(el).maxWidth))
    expect(canvases.length).toBeGreaterThan(0)
    for (const maxWidth of canvases) expect(maxWidth).toBe('100%')
    await page.emulateMedia({ media: 'screen' })
  })

  test("a message's own page prints with the header every transcript has", async ({ page }) => {
    await page.goto(`/numbers/${NUMBERS.big.number}/messages/7?tid=${NUMBERS.big.tid}&tz=utc`)
    await expect(page.getByRole('heading', { level: 1, name: /^Record [\d,]+ of \(832\) 323-2323$/ })).toBeVisible()
    const text = await print(page, 'message')
    expect(text).toContain(`Account number: (832) 323-2323 (${NUMBERS.big.number})`)
    expect(text).toContain('One message: number 7 from the oldest')
    expect(text).toContain('Time zone: UTC')
    expect(text).toMatch(/Printed: \w{3} \d{1,2}, \d{4}/)
  })

  test('the numbers page prints its rows as a table, in the light palette, with no controls', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.goto('/')
    await expect(page.getByRole('link', { name: '(832) 323-2323', exact: true })).toBeVisible()
    const text = await print(page, 'numbers')
    expect(text).toContain('(832) 323-2323')
    // All 60 numbers, not the rows in the scrolling window.
    expect(text).toContain('(800) 484-0451')
    const raw = text.match(/\b1?\d{10}\b/g) ?? []
    expect(new Set(raw).size).toBeGreaterThanOrEqual(60)
    for (const c of CONTROLS) expect(text, `"${c}" printed`).not.toContain(c)
    // Paper is white: under print media the dark palette is off.
    await page.emulateMedia({ media: 'print' })
    expect(await page.evaluate(() => getComputedStyle(document.body).color)).not.toMatch(/oklch\(0\.9|rgb\(2[0-9]{2}/)
  })
})
