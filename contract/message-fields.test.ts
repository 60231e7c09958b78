import { describe, expect, it } from 'vitest'
import { MESSAGE_CSV_COLUMNS, messageCsvCells, type MessageCsvFields } from './message-csv.ts'
import { MESSAGE_LAYOUT, PLAIN_FIELDS, plainShape, plainValues, readPlain } from './message-fields.ts'

describe("the message fields' table", () => {
  it('names each plain field once by key, upstream key and column, and places each column once in the layout', () => {
    for (const name of ['key', 'upstream', 'column'] as const) {
      const names = PLAIN_FIELDS.map((f) => f[name])
      expect(new Set(names).size, name).toBe(names.length)
    }
    expect(new Set(MESSAGE_LAYOUT).size).toBe(MESSAGE_LAYOUT.length)
    for (const f of PLAIN_FIELDS)
      expect(
        MESSAGE_LAYOUT.filter((c) => c === f.column),
        f.column,
      ).toHaveLength(1)
    // Today's layout, pinned: the files people already open in spreadsheets keep their columns.
    expect([...MESSAGE_CSV_COLUMNS]).toEqual([
      'number', 'ordinal', 'position', 'date_utc', 'date_local', 'party', 'direction', 'body', 'mms', 'media_url',
      'status', 'status_raw', 'status_code', 'message_id', 'system_id', 'tid', 'message_tid',
    ]) // prettier-ignore
  })

  it("reads each field's value from an upstream record as the index and the page both read it", () => {
    const field = (key: string) => PLAIN_FIELDS.find((f) => f.key === key)!
    // An id: a number written out, a string trimmed, blank is none.
    expect(readPlain(field('systemId'), 200000000123)).toBe('200000000123')
    expect(readPlain(field('messageId'), '  ab12 ')).toBe('ab12')
    expect(readPlain(field('messageId'), '   ')).toBeNull()
    expect(readPlain(field('messageId'), Number.NaN)).toBeNull()
    // Text: any scalar as text, NUL taken out (PostgreSQL cannot store it), missing is none.
    expect(readPlain(field('direction'), 'in\u0000bound')).toBe('inbound')
    expect(readPlain(field('direction'), 7)).toBe('7')
    expect(readPlain(field('direction'), undefined)).toBeNull()
    expect(readPlain(field('direction'), '')).toBe('')
    // Optional text: an empty media URL is no media URL.
    expect(readPlain(field('mediaUrl'), '')).toBeNull()
    expect(readPlain(field('mediaUrl'), 'https://cdn.example/a.png')).toBe('https://cdn.example/a.png')
  })

  it('gives a value and a schema entry for every plain field, and writes each in its column of the CSV', () => {
    const values = plainValues((f) => `v-${f.column}`)
    expect(Object.keys(values).sort()).toEqual(PLAIN_FIELDS.map((f) => f.key).sort())
    expect(Object.keys(plainShape('upstream', 1)).sort()).toEqual(PLAIN_FIELDS.map((f) => f.upstream).sort())
    const m: MessageCsvFields = {
      ...values,
      number: '18323232323',
      ordinal: 5,
      position: 1,
      dateUtc: '2026-12-03T08:00:00Z',
      dateLocal: '2026-12-03 08:00:00',
      party: '13105551234',
      body: 'hi',
      mms: false,
      status: '200',
      statusCode: 200,
      tid: 'T1',
      messageTid: 'T2',
    }
    const cells = messageCsvCells(m)
    expect(cells).toHaveLength(MESSAGE_LAYOUT.length)
    for (const f of PLAIN_FIELDS) expect(cells[MESSAGE_LAYOUT.indexOf(f.column)]).toBe(`v-${f.column}`)
    expect(cells[MESSAGE_LAYOUT.indexOf('status')]).toBe('success')
    expect(cells[MESSAGE_LAYOUT.indexOf('tid')]).toBe('T1')
  })
})
