/**
 * CSV per RFC 4180 (CRLF rows, quotes doubled, quoted where needed), UTF-8 with a BOM so
 * spreadsheets detect the encoding, and safe to open: any line of a cell that a spreadsheet
 * could read as a formula is prefixed with an apostrophe (OWASP "CSV Injection").
 */

import { BOM, csvCell } from '../../contract/csv'

// The rules themselves are shared with the server's exports (contract/csv.ts).
export { csvCell, neutralise } from '../../contract/csv'

export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  const lines = [header.map(csvCell).join(',')]
  for (const row of rows) lines.push(row.map(csvCell).join(','))
  return `${BOM}${lines.join('\r\n')}\r\n`
}

export function toJson(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  return JSON.stringify(
    rows.map((row) => Object.fromEntries(header.map((h, i) => [h, row[i] ?? null]))),
    null,
    2,
  )
}

/** `switchboard-numbers-local-2026-11-21.csv`: says what it holds and when. */
export function exportFileName(parts: string[], ext: 'csv' | 'xlsx' | 'json', now = new Date()): string {
  const date = now.toISOString().slice(0, 10)
  const slug = parts
    .map((p) =>
      p
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, ''),
    )
    .filter(Boolean)
    .join('-')
  return `switchboard-${slug}-${date}.${ext}`
}
