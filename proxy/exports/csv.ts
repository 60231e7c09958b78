// The project's one set of CSV rules (contract/csv.ts), for the server's streamed exports (the index's and the desk's).
export { BOM, csvCell, csvRow, neutralise } from '../../contract/csv.ts'
