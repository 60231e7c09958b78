import type { Queryable } from '../db/types.ts'
import { riskPeriods, type ChangeRow, type CheckRow, type RiskPeriod } from './periods.ts'

/**
 * Messages at risk: the inbound messages that arrived on a number while its webhook was broken
 * (periods.ts), and the outbound ones sent while its dlr endpoint was failing. The periods come
 * from the watch's own history; the messages from the index (index_messages: number, ordinal,
 * date, party_digits, direction), through its (number, date) index, one period at a time.
 */

export interface AtRiskMessage {
  number: string
  ordinal: number
  date: string
  party: string
  direction: string
  /** Index into `periods`: why this message is at risk. */
  period: number
}

export interface AtRisk {
  periods: Array<RiskPeriod & { count: number }>
  messages: AtRiskMessage[]
  /** Messages at risk per number (all of them, not only those listed). */
  counts: Record<string, number>
  /** True when more messages are at risk than listed. */
  truncated: boolean
  /** When the history began (the baseline listing); null before any listing. */
  since: string | null
}

export async function messagesAtRisk(db: Queryable, opts: { number?: string; limit: number; now: Date }): Promise<AtRisk> {
  const baseline = await db.query<{ at: Date }>(`SELECT at FROM watch_listings WHERE baseline ORDER BY at LIMIT 1`)
  const baselineAt = baseline.rows[0]?.at
  if (!baselineAt) return { periods: [], messages: [], counts: {}, truncated: false, since: null }
  const one = opts.number ? [opts.number] : null
  const changes = await db.query<ChangeRow>(
    `SELECT number, kind, from_value, to_value, window_start, window_end FROM watch_changes
      WHERE ($1::text[] IS NULL OR number = ANY($1::text[])) ORDER BY number, window_end, id`,
    [one],
  )
  const state = await db.query<{ number: string; webhook: string; dlr: string }>(
    `SELECT number, webhook, dlr FROM watch_state WHERE ($1::text[] IS NULL OR number = ANY($1::text[]))`,
    [one],
  )
  const checks = await db.query<CheckRow>(
    `SELECT url, at, outcome FROM watch_checks WHERE outcome IN ('up', 'client-error', 'failing', 'redirect') ORDER BY url, at, id`,
  )
  const byUrl = new Map<string, CheckRow[]>()
  for (const c of checks.rows) (byUrl.get(c.url) ?? byUrl.set(c.url, []).get(c.url)!).push(c)
  const byNumber = new Map<string, ChangeRow[]>()
  for (const c of changes.rows) (byNumber.get(c.number) ?? byNumber.set(c.number, []).get(c.number)!).push(c)
  const current = new Map(state.rows.map((s) => [s.number, s]))
  const numbers = new Set([...byNumber.keys(), ...current.keys()])
  const periods: RiskPeriod[] = []
  for (const n of [...numbers].sort()) periods.push(...riskPeriods(n, byNumber.get(n) ?? [], current.get(n), new Date(baselineAt), byUrl))

  const out: AtRisk = { periods: [], messages: [], counts: {}, truncated: false, since: new Date(baselineAt).toISOString() }
  if (periods.length === 0) return out
  // Every period in one statement (a 10,000-number account may have hundreds): each is counted and
  // read through the (number, date) index, strictly inside its widest span (a message at a
  // listing's or a check's own moment was seen on the good side of it).
  const spans = [
    periods.map((p) => p.number),
    periods.map((p) => (p.callback === 'webhook' ? 'inbound' : 'outbound')),
    periods.map((p) => p.start.earliest),
    periods.map((p) => p.end?.latest ?? opts.now.toISOString()),
  ]
  const PERIODS = `unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS p(number, dir, s, e, i)`
  const IN_PERIOD = `m.number = p.number AND m.direction = p.dir AND m.date > p.s AND m.date < p.e`
  const counts = await db.query<{ i: number; n: number }>(
    `SELECT p.i::int AS i, (SELECT count(*)::int FROM index_messages m WHERE ${IN_PERIOD}) AS n FROM ${PERIODS}`,
    spans,
  )
  const countOf = new Map(counts.rows.map((r) => [Number(r.i) - 1, r.n]))
  let total = 0
  for (const [i, p] of periods.entries()) {
    const n = countOf.get(i) ?? 0
    out.periods.push({ ...p, count: n })
    total += n
    if (n > 0) out.counts[p.number] = (out.counts[p.number] ?? 0) + n
  }
  if (total === 0) return out
  const rows = await db.query<{ i: number; number: string; ordinal: number; date: Date; party_digits: string; direction: string }>(
    `SELECT x.* FROM ${PERIODS}, LATERAL (
       SELECT p.i::int AS i, m.number, m.ordinal, m.date, m.party_digits, m.direction FROM index_messages m
        WHERE ${IN_PERIOD} ORDER BY m.date DESC, m.ordinal DESC LIMIT $5
     ) x ORDER BY x.date DESC, x.number, x.ordinal DESC LIMIT $5`,
    [...spans, opts.limit],
  )
  out.truncated = total > rows.rows.length
  for (const r of rows.rows)
    out.messages.push({
      number: r.number,
      ordinal: r.ordinal,
      date: new Date(r.date).toISOString(),
      party: r.party_digits,
      direction: r.direction,
      period: Number(r.i) - 1,
    })
  // Periods with nothing at risk are shown too: a broken callback that lost nothing is still worth seeing.
  return out
}
