import { readFile } from 'node:fs/promises'
import type { Download, Page } from '@playwright/test'

/** RFC 4180 reader for checking exports (quotes, doubled quotes, CRLF inside quotes). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  const src = text.replace(/^\uFEFF/, '')
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') {
        cell += '"'
        i++
      } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(cell)
      cell = ''
    } else if (c === '\r' && src[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else cell += c
  }
  if (cell !== '' || row.length) {
    row.push(cell)
    rows.push(row)
  }
  return rows
}

export async function downloadText(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string; download: Download }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()])
  const path = await download.path()
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8'), download }
}

/** Rows of a virtualised table as they are in the DOM, in order (spacer rows excluded). */
export async function rowTexts(page: Page, tableName: string | RegExp, cellIndex: number, selector = ''): Promise<string[]> {
  const rows = page.getByRole('table', { name: tableName }).locator('tbody tr[aria-rowindex]')
  return rows.evaluateAll(
    (trs, [i, sel]) => trs.map((tr) => {
      const td = tr.children[i as number] as HTMLElement | undefined
      const el = sel ? td?.querySelector(sel as string) : td
      return (el?.textContent ?? '').trim()
    }),
    [cellIndex, selector] as const,
  )
}

export const NUMBERS = {
  big: { number: '18323232323', tid: 'PUHMGWS98301' },
  empty: { number: '14158074499', tid: 'CQNYFSJ07981' },
  one: { number: '15147901725', tid: 'BNQUSUX68269' },
  dozens: { number: '18552009444', tid: 'JQYBHYV97381' },
  hundreds: { number: '17202951888', tid: 'KVYPFWW99804' },
  thousands: { number: '8329632623', tid: 'VYWTNVQ77226' },
  million: { number: '13053851232', tid: 'YUFZUGT21996' },
  hostile: { number: '18004840451', tid: 'YJXGKLS07714' },
}

export const historyUrl = (n: { number: string; tid: string }, extra = '') => `/numbers/${n.number}?tid=${n.tid}${extra ? `&${extra}` : ''}`
