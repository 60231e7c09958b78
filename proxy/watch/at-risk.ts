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
  for (const [i, p] of periods.entries()) {
    const direction = p.callback === 'webhook' ? 'inbound' : 'outbound'
    const params = [p.number, direction, p.start.earliest, p.end?.latest ?? opts.now.toISOString()]
    // Strictly inside the widest span: a message at a listing's or a check's own moment was seen on the good side of it.
    const where = `number = $1 AND direction = $2 AND date > $3::timestamptz AND date < $4::timestamptz`
    const count = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM index_messages WHERE ${where}`, params)
    const n = count.rows[0]?.n ?? 0
    out.periods.push({ ...p, count: n })
    if (n === 0) continue
    out.counts[p.number] = (out.counts[p.number] ?? 0) + n
    const room = opts.limit - out.messages.length
    if (room <= 0) {
      out.truncated = true
      continue
    }
    const rows = await db.query<{ ordinal: number; date: Date; party_digits: string; direction: string }>(
      `SELECT ordinal, date, party_digits, direction FROM index_messages WHERE ${where} ORDER BY date DESC, ordinal DESC LIMIT ${room}`,
      params,
    )
    if (n > rows.rows.length) out.truncated = true
    for (const r of rows.rows)
      out.messages.push({
        number: p.number,
        ordinal: r.ordinal,
        date: new Date(r.date).toISOString(),
        party: r.party_digits,
        direction: r.direction,
        period: i,
      })
  }
  // Periods with nothing at risk are shown too: a broken callback that lost nothing is still worth seeing.
  return out
}
