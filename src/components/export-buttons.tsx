import { useState } from 'react'

export interface ExportData {
  header: string[]
  rows: unknown[][]
}

/** Trigger a browser download of generated text. */
export function download(name: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const a = document.createElement('a')
  a.href = url
  a.download = name
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => {
    URL.revokeObjectURL(url)
  }, 1000)
}

/** `Export CSV` and `Export JSON` of exactly what the caller says is on screen. The CSV code loads on first use. */
export function ExportButtons({ getData, nameParts, disabled }: { getData: () => ExportData; nameParts: string[]; disabled?: boolean }) {
  const [busy, setBusy] = useState(false)
  const run = async (kind: 'csv' | 'json') => {
    setBusy(true)
    try {
      const csv = await import('../lib/csv')
      const { header, rows } = getData()
      if (kind === 'csv') download(csv.exportFileName(nameParts, 'csv'), csv.toCsv(header, rows), 'text/csv;charset=utf-8')
      else download(csv.exportFileName(nameParts, 'json'), csv.toJson(header, rows), 'application/json')
    } finally {
      setBusy(false)
    }
  }
  return (
    <div className="flex gap-1">
      <button type="button" className="btn" onClick={() => void run('csv')} disabled={disabled || busy}>
        Export CSV
      </button>
      <button type="button" className="btn" onClick={() => void run('json')} disabled={disabled || busy}>
        Export JSON
      </button>
    </div>
  )
}
