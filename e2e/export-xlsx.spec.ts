import { parse } from 'csv-parse/sync'
import { readFile } from 'node:fs/promises'
import type { Download, Page } from '@playwright/test'
import { readXlsx, serialToIso, type ReadSheet } from '../contract/test-xlsx'
import { XLSX_CELL_MAX } from '../contract/xlsx'
import { expect, test } from './fixtures'
import { NUMBERS, downloadText, historyUrl, indexNumber } from './helpers'

/*
 * The .xlsx exports as a person meets them: the history table's "Export Excel (.xlsx)" (written
 * in the browser) and the whole history's (streamed by the server), on the hostile number's 24
 * messages. Each file is unzipped and read as a spreadsheet reads it, and compared with the CSV
 * of the same rows.
 */

test.use({ timezoneId: 'UTC' })

const HOSTILE_ROWS = 24

const parseCsv = (text: string) => parse(text, { bom: true, columns: true }) as Array<Record<string, string>>

async function downloadSheet(page: Page, click: () => Promise<void>): Promise<{ name: string; sheet: ReadSheet; download: Download }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()])
  const bytes = await readFile(await download.path())
  return { name: download.suggestedFilename(), sheet: readXlsx(new Uint8Array(bytes)), download }
}

/** A sheet's cells by column name, as the CSV's header names them: the text of string cells, and the kind of each. */
function byColumn(sheet: ReadSheet) {
  const header = sheet.rows[0]!.map((c) => c.value)
  return sheet.rows.slice(1).map((row) => {
    const out: Record<string, { kind: string; value: string; format: string }> = {}
    for (const c of row) {
      const col = c.ref.replace(/\d+$/, '').charCodeAt(0) - 65
      out[header[col]!] = { kind: c.kind, value: c.value, format: sheet.formats[c.style] ?? '' }
    }
    return out
  })
}

/** Every row of the sheet says what the CSV's row says: texts as text, the dates as date cells of the same instant. */
function expectSameAsCsv(sheet: ReadSheet, csv: Array<Record<string, string>>) {
  const rows = byColumn(sheet)
  expect(rows).toHaveLength(csv.length)
  rows.forEach((row, k) => {
    const want = csv[k]!
    for (const name of ['number', 'party', 'body', 'status', 'status_raw', 'message_id', 'system_id', 'tid', 'message_tid']) {
      if (want[name] === '') expect(row[name]).toBeUndefined()
      else expect([name, row[name]?.kind, row[name]?.value]).toEqual([name, 'string', want[name]!.slice(0, XLSX_CELL_MAX)])
    }
    expect([row.date_utc?.kind, row.date_utc?.format]).toEqual(['date', 'yyyy-mm-dd hh:mm:ss'])
    expect(serialToIso(row.date_utc!.value).replace(/\.000Z$/, 'Z')).toBe(want.date_utc)
  })
}

test.describe('.xlsx exports', () => {
  test("the history table's Excel export: named like its CSV, a sheet of the rows on screen, ids as text, dates as dates, formulas inert", async ({
    page,
  }) => {
    await page.goto(historyUrl(NUMBERS.hostile))
    const table = page.getByRole('table', { name: /messages/i })
    await expect(table.locator('tbody tr[aria-rowindex]').first()).toBeVisible()
    const csvFile = await downloadText(page, () => page.getByRole('button', { name: 'Export CSV' }).click())
    const { name, sheet } = await downloadSheet(page, () => page.getByRole('button', { name: 'Export Excel (.xlsx)' }).click())
    expect(name).toBe(csvFile.name.replace(/\.csv$/, '.xlsx'))
    expect(name).toMatch(/^switchboard-history-18004840451-.*\.xlsx$/)
    expect(sheet.frozenHeader).toBe(true)
    const csv = parseCsv(csvFile.text)
    expect(csv).toHaveLength(HOSTILE_ROWS)
    expectSameAsCsv(sheet, csv)
    const rows = byColumn(sheet)
    expect(rows.every((r) => r.system_id?.kind === 'string' && /^\d{12}$/.test(r.system_id.value))).toBe(true)
    expect(rows.some((r) => r.body?.value.startsWith("'=HYPERLINK"))).toBe(true)
    expect(sheet.rows.flat().some((c) => c.kind === 'formula')).toBe(false)
  })

  test("the whole history's Excel export streams from the server and holds every message", async ({ page }) => {
    await indexNumber(NUMBERS.hostile)
    await page.goto(historyUrl(NUMBERS.hostile))
    const button = page.getByRole('button', { name: `Export all ${HOSTILE_ROWS} messages as Excel (.xlsx)` })
    await expect(button).toBeVisible({ timeout: 20_000 })
    const csvFile = await downloadText(page, () => page.getByRole('button', { name: `Export all ${HOSTILE_ROWS} messages as CSV` }).click())
    const { name, sheet } = await downloadSheet(page, () => button.click())
    expect(name).toMatch(new RegExp(`^switchboard-history-18004840451-${HOSTILE_ROWS}-rows-\\d{4}-\\d{2}-\\d{2}\\.xlsx$`))
    expect(sheet.frozenHeader).toBe(true)
    expect(sheet.sheetNames).toEqual(['History'])
    expectSameAsCsv(sheet, parseCsv(csvFile.text))
    await expect(page.getByRole('region', { name: 'Exports' })).toContainText(`Saved ${HOSTILE_ROWS} rows`)
  })
})
