import { describe, expect, it } from 'vitest'
import { copyCsv } from './columns.ts'
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
