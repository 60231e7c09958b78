import { strFromU8, unzipSync } from 'fflate'

/**
 * Reads back a sheet the way a spreadsheet would (tests only): the package's parts, the frozen
 * pane, and each cell's kind (inline string, number, date by its style's number format, formula).
 */
export interface ReadCell {
  ref: string
  kind: 'string' | 'number' | 'date' | 'formula' | 'other'
  /** The text of a string cell, the number of a number or date cell (its serial). */
  value: string
  style: number
}

export interface ReadSheet {
  parts: string[]
  /** The workbook's sheet names, in order. */
  sheetNames: string[]
  frozenHeader: boolean
  rows: ReadCell[][]
  /** The number format code of each cellXfs index. */
  formats: string[]
}

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#13;/g, '\r')
    .replace(/&amp;/g, '&')

const BUILT_IN: Record<string, string> = { '0': 'General', '49': '@', '14': 'm/d/yyyy', '22': 'm/d/yyyy h:mm' }

/** The first sheet (or the `sheet`th, from 1). */
export function readXlsx(bytes: Uint8Array, sheetNumber = 1): ReadSheet {
  const files = unzipSync(bytes)
  const text = (p: string) => {
    const f = files[p]
    if (!f) throw new Error(`the package has no ${p}`)
    return strFromU8(f)
  }
  const styles = text('xl/styles.xml')
  const custom = new Map(
    [...styles.matchAll(/<numFmt numFmtId="(\d+)" formatCode="([^"]*)"\/>/g)].map((m) => [m[1] ?? '', unescape(m[2] ?? '')]),
  )
  const xfs = /<cellXfs[^>]*>(.*?)<\/cellXfs>/s.exec(styles)?.[1] ?? ''
  const formats = [...xfs.matchAll(/<xf [^>]*numFmtId="(\d+)"/g)].map((m) => custom.get(m[1] ?? '') ?? BUILT_IN[m[1] ?? ''] ?? m[1] ?? '')
  const sheet = text(`xl/worksheets/sheet${sheetNumber}.xml`)
  const rows = [...sheet.matchAll(/<row [^>]*>(.*?)<\/row>/gs)].map((r) =>
    [...(r[1] ?? '').matchAll(/<c r="([A-Z]+\d+)"([^>]*)>(.*?)<\/c>/gs)].map((c): ReadCell => {
      const attrs = c[2] ?? ''
      const body = c[3] ?? ''
      const style = Number(/ s="(\d+)"/.exec(attrs)?.[1] ?? 0)
      const type = / t="(\w+)"/.exec(attrs)?.[1]
      if (body.includes('<f>') || body.includes('<f ')) return { ref: c[1] ?? '', kind: 'formula', value: body, style }
      if (type === 'inlineStr')
        return { ref: c[1] ?? '', kind: 'string', value: unescape(/<t[^>]*>(.*?)<\/t>/s.exec(body)?.[1] ?? ''), style }
      const v = /<v>(.*?)<\/v>/.exec(body)?.[1] ?? ''
      if (type === undefined || type === 'n')
        return { ref: c[1] ?? '', kind: /[yd]/.test(formats[style] ?? '') ? 'date' : 'number', value: v, style }
      return { ref: c[1] ?? '', kind: 'other', value: v, style }
    }),
  )
  const sheetNames = [...text('xl/workbook.xml').matchAll(/<sheet name="([^"]*)"/g)].map((m) => unescape(m[1] ?? ''))
  return { parts: Object.keys(files), sheetNames, frozenHeader: /<pane [^>]*ySplit="1"[^>]*state="frozen"/.test(sheet), rows, formats }
}

/** A date cell's serial as the UTC clock it shows (`2026-11-21T14:05:09.000Z`). */
export const serialToIso = (serial: string) => new Date(Math.round((Number(serial) - 25569) * 86_400_000)).toISOString()
