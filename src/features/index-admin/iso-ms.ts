/** An ISO timestamp from the index status as epoch milliseconds (null stays null), for formatDate. */
export const isoMs = (iso: string | null) => (iso ? Date.parse(iso) : null)
