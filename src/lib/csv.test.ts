import { describe, expect, it } from 'vitest'
import { csvCell, exportFileName, neutralise, toCsv, toJson } from './csv'

describe('csv escaping (RFC 4180)', () => {
  it('quotes commas, quotes and newlines and doubles embedded quotes', () => {
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell(null)).toBe('')
  })
  it('writes a BOM, CRLF rows and a header', () => {
    expect(toCsv(['a', 'b'], [['1', 'x,y']])).toBe('\uFEFFa,b\r\n1,"x,y"\r\n')
  })
  it('keeps unicode', () => {
    expect(toCsv(['body'], [['مرحبا 👍🏽']])).toContain('مرحبا 👍🏽')
  })
})

describe('formula injection (OWASP CSV injection)', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r'=1"],
    [' =1', "' =1"],
    ['=HYPERLINK("http://evil","x")', '\'=HYPERLINK("http://evil","x")'],
    ['＝1+1', "'＝1+1"],
    ['＋1+1', "'＋1+1"],
    ['－2+3', "'－2+3"],
    ['＠SUM(A1)', "'＠SUM(A1)"],
    ['\u3000＝1', "'\u3000＝1"],
  ])('neutralises %j', (input, expected) => {
    expect(neutralise(input)).toBe(expected)
  })
  it('neutralises a formula after an embedded newline', () => {
    expect(neutralise('hello\n=1+1')).toBe("hello\n'=1+1")
    expect(neutralise('a\r\n@x')).toBe("a\r\n'@x")
  })
  it('removes NUL', () => {
    expect(neutralise('nul\u0000byte')).toBe('nulbyte')
  })
  it('leaves phone numbers and plain numbers readable', () => {
    expect(neutralise('+15551234567')).toBe('+15551234567')
    expect(neutralise('18323232323')).toBe('18323232323')
    expect(neutralise('-42')).toBe('-42')
    expect(csvCell('+15551234567')).toBe('+15551234567')
  })
  it('leaves ordinary text alone', () => {
    expect(neutralise('Hello - world = fine')).toBe('Hello - world = fine')
  })
})

describe('toJson and file names', () => {
  it('maps rows to objects by header', () => {
    expect(JSON.parse(toJson(['a', 'b'], [['1', null]]))).toEqual([{ a: '1', b: null }])
  })
  it('names the file by content and date', () => {
    expect(exportFileName(['numbers', 'Toll-free'], 'csv', new Date('2026-11-21T10:00:00Z'))).toBe(
      'switchboard-numbers-toll-free-2026-11-21.csv',
    )
  })
})
