import { describe, expect, it } from 'vitest'
import { PLAIN_FIELDS } from '../../contract/message-fields.ts'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { copyCsv, MESSAGE_COLUMNS } from './columns.ts'
import { lineBytesOf } from './sync/prepare.ts'

describe("COPY's data from a batch's line bytes", () => {
  it('is each line with its status id and body id, as the text join made it, whatever the characters', () => {
    // Lines as copyLine makes them: quoted fields may hold commas, line breaks and any script.
    const lines = ['1,"a,b"', '2,"line\nbreak"', '3,"מוכנה ✓ 👍"', '4,""', '5,x']
    const statusIds = [7, null, 0, 1234567890, 9]
    const bodyIds = [null, 42, 10, 0, 99999]
    const { lineBytes, lineEnds } = lineBytesOf(lines)
    const text = new TextDecoder().decode(copyCsv(lineBytes, lineEnds, statusIds, bodyIds))
    expect(text).toBe(lines.map((l, i) => `${l},${statusIds[i] ?? ''},${bodyIds[i] ?? ''}\n`).join(''))
  })

  it('is empty for no lines', () => {
    const { lineBytes, lineEnds } = lineBytesOf([])
    expect(copyCsv(lineBytes, lineEnds, [], []).length).toBe(0)
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
