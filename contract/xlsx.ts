import { strToU8, Zip, ZipDeflate, ZipPassThrough } from 'fflate'
import { neutralise } from './csv.ts'

/**
 * The one .xlsx writer of every export, in the browser and on the server alike: a minimal
 * SpreadsheetML package (ECMA-376 Part 1) of one sheet, written row by row into a streamed zip.
 *
 * Why fflate and hand-written XML rather than exceljs's streaming WorkbookWriter: fflate is one
 * package with no dependencies, its streaming `Zip` + `ZipDeflate` are about 10 KB minified (the
 * browser loads them only when someone exports; exceljs is about 1 MB with jszip, archiver and
 * more, and its stream writer is Node-only), it is maintained and widely used, and the few parts
 * a sheet needs are small enough to read whole below. Memory stays flat: rows become XML text,
 * which `flush()` hands to the deflater, whose output goes to `emit` at once; nothing keeps the
 * rows. (fflate's streaming zip writes no Zip64 records, so each part must stay under 4 GiB: a
 * sheet holds at most Excel's 1,048,575 rows, about 1.3 GB of XML for message rows, and the
 * compressed file reaches 4 GiB only at about 25 million such rows.)
 *
 * Cells: strings are always inline string cells (`t="inlineStr"`), never formulas, and pass
 * through the CSV's guard (contract/csv.ts `neutralise`), so a text starting with = + - @ tab or
 * CR reads the same as in the CSV, and stays safe if the sheet is saved as CSV again. Ids and
 * phone numbers are strings, so a 12-digit id never becomes 2E+11; the text cells carry the
 * "@" (text) format, so an edited id stays text too. Dates are numbers (days since 1899-12-30)
 * with a date-time format. The header row is bold and frozen.
 */

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships'
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'

/** Style ids (cellXfs below): 1 date-time, 2 date, 3 header, 4 text. */
const STYLE = { dateTime: 1, date: 2, header: 3, text: 4 } as const
/** Excel's limit on one cell's text (Excel specifications and limits). */
export const XLSX_CELL_MAX = 32767
/** The rows Excel holds in one sheet (1,048,576 with the header). */
export const XLSX_ROWS_MAX = 1_048_575

const MS_PER_DAY = 86_400_000
/** Days from Excel's day 0 (1899-12-30, the 1900 system) to 1970-01-01. */
const EPOCH_DAYS = 25569

/** A date cell: the wall-clock time it shows, as milliseconds since 1970 on that clock (UTC fields). */
export interface XlsxDate {
  clockMs: number
  /** A day only (no time of day). */
  dayOnly?: boolean
}
export type XlsxCell = string | number | boolean | XlsxDate | null | undefined

export interface XlsxColumn {
  name: string
  /** Width in characters. */
  width?: number
}

export interface XlsxWriter {
  /** One row of cells, in the columns' order. */
  row: (cells: readonly XlsxCell[]) => void
  /** Hands the rows written so far to the zip (and so, compressed, to `emit`). */
  flush: () => void
  /** Writes the sheet's end and the rest of the package; `emit` gets its last chunk. */
  end: () => void
  /** Rows written, header excluded. */
  rows: () => number
}

// Characters XML 1.0 cannot hold (C0 controls other than tab, LF, CR; lone surrogates; U+FFFE/F).
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
/** Excel reads `_x000D_` in a string as an escaped character: a literal one is escaped itself (`_x005F_`). */
const ESCAPE_LIKE = /_(?=x[0-9A-Fa-f]{4}_)/g

function xmlText(value: string): string {
  let s = value
  if (NOT_XML.test(s)) s = s.replace(NOT_XML, '')
  if (s.includes('_x')) s = s.replace(ESCAPE_LIKE, '_x005F_')
  // A bare CR would be read back as LF (XML 1.0 section 2.11): written as a reference it stays CR.
  if (!/[&<>\r]/.test(s)) return s
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;')
}

/** A string cell's text: the CSV's formula guard, then Excel's length limit (never cutting a surrogate pair). */
export function xlsxText(value: string): string {
  let s = neutralise(value)
  if (s.length > XLSX_CELL_MAX) s = s.slice(0, /[\uD800-\uDBFF]/.test(s.charAt(XLSX_CELL_MAX - 1)) ? XLSX_CELL_MAX - 1 : XLSX_CELL_MAX)
  return xmlText(s)
}

/** A string's <t> element: whitespace at either end or a line break is kept only when asked (xml:space, XML 1.0 section 2.10). */
function tElement(value: string): string {
  const t = xlsxText(value)
  return /^\s|\s$|[\n\t]|&#13;/.test(t) ? `<t xml:space="preserve">${t}</t>` : `<t>${t}</t>`
}

/** Texts already escaped in one file: most values repeat (statuses, tids, parties), so each is worked out once. */
const TEXT_CACHE = 20_000

