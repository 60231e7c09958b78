import type { Db } from '../db/types.ts'
import type { CheckResult } from './probe.ts'
import { isDown, type Outcome, type WatchFinding } from './types.ts'

/** Days before a certificate's expiry at which it is flagged (each once, as the check crosses it). */
export const CERT_THRESHOLDS = [30, 14, 7] as const

/**
 * Appends one check and says what it changed: an endpoint that went down or came back, a
 * certificate that crossed one of the thresholds. The previous check of the URL is read in the
 * same transaction, so two servers checking at once each compare with what is stored.
 */
export async function recordCheck(db: Db, r: CheckResult): Promise<WatchFinding[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`watch:${r.url}`])
    const prev = await tx.query<{ outcome: Outcome; tls_days: number | null }>(
      `SELECT outcome, tls_days FROM watch_checks WHERE url = $1 ORDER BY at DESC, id DESC LIMIT 1`,
      [r.url],
    )
    await tx.query(
      `INSERT INTO watch_checks (url, at, outcome, failure, detail, status, latency_ms, addresses, tls_protocol, tls_valid_to, tls_days, tls_error, location)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[], $9, $10, $11, $12, $13)`,
      [
        r.url,
        r.at,
        r.outcome,
        r.failure,
        r.detail,
        r.status,
        r.latencyMs,
        r.addresses,
        r.tls?.protocol ?? null,
        r.tls?.validTo ?? null,
        r.tls?.days ?? null,
        r.tls?.error ?? null,
        r.location,
      ],
    )
    const before = prev.rows[0]
    const at = r.at.toISOString()
    const out: WatchFinding[] = []
    if (isDown(r.outcome) && (!before || !isDown(before.outcome))) out.push({ kind: 'endpoint.failing', url: r.url, detail: r.detail, at })
    if (before && isDown(before.outcome) && (r.outcome === 'up' || r.outcome === 'client-error'))
      out.push({ kind: 'endpoint.recovered', url: r.url, detail: r.detail, at })
    const days = r.tls?.days
    if (days !== null && days !== undefined && days >= 0) {
      const crossed = CERT_THRESHOLDS.filter(
        (t) => days <= t && (before?.tls_days === null || before?.tls_days === undefined || before.tls_days > t),
      )
      const t = crossed.at(-1)
      if (t !== undefined)
        out.push({
          kind: 'cert.expiring',
          url: r.url,
          detail: `The TLS certificate expires in ${days} day${days === 1 ? '' : 's'} (on ${r.tls?.validTo?.toISOString().slice(0, 10)}): within ${t} days.`,
          at,
        })
    }
    return out
  })
}
