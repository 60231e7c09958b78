/**
 * CSV per RFC 4180 (CRLF rows, quotes doubled, quoted where needed), UTF-8 with a BOM so
 * spreadsheets detect the encoding, and safe to open: any line of a cell that a spreadsheet
 * could read as a formula is prefixed with an apostrophe (OWASP "CSV Injection").
 */

const PLAIN_NUMBER = /^[+-]?\d+(?:\.\d+)?$/
const FORMULA_LINE = /^[\s]*[=+\-@\t\r]|^[\t\r]/

export function neutralise(value: string): string {
  // NUL truncates cells in some readers; it carries no meaning in a message.
  const text = value.replace(/\u0000/g, '')
  // A bare number, E.164 included (+15551234567), is data, not a formula: keep it readable.
  if (PLAIN_NUMBER.test(text)) return text
  // The cell's first character (tab and CR included), then every line after an embedded break.
  const head = FORMULA_LINE.test(text) ? `'${text}` : text
  return head
    .split(/(\r\n|\r|\n)/)
    .map((part, i) => (i > 0 && i % 2 === 0 && FORMULA_LINE.test(part) ? `'${part}` : part))
    .join('')
}

export function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? '' : neutralise(String(value))
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  const lines = [header.map(csvCell).join(',')]
  for (const row of rows) lines.push(row.map(csvCell).join(','))
  return `\uFEFF${lines.join('\r\n')}\r\n`
}

export function toJson(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  return JSON.stringify(
    rows.map((row) => Object.fromEntries(header.map((h, i) => [h, row[i] ?? null]))),
    null,
    2,
  )
}

/** `switchboard-numbers-local-2026-11-21.csv`: says what it holds and when. */
export function exportFileName(parts: string[], ext: 'csv' | 'json', now = new Date()): string {
  const date = now.toISOString().slice(0, 10)
  const slug = parts
    .map((p) => p.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''))
    .filter(Boolean)
    .join('-')
  return `switchboard-${slug}-${date}.${ext}`
}