function textCache(): (value: string) => string {
  const texts = new Map<string, string>()
  return (value) => {
    if (value.length > 200) return tElement(value)
    let t = texts.get(value)
    if (t === undefined) {
      if (texts.size >= TEXT_CACHE) texts.clear()
      t = tElement(value)
      texts.set(value, t)
    }
    return t
  }
}

/** A column's letters: 0 → A, 25 → Z, 26 → AA. */
export function columnLetters(index: number): string {
  let n = index + 1
  let out = ''
  while (n > 0) {
    const r = (n - 1) % 26
    out = String.fromCharCode(65 + r) + out
    n = Math.floor((n - 1) / 26)
  }
  return out
}

/** The date cell of an instant shown on the UTC clock. */
export const utcDate = (ms: number): XlsxDate => ({ clockMs: ms })

/** The serial Excel stores for a date cell (days since 1899-12-30, time as the fraction). */
export const excelSerial = (clockMs: number): number => clockMs / MS_PER_DAY + EPOCH_DAYS

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?(Z)?)?$/

/**
 * A table's value as a cell: numbers stay numbers; a text that is a date as the app writes them
 * (`2026-11-21`, `2026-11-21 14:05:09`, `2026-11-21T14:05:09.000Z`) becomes a date cell on the
 * clock it is written in; everything else is text (ids and phones included, whatever their digits).
 */
export function cellOf(value: unknown): XlsxCell {
  if (value === null || value === undefined) return null
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value)
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : utcDate(value.getTime())
  if (typeof value === 'string') {
    const m = ISO_DATE.exec(value)
    if (!m) return value
    const n = (i: number) => Number(m[i] ?? 0)
    const d = n(3)
    const clockMs = Date.UTC(n(1), n(2) - 1, d, n(4), n(5), n(6), Number((m[7] ?? '0').padEnd(3, '0')))
    // Not a real day (2026-02-31), or before Excel's calendar: kept as the text it is.
    const real = new Date(clockMs).getUTCDate() === d && n(4) < 24 && n(5) < 60 && n(6) < 60
    if (!real || excelSerial(clockMs) < 61) return value
    return m[4] === undefined ? { clockMs, dayOnly: true } : { clockMs }
  }
  return typeof value === 'object' ? JSON.stringify(value) : null
}

function cellXml(ref: string, cell: XlsxCell, text: (value: string) => string = tElement): string {
  if (cell === null || cell === undefined || cell === '') return ''
  if (typeof cell === 'string') return `<c r="${ref}" s="${STYLE.text}" t="inlineStr"><is>${text(cell)}</is></c>`
  if (typeof cell === 'number') return Number.isFinite(cell) ? `<c r="${ref}"><v>${cell}</v></c>` : cellXml(ref, String(cell), text)
  if (typeof cell === 'boolean') return cellXml(ref, cell ? 'yes' : 'no', text)
  const serial = excelSerial(cell.clockMs)
  if (!Number.isFinite(serial) || serial < 0) return ''
  return `<c r="${ref}" s="${cell.dayOnly ? STYLE.date : STYLE.dateTime}"><v>${serial}</v></c>`
}

