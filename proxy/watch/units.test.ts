import { describe, expect, it } from 'vitest'
import { parseWatchConfig } from './config.ts'
import { diffStates, readListing, toStates } from './listing.ts'
import { maskUrl } from './mask.ts'
import { downPeriods, riskPeriods, type ChangeRow, type CheckRow } from './periods.ts'

const at = (m: number) => new Date(Date.parse('2026-03-02T14:00:00Z') + m * 60_000)

describe('the watch configuration', () => {
  it('has defaults of 300 s between listings and 900 s between checks', () => {
    expect(parseWatchConfig({}).config).toMatchObject({ intervalS: 300, probeIntervalS: 900, allowedHosts: [] })
  })
  it('names the variable of every problem at once', () => {
    const r = parseWatchConfig({ WATCH_INTERVAL: 'soon', PROBE_INTERVAL: '5', WATCH_ALLOWED_HOSTS: 'ok.lan,http://bad/' })
    expect(r.config).toBeNull()
    expect(r.issues).toHaveLength(3)
    expect(r.issues[0]).toMatch(/^WATCH_INTERVAL must be a whole number/)
    expect(r.issues[1]).toMatch(/^PROBE_INTERVAL must be 0 \(off\) or between 60/)
    expect(r.issues[2]).toMatch(/^WATCH_ALLOWED_HOSTS: "http:\/\/bad\/" is not a host name/)
  })
  it('takes allowed hosts as name or name:port, lower-cased', () => {
    expect(parseWatchConfig({ WATCH_ALLOWED_HOSTS: 'Hooks.LAN, 127.0.0.1:8443' }).config?.allowedHosts).toEqual([
      'hooks.lan',
      '127.0.0.1:8443',
    ])
  })
})

describe('a listing read and compared', () => {
  it('reads numbers and tids tolerantly and skips what it cannot read', () => {
    expect(
      readListing({ data: [{ number: '+1 (555) 000-1111', tid: 42, type: 'local', webhook: null }, { number: 'x', tid: 'T' }, null] }),
    ).toEqual([{ number: '15550001111', tid: '42', type: 'local', webhook: '', dlr: '' }])
    expect(readListing({ success: '0' })).toBeNull()
  })
  it('says what changed, number by number', () => {
    const e = (number: string, tid: string, webhook: string) => ({ number, tid, type: 'local', webhook, dlr: 'https://d.example/' })
    const before = toStates([e('15550000001', 'A', 'https://a.example/'), e('15550000002', 'B', 'https://b.example/')])
    const after = toStates([e('15550000001', 'A2', 'https://z.example/'), e('15550000003', 'C', ''), e('15550000003', 'C2', '')])
    expect(diffStates(before, after)).toEqual([
      { number: '15550000001', kind: 'webhook', from: 'https://a.example/', to: 'https://z.example/' },
      { number: '15550000001', kind: 'tid', from: 'A', to: 'A2' },
      { number: '15550000003', kind: 'added', from: null, to: 'C2' },
      { number: '15550000003', kind: 'listed-twice', from: null, to: 'C C2' },
      { number: '15550000002', kind: 'removed', from: 'B', to: null },
    ])
  })
})

describe('masking', () => {
  it('masks query values, passwords and fragments, and keeps the rest', () => {
    expect(maskUrl('https://u:p@hooks.example/in?token=abc&x=1#frag')).toBe('https://u:•••@hooks.example/in?token=•••&x=•••#•••')
    expect(maskUrl('https://hooks.example/in')).toBe('https://hooks.example/in')
    expect(maskUrl('not a url')).toBe('not a url')
  })
})

describe('risk periods', () => {
  const check = (url: string, m: number, outcome: CheckRow['outcome']): CheckRow => ({ url, at: at(m), outcome })
  it('bounds a failure by the last good check before and the first good one after', () => {
    const u = 'https://a.example/'
    const d = downPeriods([
      check(u, 0, 'up'),
      check(u, 15, 'failing'),
      check(u, 30, 'redirect'),
      check(u, 45, 'up'),
      check(u, 60, 'failing'),
    ])
    expect(d).toEqual([
      {
        start: { earliest: at(0).toISOString(), latest: at(15).toISOString() },
        end: { earliest: at(30).toISOString(), latest: at(45).toISOString() },
      },
      { start: { earliest: at(45).toISOString(), latest: at(60).toISOString() }, end: null },
    ])
  })
  it('puts outbound messages at risk only while the dlr endpoint fails, and a missing webhook from the start', () => {
    const checks = new Map([['https://d.example/', [check('https://d.example/', 10, 'up'), check('https://d.example/', 20, 'failing')]]])
    const changes: ChangeRow[] = []
    const p = riskPeriods('15550000001', changes, { webhook: '', dlr: 'https://d.example/' }, at(0), checks)
    expect(p.map((x) => [x.callback, x.reason, x.start.earliest])).toEqual([
      ['webhook', 'missing', at(0).toISOString()],
      ['dlr', 'failing', at(10).toISOString()],
    ])
  })
  it('takes a webhook pointed away twice to the same place as two breaks, not the repaired stretch between them', () => {
    const usual = 'https://hooks.example/in'
    const away = 'https://elsewhere.example/in'
    const change = (m: number, from: string, to: string): ChangeRow => ({
      number: '15550000001',
      kind: 'webhook',
      from_value: from,
      to_value: to,
      window_start: at(m),
      window_end: at(m + 5),
    })
    const changes = [change(10, usual, away), change(20, away, usual), change(100, usual, away), change(110, away, usual)]
    const p = riskPeriods('15550000001', changes, { webhook: usual, dlr: '' }, at(0), new Map())
    expect(p.map((x) => [x.reason, x.url, x.start.earliest, x.end?.latest])).toEqual([
      ['elsewhere', away, at(10).toISOString(), at(25).toISOString()],
      ['elsewhere', away, at(100).toISOString(), at(115).toISOString()],
    ])
  })
})
