import { describe, expect, it } from 'vitest'
import { rangeSpan, toSeries } from './series'

describe('charts series', () => {
  it('spans whole days of the shown zone ending today there', () => {
    const now = Date.UTC(2026, 10, 21, 15)
    expect(rangeSpan('30d', 'utc', now)).toEqual({ from: '2026-10-23', to: '2026-11-21', bucket: 'day' })
    expect(rangeSpan('all', 'utc', now)).toEqual({ from: '', to: '2026-11-21', bucket: 'week' })
    // Late in the local evening the local "today" is the local date, whatever the UTC date.
    const late = new Date(2026, 10, 21, 23, 30).getTime()
    expect(rangeSpan('30d', 'local', late)).toEqual({ from: '2026-10-23', to: '2026-11-21', bucket: 'day' })
  })
  it('fills quiet days with zeros and computes the failure rate', () => {
    const s = toSeries(
      { bucket: 'day', buckets: [{ day: '2026-01-02', inbound: 3, outbound: 1, failed: 1 }] },
      { from: '2026-01-01', to: '2026-01-03' },
    )
    expect(s.days).toEqual(['2026-01-01', '2026-01-02', '2026-01-03'])
    expect(s.inbound).toEqual([0, 3, 0])
    expect(s.failureRate).toEqual([null, 25, null])
  })
})
