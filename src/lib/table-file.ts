import { exportFileName, toCsv, toJson } from './csv'
import { download } from './download'
import type { toXlsx as ToXlsx } from './xlsx'

/**
 * A table on screen saved as a file, named for what it holds (`toXlsx` for an .xlsx: the caller
 * loads it, so the zip code comes only with a spreadsheet). Loaded on first use, as the writers are.
 */
export function saveTable(
  kind: 'csv' | 'xlsx' | 'json',
  nameParts: string[],
  { header, rows }: { header: string[]; rows: unknown[][] },
  toXlsx?: typeof ToXlsx,
) {
  if (kind === 'csv') download(exportFileName(nameParts, 'csv'), toCsv(header, rows), 'text/csv;charset=utf-8')
  else if (kind === 'xlsx' && toXlsx)
    download(
      exportFileName(nameParts, 'xlsx'),
      toXlsx(nameParts[0] ?? 'Export', header, rows),
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    )
  else download(exportFileName(nameParts, 'json'), toJson(header, rows), 'application/json')
}
