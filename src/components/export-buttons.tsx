import { useState } from 'react'

export interface ExportData {
  header: string[]
  rows: unknown[][]
}

const KINDS = [
  ['csv', 'Export CSV'],
  ['xlsx', 'Export Excel (.xlsx)'],
  ['json', 'Export JSON'],
] as const

/**
 * `Export CSV`, `Export Excel (.xlsx)` and `Export JSON` of exactly what the caller says is on
 * screen. The writers load on first use (the .xlsx one with its zip code), never with the page.
 */
export function ExportButtons({ getData, nameParts, disabled }: { getData: () => ExportData; nameParts: string[]; disabled?: boolean }) {
  const [busy, setBusy] = useState(false)
  const run = async (kind: (typeof KINDS)[number][0]) => {
    setBusy(true)
    try {
      // The .xlsx writer and its zip code load only when someone asks for a spreadsheet.
      const [files, xlsx] = await Promise.all([import('../lib/table-file'), kind === 'xlsx' ? import('../lib/xlsx') : null])
      files.saveTable(kind, nameParts, getData(), xlsx?.toXlsx)
    } finally {
      setBusy(false)
    }
  }
  return (
    <div className="flex flex-wrap gap-1">
      {KINDS.map(([kind, label]) => (
        <button key={kind} type="button" className="btn" onClick={() => void run(kind)} disabled={disabled || busy}>
          {label}
        </button>
      ))}
    </div>
  )
}