function contentTypes(sheets: number) {
  const sheetParts = Array.from(
    { length: sheets },
    (_, i) =>
      `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
  ).join('')
  return `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${sheetParts}<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`
}
const ROOT_RELS = `${XML_HEAD}<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`
/** The workbook's relationships: its sheets as rId1…rIdN, then its styles. */
function workbookRels(sheets: number) {
  const sheetRels = Array.from(
    { length: sheets },
    (_, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
  ).join('')
  return `${XML_HEAD}<Relationships xmlns="${PKG_REL}">${sheetRels}<Relationship Id="rId${sheets + 1}" Type="${REL}/styles" Target="styles.xml"/></Relationships>`
}
// cellXfs: 0 default, 1 date-time, 2 date, 3 bold header (text), 4 text ("@", format 49).
const STYLES = `${XML_HEAD}<styleSheet xmlns="${MAIN}"><numFmts count="2"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss"/><numFmt numFmtId="165" formatCode="yyyy-mm-dd"/></numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="5"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="49" fontId="1" fillId="0" borderId="0" xfId="0" applyNumberFormat="1" applyFont="1"/><xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`

/** A sheet's name as Excel allows it: at most 31 characters, none of : \ / ? * [ ]. */
export const sheetName = (name: string) => name.replace(/[:\\/?*[\]]/g, '-').slice(0, 31) || 'Sheet1'

/** The workbook: one sheet, or (past Excel's row limit) `name`, `name (2)`, `name (3)`… */
function workbookXml(name: string, sheets: number) {
  const base = sheetName(name)
  const list = Array.from({ length: sheets }, (_, i) => {
    const title = i === 0 ? base : `${base.slice(0, 31 - ` (${i + 1})`.length).trimEnd()} (${i + 1})`
    return `<sheet name="${xmlText(title).replace(/"/g, '&quot;')}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`
  }).join('')
  return `${XML_HEAD}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><bookViews><workbookView/></bookViews><sheets>${list}</sheets></workbook>`
}

function sheetHead(columns: readonly XlsxColumn[]): string {
  const cols = columns
    .map(
      (c, i) => `<col min="${i + 1}" max="${i + 1}" width="${c.width ?? Math.min(40, Math.max(10, c.name.length + 2))}" customWidth="1"/>`,
    )
    .join('')
  const header = columns
    .map((c, i) => `<c r="${columnLetters(i)}1" s="${STYLE.header}" t="inlineStr"><is>${tElement(c.name)}</is></c>`)
    .join('')
  // The header stays in view while the rows scroll (a frozen pane below row 1, ECMA-376 18.3.1.66).
  return `${XML_HEAD}<worksheet xmlns="${MAIN}" xmlns:r="${REL}"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/>${cols ? `<cols>${cols}</cols>` : ''}<sheetData><row r="1">${header}</row>`
}

/**
 * A raw deflate (RFC 1951) of one chunk that continues the stream: every chunk but the last ends
 * on a byte boundary without the final bit (a sync flush), so the chunks joined are one stream.
 * The server passes Node's zlib here (native, several times faster than deflate in JavaScript).
 */
export type RawDeflate = (chunk: Uint8Array, final: boolean) => Uint8Array<ArrayBuffer>

/** A zip entry compressed by a RawDeflate (fflate's documented way to plug in another compressor). */
class ZipRawDeflate extends ZipPassThrough {
  constructor(
    filename: string,
    private readonly deflate: RawDeflate,
  ) {
    super(filename)
    this.compression = 8
  }
  protected override process(chunk: Uint8Array<ArrayBuffer>, final: boolean): void {
    this.ondata(null, this.deflate(chunk, final), final)
  }
}

/** A whole small part (the package's fixed files), stored as it is. */
function addWhole(zip: Zip, path: string, text: string) {
  const file = new ZipPassThrough(path)
  zip.add(file)
  file.push(strToU8(text), true)
}

/**
 * A streamed .xlsx: `emit` receives the file's bytes in order, as they are made. Past Excel's
 * 1,048,576 rows a sheet (`maxRows` of data under its header) the rows go on in another sheet with
 * the same header. The package's index parts (content types, workbook, relationships) name the
 * sheets, so they are written last: a zip is read from its central directory, in any order.
 * `level` is the deflate level (1 is fastest; the sheet's XML repeats so much that it still
 * shrinks about tenfold).
 */
export function xlsxWriter(
  o: { sheet: string; columns: readonly XlsxColumn[]; level?: 1 | 6; maxRows?: number; deflate?: RawDeflate },
  emit: (chunk: Uint8Array) => void,
): XlsxWriter {
  const zip = new Zip((err, chunk) => {
    if (err) throw err
    emit(chunk)
  })
  const maxRows = o.maxRows ?? XLSX_ROWS_MAX
  addWhole(zip, 'xl/styles.xml', STYLES)
  const letters = o.columns.map((_, i) => columnLetters(i))
  const text = textCache()
  let sheets = 0
  let pending = ''
  const open = () => {
    const path = `xl/worksheets/sheet${++sheets}.xml`
    const next = o.deflate ? new ZipRawDeflate(path, o.deflate) : new ZipDeflate(path, { level: o.level ?? 6 })
    zip.add(next)
    pending = sheetHead(o.columns)
    return next
  }
  let sheet = open()
  const close = () => {
    sheet.push(strToU8(`${pending}</sheetData></worksheet>`), true)
    pending = ''
  }
  let rows = 0
  let inSheet = 0
  return {
    row: (cells) => {
      if (inSheet === maxRows) {
        close()
        sheet = open()
        inSheet = 0
      }
      rows++
      const r = ++inSheet + 1
      let xml = `<row r="${r}">`
      for (let i = 0; i < cells.length; i++) xml += cellXml(`${letters[i] ?? columnLetters(i)}${r}`, cells[i], text)
      pending += `${xml}</row>`
    },
    flush: () => {
      if (!pending) return
      sheet.push(strToU8(pending), false)
      pending = ''
    },
    end: () => {
      close()
      addWhole(zip, 'xl/workbook.xml', workbookXml(o.sheet, sheets))
      addWhole(zip, 'xl/_rels/workbook.xml.rels', workbookRels(sheets))
      addWhole(zip, '_rels/.rels', ROOT_RELS)
      addWhole(zip, '[Content_Types].xml', contentTypes(sheets))
      zip.end()
    },
    rows: () => rows,
  }
}

/** A whole small table as one .xlsx (the browser's exports of what is on screen). */
export function toXlsx(sheet: string, header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = []
  const w = xlsxWriter({ sheet, columns: header.map((name) => ({ name })) }, (c) => chunks.push(c))
  for (const row of rows) {
    w.row(row.map(cellOf))
    if (w.rows() % 1000 === 0) w.flush()
  }
  w.end()
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.length
  }
  return out
}
