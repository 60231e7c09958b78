import { describe, expect, it } from 'vitest'
import type { OwnedNumber } from '../../api/numbers'
import { exportTable, sortRows } from '../../components/data-table/features'
import { AUDIT_KEYS, auditLabel, auditNumbers, listedTwiceText } from './audit'
import { COLUMN_IDS_ALL, COLUMNS_ALL } from './columns'
import { filterRows, numberRowId, searchText, toNumberRows, type NumberRow } from './number-rows'

const W = 'https://hooks.example.com/in'
const D = 'https://hooks.example.com/dlr'
const owned = (number: string, tid: string, webhook: string | null, dlr: string | null): OwnedNumber => ({
  number,
  tid,
  type: 'local',
  country: 'US',
  webhook,
  dlr,
})
const data = [
  owned('18323232320', 'T0', W, D),
  owned('18323232321', 'T1', W, D),
  owned('+18323232322', 'T2', W, null),
  owned('18323232320', 'T9', W, D),
]
const status = (number: string, indexed: number, newestDate: string | null) => ({
  number,
  tid: '',
  state: 'done',
  indexed,
  upstreamTotal: indexed,
  newestDate,
  oldestDate: null,
  lastSyncedAt: null,
  error: null,
  progress: null,
})

const idOf = (r: NumberRow) => numberRowId(r.owned)

