/**
 * The rows of one statement's answer, read straight from the backend's wire-protocol bytes (the
 * answer to Bind, Describe, Execute and Sync; see pglite-worker.ts preparedQuery).
 *
 * PGlite's own reader (execProtocol, then parse.parseResults) cuts every field out of the answer
 * with ArrayBuffer.slice, a new buffer per value, before decoding it: a scratch measurement here
 * took 1.9 ms for 1,500 fields that Buffer's UTF-8 decoding of the same bytes in place reads in
 * 0.16 ms, and a profile of 50 concurrent searches put a third of the database thread's time in
 * that reader. This reads the same messages in place. It keeps parseResults' meaning: rows of the
 * first result, one object per row keyed by column name (a repeated name keeps the last value),
 * each text value through the type's parser (`parse`, PGlite's types.parseType), NULL as null.
 *
 * An ErrorResponse is not read here: the caller gets null and lets PGlite's parser turn the same
 * bytes into the error it has always thrown.
 */

const ROW_DESCRIPTION = 0x54 // 'T'
const DATA_ROW = 0x44 // 'D'
const COMMAND_COMPLETE = 0x43 // 'C'
const ERROR_RESPONSE = 0x45 // 'E'

export type ParseValue = (text: string, typeId: number) => unknown

export function readRows(data: Uint8Array, parse: ParseValue): Array<Record<string, unknown>> | null {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const rows: Array<Record<string, unknown>> = []
  let names: string[] = []
  let typeIds: number[] = []
  let done = false
  let at = 0
  while (at + 5 <= buf.length) {
    const code = buf[at]!
    const length = buf.readUInt32BE(at + 1)
    const body = at + 5
    const end = at + 1 + length
    if (length < 4 || end > buf.length) throw new Error('The database answered with a truncated message.')
    if (code === ERROR_RESPONSE) return null
    if (!done && code === ROW_DESCRIPTION) {
      const count = buf.readUInt16BE(body)
      names = new Array<string>(count)
      typeIds = new Array<number>(count)
      let p = body + 2
      for (let i = 0; i < count; i++) {
        const nul = buf.indexOf(0, p)
        names[i] = buf.toString('utf8', p, nul)
        // After the name: table oid (4), column number (2), type oid (4), size (2), modifier (4), format (2).
        typeIds[i] = buf.readUInt32BE(nul + 7)
        p = nul + 19
      }
    } else if (!done && code === DATA_ROW) {
      const count = buf.readUInt16BE(body)
      const row: Record<string, unknown> = {}
      let p = body + 2
      for (let i = 0; i < count; i++) {
        const len = buf.readInt32BE(p)
        p += 4
        if (len < 0) row[names[i]!] = null
        else {
          row[names[i]!] = parse(buf.toString('utf8', p, p + len), typeIds[i]!)
          p += len
        }
      }
      rows.push(row)
    } else if (code === COMMAND_COMPLETE) done = true
    at = end
  }
  return rows
}

/** Whether an answer holds an ErrorResponse: only the message headers are read, no field. */
export function answerHasError(data: Uint8Array): boolean {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  let at = 0
  while (at + 5 <= data.length) {
    if (data[at] === ERROR_RESPONSE) return true
    const length = view.getUint32(at + 1)
    if (length < 4) return false
    at += 1 + length
  }
  return false
}

/** Protocol messages (or an answer's pieces) as one array of bytes. */
export function joined(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
