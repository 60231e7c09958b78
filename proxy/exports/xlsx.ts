import { xlsxWriter, type XlsxCell, type XlsxColumn } from '../../contract/xlsx.ts'

// The project's one .xlsx writer (contract/xlsx.ts), for the server's streamed exports.
export { cellOf, utcDate, type XlsxCell, type XlsxColumn } from '../../contract/xlsx.ts'

/**
 * An .xlsx written to a response batch by batch: rows go in as they come, and `batchDone` hands
 * the batch's compressed bytes to `write` (which waits for the client: back-pressure), so no more
 * than one batch's XML and the deflater's window are ever held, whatever the row count.
 * Deflate level 1: about as small as level 6 on a sheet's repetitive XML, and much faster.
 */
export function streamedXlsx(o: { sheet: string; columns: readonly XlsxColumn[] }, write: (chunk: Uint8Array) => Promise<void>) {
  const pending: Uint8Array[] = []
  const sheet = xlsxWriter({ ...o, level: 1 }, (chunk) => pending.push(chunk))
  const send = async () => {
    if (pending.length === 0) return
    const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending)
    pending.length = 0
    await write(chunk)
  }
  return {
    row: (cells: readonly XlsxCell[]) => sheet.row(cells),
    batchDone: async () => {
      sheet.flush()
      await send()
    },
    end: async () => {
      sheet.end()
      await send()
    },
  }
}