describe('numbers rows', () => {
  const audit = auditNumbers(data, numberRowId)
  const facts = new Map([status('18323232322', 1234, '2024-05-06T07:08:09Z'), status('18323232321', 0, null)].map((n) => [n.number, n]))

  it('carry nothing but the number before the audit and without an index', () => {
    const rows = toNumberRows(data, null, new Map())
    expect(rows.map((r) => numberRowId(r.owned))).toEqual(['18323232320:T0', '18323232321:T1', '+18323232322:T2', '18323232320:T9'])
    expect(rows.every((r) => r.findings === undefined && r.index === undefined)).toBe(true)
    expect(rows[0]!.owned).toBe(data[0])
  })

  it('carry their findings by row id, and what the index holds by number (a leading + or not)', () => {
    const rows = toNumberRows(data, audit.findingsById, facts)
    expect(rows[2]!.findings).toEqual(['dlr.missing'])
    expect(rows[1]!.findings).toEqual([])
    expect(rows[2]!.index?.indexed).toBe(1234)
    expect(rows[1]!.index?.indexed).toBe(0)
    expect(rows[0]!.index).toBeUndefined()
  })

  it('filter by text, digits in any formatting, and audit class', () => {
    const rows = toNumberRows(data, audit.findingsById, facts)
    const texts = data.map(searchText)
    expect(filterRows(rows, '', [], null)).toBe(rows)
    expect(filterRows(rows, '(832) 323-2321', [], texts).map(idOf)).toEqual(['18323232321:T1'])
    expect(filterRows(rows, 't9', [], texts).map(idOf)).toEqual(['18323232320:T9'])
    // Without the texts built yet, the same answer.
    expect(filterRows(rows, 't9', [], null).map(idOf)).toEqual(['18323232320:T9'])
    expect(filterRows(rows, '', ['problem'], texts).map(idOf)).toEqual(['+18323232322:T2'])
    expect(filterRows(rows, '', ['none'], texts).map(idOf)).toEqual(['18323232321:T1'])
    // Several chips pressed: the rows that match any of them.
    expect(filterRows(rows, '', ['problem', 'none'], texts).map(idOf)).toEqual(['18323232321:T1', '+18323232322:T2'])
    expect(filterRows(rows, '', ['problem', 'look'], texts).map(idOf)).toEqual(['18323232320:T0', '+18323232322:T2', '18323232320:T9'])
    // Not audited yet: no row passes an audit filter.
    expect(filterRows(toNumberRows(data, null, facts), '', ['none'], texts)).toEqual([])
  })

  it('two letters that are a country of the listing find that country alone, not text containing them', () => {
    const mixed = [
      { ...owned('15147901725', 'CASJKL1', W, D), country: 'CA' },
      { ...owned('18323232321', 'USCAXYZ', W, D), country: 'US' },
      { ...owned('14165550100', 'T3', W, D), country: 'CA' },
    ]
    const rows = toNumberRows(mixed, null, new Map())
    const texts = mixed.map(searchText)
    expect(filterRows(rows, 'CA', [], texts).map(idOf)).toEqual(['15147901725:CASJKL1', '14165550100:T3'])
    expect(filterRows(rows, 'us', [], texts).map(idOf)).toEqual(['18323232321:USCAXYZ'])
    // Not a country of the listing: text as before ("Local" holds "lo").
    expect(filterRows(rows, 'lo', [], texts)).toHaveLength(3)
  })

  it('a number listed twice, under two tids, is a finding on both rows, naming both tids', () => {
    const rows = toNumberRows(data, audit.findingsById, facts, audit.tidsByNumber)
    expect(rows[0]!.findings).toEqual(['number.listed_twice'])
    expect(rows[3]!.findings).toEqual(['number.listed_twice'])
    expect(rows[0]!.listedWith).toEqual(['T0', 'T9'])
    expect(rows[3]!.listedWith).toEqual(['T0', 'T9'])
    expect(rows[1]!.listedWith).toBeUndefined()
    expect(listedTwiceText(rows[0]!.listedWith!)).toBe('Listed twice, with tids T0 and T9')
    // A leading + names the same number.
    const plus = auditNumbers([...data, owned('18323232321', 'T5', W, D)].concat(owned('+18323232321', 'T6', W, D)), numberRowId)
    expect(plus.tidsByNumber.get('18323232321')).toEqual(['T1', 'T5', 'T6'])
    expect(listedTwiceText(['T1', 'T5', 'T6'])).toBe('Listed 3 times, with tids T1, T5 and T6')
  })

  it('sort and export through the columns, from the row alone', () => {
    const rows = toNumberRows(data, audit.findingsById, facts)
    expect(sortRows(rows, [{ id: 'messages', desc: true }], COLUMNS_ALL).map(idOf)).toEqual([
      '+18323232322:T2',
      '18323232321:T1',
      '18323232320:T0',
      '18323232320:T9',
    ])
    expect(sortRows(rows, [{ id: 'audit', desc: true }], COLUMNS_ALL)[0]!.owned.tid).toBe('T2')
  })

  it('export one cell per kind of finding, each headed by its kind', () => {
    const rows = toNumberRows(data, audit.findingsById, facts, audit.tidsByNumber)
    const out = exportTable(COLUMNS_ALL, COLUMN_IDS_ALL, rows)
    const kinds = AUDIT_KEYS.map((k) => `Audit: ${auditLabel(k)}`)
    expect(out.header).toEqual(['Number', 'Type', 'Country', 'tid', 'Webhook', 'DLR', ...kinds, 'Messages', 'Last activity (UTC)'])
    expect(out.header).toContain('Audit: dlr: Missing')
    expect(out.header).toContain('Audit: number: Listed twice')
    const cell = (row: number, header: string) => out.rows[row]![out.header.indexOf(header)]
    for (const r of out.rows) expect(r).toHaveLength(out.header.length)
    expect(cell(2, 'Audit: dlr: Missing')).toBe('Problem')
    expect(cell(2, 'Audit: webhook: Missing')).toBe('')
    expect(cell(2, 'Messages')).toBe('1234')
    expect(cell(0, 'Audit: number: Listed twice')).toBe('Worth a look: tids T0 and T9')
    expect(cell(3, 'Audit: number: Listed twice')).toBe('Worth a look: tids T0 and T9')
    expect(cell(1, 'Audit: number: Listed twice')).toBe('')
    // Before the audit has run, no cell looks clean.
    const early = exportTable(COLUMNS_ALL, COLUMN_IDS_ALL, toNumberRows(data, null, facts))
    expect(early.rows[0]![early.header.indexOf('Audit: dlr: Missing')]).toBe('not checked')
  })
})

describe('the numbers search over callback URLs', () => {
  it('finds an IP address fragment in a URL, not only its digits run together', () => {
    const rows = toNumberRows(
      [
        owned('15550000001', 'A', 'https://192.168.1.20/in', null),
        owned('15550000002', 'B', W, 'https://10.0.0.5/dlr'),
        owned('15550000003', 'C', W, D),
      ],
      null,
      new Map(),
    )
    const found = (q: string) => filterRows(rows, q, [], null).map((r) => r.owned.tid)
    expect(found('192.168')).toEqual(['A'])
    expect(found('10.0.0.5')).toEqual(['B'])
    expect(found('printer')).toEqual([])
  })
})
