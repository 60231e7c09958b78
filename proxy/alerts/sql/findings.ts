import type { Queryable } from '../../db/types.ts'

/** What the callback watch reports (proxy/watch/ hands these to alerts.onWatchFinding). */
export interface WatchFinding {
  kind: 'callback.changed' | 'endpoint.failing' | 'endpoint.recovered' | 'cert.expiring'
  number?: string
  url?: string
  detail: string
  at: string | number | Date
}

/**
 * Keeps the latest finding per kind and subject; an endpoint's failures and recoveries share
 * one row ("endpoint") counting the run of each, the other set back to 0, so the rule reads
 * "N failures in a row" and "M good checks in a row" from it.
 */
export async function recordFinding(db: Queryable, f: WatchFinding, at: Date): Promise<void> {
  const subject = (f.url ?? f.number ?? 'all').slice(0, 2000)
  const detail = f.detail.slice(0, 500)
  if (f.kind === 'endpoint.failing' || f.kind === 'endpoint.recovered') {
    const bad = f.kind === 'endpoint.failing'
    await db.query(
      `INSERT INTO alert_findings AS x (kind, subject, number, detail, at, fails, goods) VALUES ('endpoint', $1, $2, $3, $4, $5, $6)
       ON CONFLICT (kind, subject) DO UPDATE SET number = COALESCE(excluded.number, x.number), at = excluded.at,
         detail = CASE WHEN $7 THEN excluded.detail ELSE x.detail END,
         fails = CASE WHEN $7 THEN x.fails + 1 ELSE 0 END,
         goods = CASE WHEN $7 THEN 0 ELSE x.goods + 1 END`,
      [subject, f.number ?? null, detail, at, bad ? 1 : 0, bad ? 0 : 1, bad],
    )
    return
  }
  await db.query(
    `INSERT INTO alert_findings (kind, subject, number, detail, at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (kind, subject) DO UPDATE SET number = excluded.number, detail = excluded.detail, at = excluded.at`,
    [f.kind, subject, f.number ?? null, detail, at],
  )
}
