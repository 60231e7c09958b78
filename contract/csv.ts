/**
 * The CSV rules of every export, in the browser and on the server alike: RFC 4180 (CRLF rows,
 * quotes doubled, quoted where needed), UTF-8 with a BOM so spreadsheets detect the encoding, and
 * safe to open: any line of a cell that a spreadsheet could read as a formula gets an apostrophe
 * (OWASP "CSV Injection"). One module, so a fix reaches every export.
 */

const PLAIN_NUMBER = /^[+-]?\d+(?:\.\d+)?$/
// The formula characters, and their full-width forms (＝ ＋ － ＠), which some spreadsheets fold
// to ASCII on input: guarded whether or not the one opening the file does.
const FORMULA_LINE = /^[\s]*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]|^[\t\r]/

export const BOM = '\uFEFF'

export function neutralise(value: string): string {
  // NUL truncates cells in some readers; it carries no meaning in a message.
  const text = value.includes('\u0000') ? value.replace(/\u0000/g, '') : value
  // A bare number, E.164 included (+15551234567), is data, not a formula: keep it readable.
  if (PLAIN_NUMBER.test(text)) return text
  // The cell's first character (tab and CR included), then every line after an embedded break.
  const head = FORMULA_LINE.test(text) ? `'${text}` : text
  if (!/[\r\n]/.test(head)) return head
  return head
    .split(/(\r\n|\r|\n)/)
    .map((part, i) => (i > 0 && i % 2 === 0 && FORMULA_LINE.test(part) ? `'${part}` : part))
    .join('')
}

/** A cell's value as text: nothing for null, a plain object (a log entry's details) as JSON, never "[object Object]". */
function plainText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  if (value instanceof Date) return String(value)
  // A symbol or a function is no cell value.
  return typeof value === 'object' ? JSON.stringify(value) : ''
}

export function csvCell(value: unknown): string {
  const text = neutralise(plainText(value))
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** One CSV record with its CRLF. */
export function csvRow(cells: readonly unknown[]): string {
  let out = ''
  for (let i = 0; i < cells.length; i++) out += (i ? ',' : '') + csvCell(cells[i])
  return `${out}\r\n`
}
