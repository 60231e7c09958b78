import { describe, expect, it } from 'vitest'
import { PLAIN_FIELDS } from '../../contract/message-fields.ts'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { copyCsv, copyPieces, MESSAGE_COLUMNS } from './columns.ts'
import { lineBytesOf } from './sync/prepare.ts'

describe("COPY's data from a batch's line bytes", () => {
  it('is each line with its status id and body id, as the text join made it, whatever the characters', () => {
    // Lines as copyLine makes them: quoted fields may hold commas, line breaks and any script.
    const lines = ['1,"a,b"', '2,"line\nbreak"', '3,"מוכנה ✓ 👍"', '4,""', '5,x']
    const statusIds = [7, null, 0, 1234567890, 9]
    const bodyIds = [null, 42, 10, 0, 99999]
    // As the batch gives them: each row's key into the distinct ids (-1: none), the ids by key.
    const statusKeys = Int32Array.from([0, -1, 1, 2, 3])
    const statusList = [7, 0, 1234567890, 9]
    const bodyKeys = Int32Array.from([-1, 2, 1, 0, 3])
    const bodyList = [0, 10, 42, 99999]
    const { lineBytes, lineEnds } = lineBytesOf(lines)
    const text = new TextDecoder().decode(
      copyCsv({ lineBytes, lineEnds, lineStatus: statusKeys, statusIds: statusList, lineBody: bodyKeys, bodyIds: bodyList }),
    )
    expect(text).toBe(lines.map((l, i) => `${l},${statusIds[i] ?? ''},${bodyIds[i] ?? ''}\n`).join(''))
  })

  it('moves every line whole into its place over a long batch (lines of every length, ids of every width, none)', () => {
    let seed = 7
    const next = (m: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % m)
    const lines = Array.from({ length: 3000 }, (_, i) => `${i},${'xé"✓'.repeat(next(60))}${String.fromCharCode(97 + next(26))}`)
    const statusList = Array.from({ length: 50 }, () => next(2 ** 30))
    const bodyList = Array.from({ length: 900 }, () => next(10 ** next(10)))
    const statusKeys = Int32Array.from(lines, () => next(51) - 1)
    const bodyKeys = Int32Array.from(lines, () => next(901) - 1)
    const { lineBytes, lineEnds } = lineBytesOf(lines)
    const text = new TextDecoder().decode(
      copyCsv({ lineBytes, lineEnds, lineStatus: statusKeys, statusIds: statusList, lineBody: bodyKeys, bodyIds: bodyList }),
    )
    const id = (keys: Int32Array, list: number[], i: number) => (keys[i]! < 0 ? '' : String(list[keys[i]!]))
    const whole = lines.map((l, i) => `${l},${id(statusKeys, statusList, i)},${id(bodyKeys, bodyList, i)}\n`)
    expect(text).toBe(whole.join(''))
    // In pieces, as a PostgreSQL server is sent them: whole lines each, about as long as asked, together the same text.
    const c = { lineBytes, lineEnds, lineStatus: statusKeys, statusIds: statusList, lineBody: bodyKeys, bodyIds: bodyList }
    for (const size of [1, 100, 4096, 10 ** 9]) {
      const pieces = [...copyPieces(c, size)].map((p) => new TextDecoder().decode(p))
      expect(pieces.join('')).toBe(text)
      expect(pieces.every((p) => p.endsWith('\n'))).toBe(true)
      const lineCounts = pieces.map((p) => p.split('\n').length - 1)
      if (size === 1) expect(lineCounts.every((n) => n === 1)).toBe(true)
      if (size === 10 ** 9) expect(pieces).toHaveLength(1)
      if (size === 4096) {
        expect(pieces.length).toBeGreaterThan(10)
        // A piece's line bytes stay within the size asked, unless it is one line on its own.
        for (const [k, p] of pieces.entries())
          if (lineCounts[k]! > 1) expect(Buffer.byteLength(p) - 3 * lineCounts[k]!).toBeLessThanOrEqual(4096 + 20 * lineCounts[k]!)
      }
    }
  })

  it('is empty for no lines', () => {
    const { lineBytes, lineEnds } = lineBytesOf([])
    const c = { lineBytes, lineEnds, lineStatus: new Int32Array(0), statusIds: [], lineBody: new Int32Array(0), bodyIds: [] }
    expect(copyCsv(c).length).toBe(0)
    expect([...copyPieces(c, 4096)]).toEqual([])
  })
})

/**
 * contract/message-fields.ts names each plain field's column; a migration adds it (SQL files
 * cannot read TypeScript). This holds the two together on both engines, so a field added to the
 * table without its migration fails here, not in the first sync.
 */
const engines = useEngines()
describe.each(ENGINES)('the plain fields of the messages table on %s', (engine) => {
  it('index_messages has a text column for each, and every column the sync writes', async () => {
    const db = await engines.open(engine)
    const r = await db.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'index_messages'`,
    )
    const types = new Map(r.rows.map((c) => [c.column_name, c.data_type]))
    for (const f of PLAIN_FIELDS) expect(types.get(f.column), f.column).toBe('text')
    for (const c of MESSAGE_COLUMNS) expect(types.has(c.name), c.name).toBe(true)
  })
})
