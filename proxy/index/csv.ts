// The project's one set of CSV rules (contract/csv.ts), for the index's streamed exports.
export { BOM, csvCell, csvRow, neutralise } from '../../contract/csv.ts'
