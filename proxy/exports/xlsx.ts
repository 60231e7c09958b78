import { constants, deflateRawSync } from 'node:zlib'
import { xlsxWriter, type RawDeflate, type XlsxCell, type XlsxColumn } from '../../contract/xlsx.ts'

// The project's one .xlsx writer (contract/xlsx.ts), for the server's streamed exports.
export { cellOf, utcDate, type XlsxCell, type XlsxColumn } from '../../contract/xlsx.ts'

/**
 * An .xlsx written to a response batch by batch: rows go in as they come, and `batchDone` hands
 * the batch's compressed bytes to `write` (which waits for the client: back-pressure), so no more
 * than one batch's XML and the deflater's window are ever held, whatever the row count.
 * The sheet is compressed by Node's zlib at level 1, a batch at a time (each batch's deflate is
 * independent and ends with a sync flush, so they join into one stream; a batch of about a
 * megabyte of XML loses nothing measurable to the restart): a million message rows took 93 s with
 * fflate's JavaScript deflate on a loaded machine.
 */
const zlibDeflate: RawDeflate = (chunk, final) =>
  deflateRawSync(chunk, { level: 1, finishFlush: final ? constants.Z_FINISH : constants.Z_SYNC_FLUSH })

export function streamedXlsx(o: { sheet: string; columns: readonly XlsxColumn[] }, write: (chunk: Uint8Array) => Promise<void>) {
  const pending: Uint8Array[] = []
  const sheet = xlsxWriter({ ...o, deflate: zlibDeflate }, (chunk) => pending.push(chunk))
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
