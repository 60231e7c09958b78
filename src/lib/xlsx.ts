/**
 * The .xlsx of a table on screen: the one writer both sides use (contract/xlsx.ts), loaded only
 * when someone exports. Ids and phones stay text, the app's dates become date cells, and every
 * string cell keeps the CSV's formula guard.
 */
export { toXlsx } from '../../contract/xlsx'
