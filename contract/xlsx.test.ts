import { constants, deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { cellOf, columnLetters, toXlsx, xlsxWriter, XLSX_CELL_MAX } from './xlsx.ts'
import { readXlsx, serialToIso } from './test-xlsx.ts'

describe('xlsx writer', () => {
  it('writes a package with a frozen header, text ids, number and date cells', () => {
    const file = toXlsx(
      'History 18323232323',
      ['system_id', 'party', 'ordinal', 'date_utc', 'day', 'body'],
      [
        ['123456789012', '+18323232323', 7, '2026-11-21T14:05:09.250Z', '2026-11-21', 'hello & <b>'],
        ['000123', '18005550100', 8, '2026-11-21 09:00:00', null, ''],
      ],
    )
    const s = readXlsx(file)
    expect(s.parts).toEqual(
      expect.arrayContaining([
        '[Content_Types].xml',
        '_rels/.rels',
        'xl/workbook.xml',
        'xl/_rels/workbook.xml.rels',
        'xl/styles.xml',
        'xl/worksheets/sheet1.xml',
      ]),
    )
    expect(s.frozenHeader).toBe(true)
    expect(s.rows).toHaveLength(3)
    expect(s.rows[0]!.map((c) => [c.kind, c.value])).toEqual(
      ['system_id', 'party', 'ordinal', 'date_utc', 'day', 'body'].map((h) => ['string', h]),
    )
    const [id, party, ordinal, date, day, body] = s.rows[1]!
    expect([id!.kind, id!.value]).toEqual(['string', '123456789012'])
    expect([party!.kind, party!.value]).toEqual(['string', '+18323232323'])
    expect([ordinal!.kind, ordinal!.value]).toEqual(['number', '7'])
    expect(date!.kind).toBe('date')
    expect(s.formats[date!.style]).toBe('yyyy-mm-dd hh:mm:ss')
    expect(serialToIso(date!.value)).toBe('2026-11-21T14:05:09.250Z')
    expect([day!.kind, s.formats[day!.style], serialToIso(day!.value)]).toEqual(['date', 'yyyy-mm-dd', '2026-11-21T00:00:00.000Z'])
    expect([body!.kind, body!.value]).toEqual(['string', 'hello & <b>'])
    // Leading zeros survive; an empty value is no cell at all.
    expect(s.rows[2]!.map((c) => c.ref)).toEqual(['A3', 'B3', 'C3', 'D3'])
    expect(s.rows[2]![0]!.value).toBe('000123')
    expect(serialToIso(s.rows[2]![3]!.value)).toBe('2026-11-21T09:00:00.000Z')
  })

  it('guards formulas as the CSV does: string cells, never <f>, with the apostrophe', () => {
    const bodies = ['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\tx', '\rx', 'ok\n=1+1', '＝1+1', '-5', '+15551234567']
    const s = readXlsx(
      toXlsx(
        't',
        ['body'],
        bodies.map((b) => [b]),
      ),
    )
    const cells = s.rows.slice(1).map((r) => r[0]!)
    expect(cells.every((c) => c.kind === 'string')).toBe(true)
    expect(cells.map((c) => c.value)).toEqual([
      `'=HYPERLINK("http://x","y")`,
      "'+1+1",
      "'-2+3",
      "'@SUM(A1)",
      "'\tx",
      "'\rx",
      "ok\n'=1+1",
      "'＝1+1",
      '-5',
      '+15551234567',
    ])
  })

  it('keeps XML well formed: control characters dropped, Excel escapes escaped, long text cut', () => {
    const long = 'a'.repeat(XLSX_CELL_MAX - 1) + '😀'
    const s = readXlsx(toXlsx('t', ['x'], [['a\u0000b\u0007c\uD800d'], ['_x000D_ stays'], [long]]))
    expect(s.rows[1]![0]!.value).toBe('abcd')
    expect(s.rows[2]![0]!.value).toBe('_x005F_x000D_ stays')
    expect(s.rows[3]![0]!.value).toBe('a'.repeat(XLSX_CELL_MAX - 1))
  })

  it('reads as text what is not a real date', () => {
    expect(cellOf('2026-02-31')).toBe('2026-02-31')
    expect(cellOf('2026-11-21 24:10:00')).toBe('2026-11-21 24:10:00')
    expect(cellOf('1200 [Possible status]')).toBe('1200 [Possible status]')
    expect(cellOf(12345678901234)).toBe(12345678901234)
    expect(cellOf(true)).toBe('yes')
  })

  it('goes on in another sheet, with the header again, past the row limit', () => {
    const chunks: Uint8Array[] = []
    const w = xlsxWriter({ sheet: 'History of 18323232323 and more', columns: [{ name: 'n' }], maxRows: 3 }, (c) => chunks.push(c))
    for (let i = 1; i <= 7; i++) w.row([i])
    w.end()
    const file = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
    chunks.reduce((at, c) => (file.set(c, at), at + c.length), 0)
    expect(readXlsx(file).sheetNames).toEqual([
      'History of 18323232323 and more',
      'History of 18323232323 and (2)',
      'History of 18323232323 and (3)',
    ])
    const values = [1, 2, 3].map((k) => readXlsx(file, k).rows.map((r) => r.map((c) => c.value).join()))
    expect(values).toEqual([
      ['n', '1', '2', '3'],
      ['n', '4', '5', '6'],
      ['n', '7'],
    ])
  })

  it('takes another raw deflate (the server passes zlib): chunks joined by sync flushes read back as one sheet', () => {
    const chunks: Uint8Array[] = []
    const deflate = (chunk: Uint8Array, final: boolean) =>
      deflateRawSync(chunk, { level: 1, finishFlush: final ? constants.Z_FINISH : constants.Z_SYNC_FLUSH })
    const w = xlsxWriter({ sheet: 's', columns: [{ name: 'id' }, { name: 'body' }], deflate }, (c) => chunks.push(c))
    for (let i = 0; i < 5000; i++) {
      w.row([String(200000000000 + i), `=cmd ${i}`])
      if (i % 700 === 0) w.flush()
    }
    w.end()
    const sheet = readXlsx(Buffer.concat(chunks))
    expect(sheet.rows).toHaveLength(5001)
    expect(sheet.rows[5000]!.map((c) => [c.kind, c.value])).toEqual([
      ['string', '200000004999'],
      ['string', "'=cmd 4999"],
    ])
  })

  it('names columns past Z', () => {
    expect([0, 25, 26, 27, 701, 702].map(columnLetters)).toEqual(['A', 'Z', 'AA', 'AB', 'ZZ', 'AAA'])
  })

  it('streams: each flush hands compressed bytes on, and what is held stays small', () => {
    let emitted = 0
    const w = xlsxWriter({ sheet: 'big', columns: [{ name: 'id' }, { name: 'body' }], level: 1 }, (c) => (emitted += c.length))
    const afterBatch: number[] = []
    for (let b = 0; b < 20; b++) {
      for (let i = 0; i < 1000; i++) w.row([`${b}-${i}`, `message ${Math.sin(b * 1000 + i)}`])
      w.flush()
      afterBatch.push(emitted)
    }
    w.end()
    // Bytes go out as the rows come, not all at the end.
    expect(afterBatch[4]!).toBeGreaterThan(0)
    expect(afterBatch[19]!).toBeGreaterThan(afterBatch[9]!)
  })
})
