import { isDown, type Outcome } from './types.ts'

/**
 * The periods in which a number's callback was broken, from the listing history and the checks,
 * each bounded honestly: a change is known only to lie inside its window (between two listings),
 * a failure only between the last good check and the first failing one. `possible` is the widest
 * span the facts allow (what the messages at risk are chosen by); `certain` the span in which the
 * callback was surely broken.
 */

/** A moment known only to lie between two times (equal when it is exact). */
export interface Bound {
  earliest: string
  latest: string
}

export type RiskReason = 'missing' | 'invalid' | 'elsewhere' | 'failing'

export interface RiskPeriod {
  number: string
  /** Which callback: the webhook (inbound messages) or the dlr (delivery reports of outbound ones). */
  callback: 'webhook' | 'dlr'
  reason: RiskReason
  /** The URL in effect (as listed). */
  url: string
  /** When it began (null: before the history, i.e. at the baseline, which is then `startsAtBaseline`). */
  start: Bound
  /** When it ended; null while it goes on. */
  end: Bound | null
  /** For `elsewhere`: the URL before and after. */
  usual?: string
}

export interface ChangeRow extends Record<string, unknown> {
  number: string
  kind: string
  from_value: string | null
  to_value: string | null
  window_start: Date
  window_end: Date
}

export interface CheckRow extends Record<string, unknown> {
  url: string
  at: Date
  outcome: Outcome
}

const iso = (d: Date) => new Date(d).toISOString()

function validUrl(v: string): boolean {
  try {
    const u = new URL(v)
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== ''
  } catch {
    return false
  }
}

interface Segment {
  value: string
  start: Bound
  end: Bound | null
}

/** One callback's values of one number over time, from its baseline (or being added) to now (or being removed). */
export function segmentsOf(
  changes: readonly ChangeRow[],
  callback: 'webhook' | 'dlr',
  current: string | undefined,
  baselineAt: Date,
): Segment[] {
  const added = changes.find((c) => c.kind === 'added')
  const removed = [...changes].reverse().find((c) => c.kind === 'removed')
  const own = changes.filter((c) => c.kind === callback)
  const first = own[0]?.from_value ?? current
  if (first === undefined || first === null) return []
  const startBound: Bound = added
    ? { earliest: iso(added.window_start), latest: iso(added.window_end) }
    : { earliest: iso(baselineAt), latest: iso(baselineAt) }
  const out: Segment[] = []
  let value = first
  let start = startBound
  for (const c of own) {
    out.push({ value, start, end: { earliest: iso(c.window_start), latest: iso(c.window_end) } })
    value = c.to_value ?? ''
    start = { earliest: iso(c.window_start), latest: iso(c.window_end) }
  }
  out.push({ value, start, end: removed ? { earliest: iso(removed.window_start), latest: iso(removed.window_end) } : null })
  return out
}

/** The down periods of one URL from its checks (oldest first). */
export function downPeriods(checks: readonly CheckRow[]): Array<{ start: Bound; end: Bound | null }> {
  const out: Array<{ start: Bound; end: Bound | null }> = []
  let lastUp: Date | null = null
  let open: { start: Bound; lastDown: Date } | null = null
  for (const c of checks) {
    const down = isDown(c.outcome)
    // A check that did not contact the endpoint (private, invalid) says nothing either way.
    const up = c.outcome === 'up' || c.outcome === 'client-error'
    if (down) {
      if (!open) open = { start: { earliest: iso(lastUp ?? c.at), latest: iso(c.at) }, lastDown: c.at }
      else open.lastDown = c.at
    } else if (up) {
      if (open) out.push({ start: open.start, end: { earliest: iso(open.lastDown), latest: iso(c.at) } })
      open = null
      lastUp = c.at
    }
  }
  if (open) out.push({ start: open.start, end: null })
  return out
}

const later = (a: string, b: string) => (a > b ? a : b)
const earlier = (a: string, b: string) => (a < b ? a : b)

/**
 * The risk periods of one number. Inbound messages are lost while the webhook is missing, not a
 * web address, pointed somewhere other than where it pointed before and after, or failing;
 * delivery reports while the dlr is failing (a missing dlr is a choice, not an outage).
 */
export function riskPeriods(
  number: string,
  changes: readonly ChangeRow[],
  current: { webhook: string; dlr: string } | undefined,
  baselineAt: Date,
  checksByUrl: ReadonlyMap<string, readonly CheckRow[]>,
): RiskPeriod[] {
  const out: RiskPeriod[] = []
  for (const callback of ['webhook', 'dlr'] as const) {
    const segs = segmentsOf(changes, callback, current?.[callback], baselineAt)
    segs.forEach((s, i) => {
      const base = { number, callback, url: s.value, start: s.start, end: s.end }
      if (callback === 'webhook') {
        if (s.value === '') return out.push({ ...base, reason: 'missing' })
        if (!validUrl(s.value)) return out.push({ ...base, reason: 'invalid' })
        const before = segs[i - 1]?.value
        const after = segs[i + 1]?.value
        // Pointed away and back: elsewhere. A webhook pointed away twice to the same place reads
        // usual, away, usual, away, usual: the repaired stretch between the breaks has equal
        // neighbours too, so the value the history began with is taken as the usual one.
        if (before !== undefined && before === after && before !== s.value && s.value !== segs[0]?.value)
          return out.push({ ...base, reason: 'elsewhere', usual: before })
      }
      for (const d of downPeriods(checksByUrl.get(s.value) ?? [])) {
        // The overlap of "this URL was in effect" and "this URL was down", each at its widest.
        const startEarliest = later(s.start.earliest, d.start.earliest)
        const endLatest = s.end && d.end ? earlier(s.end.latest, d.end.latest) : (s.end?.latest ?? d.end?.latest ?? null)
        if (endLatest !== null && endLatest <= startEarliest) continue
        const start = s.start.earliest >= d.start.earliest ? s.start : d.start
        const end = s.end === null ? d.end : d.end === null ? s.end : s.end.latest <= d.end.latest ? s.end : d.end
        out.push({ ...base, reason: 'failing', start: { earliest: startEarliest, latest: start.latest }, end })
      }
      return undefined
    })
  }
  return out
}
