import type { Queryable } from '../db/types.ts'
import { keyOf, maskUrl } from './mask.ts'
import { downPeriods, type CheckRow } from './periods.ts'
import type { Failure, Outcome } from './types.ts'

/**
 * Every callback URL the last listing shows, with the numbers that use it, its latest check and
 * its up/down history; or one URL's checks (by its key).
 */

export interface CheckView {
  at: string
  outcome: Outcome
  failure: Failure | null
  detail: string
  status: number | null
  latencyMs: number | null
  tlsProtocol: string | null
  tlsValidTo: string | null
  tlsDays: number | null
}

export interface EndpointView {
  key: string
  url: string
  webhookOf: string[]
  dlrOf: string[]
  latest: CheckView | null
  /** Down periods, newest first: when each began and ended (null while it goes on). */
  down: Array<{ start: { earliest: string; latest: string }; end: { earliest: string; latest: string } | null }>
  checks?: CheckView[]
}

type CheckDbRow = {
  url: string
  at: Date
  outcome: Outcome
  failure: Failure | null
  detail: string
  status: number | null
  latency_ms: number | null
  tls_protocol: string | null
  tls_valid_to: Date | null
  tls_days: number | null
}

const toCheck = (r: CheckDbRow): CheckView => ({
  at: new Date(r.at).toISOString(),
  outcome: r.outcome,
  failure: r.failure,
  detail: r.detail,
  status: r.status,
  latencyMs: r.latency_ms,
  tlsProtocol: r.tls_protocol,
  tlsValidTo: r.tls_valid_to ? new Date(r.tls_valid_to).toISOString() : null,
  tlsDays: r.tls_days,
})

const COLUMNS = `url, at, outcome, failure, detail, status, latency_ms, tls_protocol, tls_valid_to, tls_days`

/** Checks kept per URL for its up/down periods (a year of 15-minute checks is 35,000: enough). */
const HISTORY_MAX = 5_000

export async function listEndpoints(db: Queryable, opts: { key?: string; checks?: number } = {}): Promise<EndpointView[]> {
  const state = await db.query<{ number: string; webhook: string; dlr: string }>(
    `SELECT number, webhook, dlr FROM watch_state ORDER BY number`,
  )
  const byUrl = new Map<string, { webhookOf: string[]; dlrOf: string[] }>()
  const slot = (u: string) => byUrl.get(u) ?? byUrl.set(u, { webhookOf: [], dlrOf: [] }).get(u)!
  for (const s of state.rows) {
    if (s.webhook) slot(s.webhook).webhookOf.push(s.number)
    if (s.dlr) slot(s.dlr).dlrOf.push(s.number)
  }
  let urls = [...byUrl.keys()].sort()
  if (opts.key) urls = urls.filter((u) => keyOf(u) === opts.key)
  if (urls.length === 0) return []
  const latest = await db.query<CheckDbRow>(
    `SELECT DISTINCT ON (url) ${COLUMNS} FROM watch_checks WHERE url = ANY($1::text[]) ORDER BY url, at DESC, id DESC`,
    [urls],
  )
  const latestBy = new Map(latest.rows.map((r) => [r.url, toCheck(r)]))
  const history = await db.query<CheckRow & { rn: number }>(
    `SELECT url, at, outcome FROM (
       SELECT url, at, outcome, id, row_number() OVER (PARTITION BY url ORDER BY at DESC, id DESC) AS rn FROM watch_checks WHERE url = ANY($1::text[])
     ) c WHERE rn <= ${HISTORY_MAX} ORDER BY url, at, id`,
    [urls],
  )
  const historyBy = new Map<string, CheckRow[]>()
  for (const h of history.rows) (historyBy.get(h.url) ?? historyBy.set(h.url, []).get(h.url)!).push(h)
  const out: EndpointView[] = []
  for (const url of urls) {
    const uses = byUrl.get(url)!
    out.push({
      key: keyOf(url),
      url: maskUrl(url),
      webhookOf: uses.webhookOf,
      dlrOf: uses.dlrOf,
      latest: latestBy.get(url) ?? null,
      down: downPeriods(historyBy.get(url) ?? []).reverse(),
    })
  }
  if (opts.key && opts.checks && out[0]) {
    const rows = await db.query<CheckDbRow>(`SELECT ${COLUMNS} FROM watch_checks WHERE url = $1 ORDER BY at DESC, id DESC LIMIT $2`, [
      urls[0],
      opts.checks,
    ])
    out[0].checks = rows.rows.map(toCheck)
  }
  return out
}
