import type { Db, Queryable } from '../db/types.ts'
import { diffStates, toStates } from './listing.ts'
import type { Change, ListedEntry, NumberState } from './types.ts'

/**
 * Stores one successful listing: the first is the baseline (the account as it is, no changes);
 * every later one appends what changed since the previous successful listing, each change with
 * its window (that listing's time, this one's). Servers sharing one PostgreSQL take turns under
 * a transaction-scoped advisory lock, so two listings never diff against the same state.
 */

/** Arbitrary constant: the advisory-lock key of the watch's listing history. */
export const WATCH_LOCK_KEY = 7_349_210_600
const TID_SEP = '\u001f'

export interface ListingRecorded {
  listingId: string
  baseline: boolean
  /** The window's start: the previous successful listing (null for the baseline). */
  prevAt: Date | null
  at: Date
  changes: Change[]
  /** True when another server listed within `minGapMs` and this listing was not stored. */
  skipped?: boolean
}

interface StateRow extends Record<string, unknown> {
  number: string
  tid: string
  tids: string[]
  type: string
  webhook: string
  dlr: string
}

async function readState(tx: Queryable): Promise<Map<string, NumberState>> {
  const r = await tx.query<StateRow>(`SELECT number, tid, tids, type, webhook, dlr FROM watch_state`)
  return new Map(r.rows.map((s) => [s.number, { ...s }]))
}

async function writeStates(tx: Queryable, states: NumberState[]): Promise<void> {
  if (states.length === 0) return
  await tx.query(
    `INSERT INTO watch_state (number, tid, tids, type, webhook, dlr)
     SELECT n, t, string_to_array(a, $7), y, w, d FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(n, t, a, y, w, d)
     ON CONFLICT (number) DO UPDATE SET tid = EXCLUDED.tid, tids = EXCLUDED.tids, type = EXCLUDED.type, webhook = EXCLUDED.webhook, dlr = EXCLUDED.dlr`,
    [
      states.map((s) => s.number),
      states.map((s) => s.tid),
      // tids are opaque text: joined by a control character no listing carries, as one text per number.
      states.map((s) => s.tids.join(TID_SEP)),
      states.map((s) => s.type),
      states.map((s) => s.webhook),
      states.map((s) => s.dlr),
      TID_SEP,
    ],
  )
}

export async function recordListing(db: Db, entries: readonly ListedEntry[], at: Date, minGapMs = 0): Promise<ListingRecorded> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [WATCH_LOCK_KEY])
    const last = await tx.query<{ at: Date; ok: boolean }>(`SELECT at, ok FROM watch_listings ORDER BY at DESC, id DESC LIMIT 1`)
    const lastOk = await tx.query<{ at: Date }>(`SELECT at FROM watch_listings WHERE ok ORDER BY at DESC, id DESC LIMIT 1`)
    const prevAt = lastOk.rows[0] ? new Date(lastOk.rows[0].at) : null
    if (minGapMs > 0 && last.rows[0] && at.getTime() - new Date(last.rows[0].at).getTime() < minGapMs)
      return { listingId: '', baseline: false, prevAt, at, changes: [], skipped: true }
    const after = toStates(entries)
    if (!prevAt) {
      const ins = await tx.query<{ id: string }>(
        `INSERT INTO watch_listings (at, ok, baseline, numbers, changes) VALUES ($1, true, true, $2, 0) RETURNING id::text AS id`,
        [at, after.size],
      )
      await tx.query(`DELETE FROM watch_state`)
      await writeStates(tx, [...after.values()])
      return { listingId: ins.rows[0]!.id, baseline: true, prevAt: null, at, changes: [] }
    }
    const before = await readState(tx)
    const changes = diffStates(before, after)
    const ins = await tx.query<{ id: string }>(
      `INSERT INTO watch_listings (at, ok, baseline, prev_at, numbers, changes) VALUES ($1, true, false, $2, $3, $4) RETURNING id::text AS id`,
      [at, prevAt, after.size, changes.length],
    )
    const listingId = ins.rows[0]!.id
    if (changes.length > 0) {
      await tx.query(
        `INSERT INTO watch_changes (listing_id, number, kind, from_value, to_value, window_start, window_end)
         SELECT $1::bigint, n, k, f, t, $2, $3 FROM unnest($4::text[], $5::text[], $6::text[], $7::text[]) AS u(n, k, f, t)`,
        [
          listingId,
          prevAt,
          at,
          changes.map((c) => c.number),
          changes.map((c) => c.kind),
          changes.map((c) => c.from),
          changes.map((c) => c.to),
        ],
      )
      const touched = new Set(changes.map((c) => c.number))
      await writeStates(
        tx,
        [...touched].flatMap((n) => (after.has(n) ? [after.get(n)!] : [])),
      )
      const gone = changes.filter((c) => c.kind === 'removed').map((c) => c.number)
      if (gone.length) await tx.query(`DELETE FROM watch_state WHERE number = ANY($1::text[])`, [gone])
    }
    return { listingId, baseline: false, prevAt, at, changes }
  })
}
