import type { StatsResult } from '../../api/index-api'
import { dayOf, type Zone } from '../../lib/dates'

export type Range = '30d' | '90d' | '1y' | 'all'
export const RANGES: ReadonlyArray<{ id: Range; label: string; days: number | null }> = [
  { id: '30d', label: '30 days', days: 30 },
  { id: '90d', label: '90 days', days: 90 },
  { id: '1y', label: 'A year', days: 365 },
  { id: 'all', label: 'All', days: null },
]

const DAY = 86_400_000
const dayString = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** The query span of a range, in whole days of the shown zone ending today there; "all" is unbounded and weekly. */
export function rangeSpan(range: Range, zone: Zone, now = Date.now()): { from: string; to: string; bucket: 'day' | 'week' } {
  const days = RANGES.find((r) => r.id === range)?.days ?? null
  // Day strings are stepped in UTC arithmetic (no DST there); only "today" depends on the zone.
  const today = Date.parse(`${dayOf(now, zone)}T00:00:00Z`)
  return { from: days === null ? '' : dayString(today - (days - 1) * DAY), to: dayString(today), bucket: days === null ? 'week' : 'day' }
}

export interface Series {
  days: string[]
  /** Seconds since the epoch (uPlot's x). */
  x: number[]
  inbound: number[]
  outbound: number[]
  failed: number[]
  /** Failed as a share of all messages that day, in percent; null on days with none. */
  failureRate: Array<number | null>
}

/** Buckets → aligned arrays; daily ranges get every day, empty days as zeros, so gaps read as quiet days. */
export function toSeries(stats: Pick<StatsResult, 'buckets' | 'bucket'>, span: { from: string; to: string }): Series {
  const byDay = new Map(stats.buckets.map((b) => [b.day, b]))
  let days: string[]
  if (stats.bucket === 'day' && span.from && span.to) {
    days = []
    for (let t = Date.parse(`${span.from}T00:00:00Z`), end = Date.parse(`${span.to}T00:00:00Z`); t <= end && days.length < 4000; t += DAY)
      days.push(dayString(t))
  } else days = stats.buckets.map((b) => b.day).sort()
  const s: Series = { days, x: [], inbound: [], outbound: [], failed: [], failureRate: [] }
  for (const d of days) {
    const b = byDay.get(d)
    const i = b?.inbound ?? 0
    const o = b?.outbound ?? 0
    const f = b?.failed ?? 0
    s.x.push(Date.parse(`${d}T00:00:00Z`) / 1000)
    s.inbound.push(i)
    s.outbound.push(o)
    s.failed.push(f)
    s.failureRate.push(i + o > 0 ? Math.round((f / (i + o)) * 1000) / 10 : null)
  }
  return s
}
