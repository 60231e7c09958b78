import type { Queryable } from '../db/types.ts'
import { maskUrl } from './mask.ts'

/**
 * The history as the page shows it: the listings (the baseline, each gap) and the changes, newest
 * first, account-wide or for one number. Webhook and dlr values are masked (mask.ts).
 */

export interface ChangeView {
  id: string
  number: string
  kind: string
  from: string | null
  to: string | null
  windowStart: string
  windowEnd: string
}

export interface ListingView {
  id: string
  at: string
  ok: boolean
  baseline: boolean
  prevAt: string | null
  numbers: number | null
  changes: number | null
  error: string | null
}

const URL_KINDS = new Set(['webhook', 'dlr'])

export async function listChanges(
  db: Queryable,
  opts: { number?: string; limit: number },
): Promise<{ changes: ChangeView[]; listings: ListingView[] }> {
  const c = await db.query<{
    id: string
    number: string
    kind: string
    from_value: string | null
    to_value: string | null
    window_start: Date
    window_end: Date
  }>(
    `SELECT id::text AS id, number, kind, from_value, to_value, window_start, window_end FROM watch_changes
      WHERE ($1::text IS NULL OR number = $1) ORDER BY window_end DESC, id DESC LIMIT $2`,
    [opts.number ?? null, opts.limit],
  )
  // Gaps and the baseline always; successful listings that changed nothing only as the latest one.
  const l = await db.query<{
    id: string
    at: Date
    ok: boolean
    baseline: boolean
    prev_at: Date | null
    numbers: number | null
    changes: number | null
    error: string | null
  }>(
    `SELECT id::text AS id, at, ok, baseline, prev_at, numbers, changes, error FROM watch_listings
      WHERE NOT ok OR baseline OR id = (SELECT max(id) FROM watch_listings) ORDER BY at DESC, id DESC LIMIT $1`,
    [opts.limit],
  )
  const mask = (kind: string, v: string | null) => (v !== null && URL_KINDS.has(kind) ? maskUrl(v) : v)
  return {
    changes: c.rows.map((r) => ({
      id: r.id,
      number: r.number,
      kind: r.kind,
      from: mask(r.kind, r.from_value),
      to: mask(r.kind, r.to_value),
      windowStart: new Date(r.window_start).toISOString(),
      windowEnd: new Date(r.window_end).toISOString(),
    })),
    listings: l.rows.map((r) => ({
      id: r.id,
      at: new Date(r.at).toISOString(),
      ok: r.ok,
      baseline: r.baseline,
      prevAt: r.prev_at ? new Date(r.prev_at).toISOString() : null,
      numbers: r.numbers,
      changes: r.changes,
      error: r.error,
    })),
  }
}
