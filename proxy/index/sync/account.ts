import type { SyncContext } from './types.ts'
import { NUMBER_RE } from './types.ts'
import { recordLines } from './lines.ts'

const NEVER = new AbortController().signal

/** The account's numbers, each once, with every tid the listing gave it (first one first). */
export async function listAccount(ctx: SyncContext): Promise<Map<string, string[]>> {
  // A listing is an upstream request like a page: it takes its turn within SYNC_RATE. It is short
  // and waits at most the turns already taken, so it is not stopped part-way.
  await ctx.limit(NEVER)
  const res = await ctx.forwarder.forward('allownednumbers', [])
  ctx.stats.requests += 1
  const json = (res.json ?? JSON.parse(res.body.toString('utf8'))) as { data?: unknown }
  const list = Array.isArray(json.data) ? json.data : []
  const tids = new Map<string, string[]>()
  for (const item of list) {
    if (!item || typeof item !== 'object') continue
    const o = item as Record<string, unknown>
    const n = typeof o.number === 'string' || typeof o.number === 'number' ? String(o.number).replace(/\D/g, '') : ''
    const t = typeof o.tid === 'string' || typeof o.tid === 'number' ? String(o.tid) : ''
    if (!NUMBER_RE.test(n) || !t) continue
    const known = tids.get(n)
    if (!known) tids.set(n, [t])
    else if (!known.includes(t)) known.push(t)
  }
  return tids
}

/**
 * Records the listing: every number listed (a number listed twice keeps the tid it already
 * syncs under when that one is still listed, and the others beside it), and the numbers no
 * longer listed marked as removed from the account. Every listed number is recorded as queued in
 * the same statement (the caller requests each next), so the account's progress never reads
 * "numbers known, nothing running" between the listing and the first request. The further lines
 * (lines.ts) the listing still gives are returned, to be requested with the numbers.
 */
export async function recordListing(ctx: SyncContext, listing: Map<string, string[]>, revive = true): Promise<string[]> {
  const numbers = [...listing.keys()]
  const first = numbers.map((n) => listing.get(n)![0]!)
  // Every tid of a number in one text, since PostgreSQL arrays of arrays must be rectangular.
  const all = numbers.map((n) => listing.get(n)!.join(' '))
  await ctx.db.query(
    `INSERT INTO index_numbers (number, tid, listed, other_tids, state)
     SELECT n, t, true, array_remove(string_to_array(a, ' '), t), 'queued' FROM unnest($1::text[], $2::text[], $3::text[]) AS u(n, t, a)
     ON CONFLICT (number) DO UPDATE SET
       -- An admin's "Index all" indexes a number forgotten before again ($4); anyone else's leaves it forgotten.
       listed = true, removed_at = NULL, removed_by = NULL, forgotten_at = CASE WHEN $4 THEN NULL ELSE index_numbers.forgotten_at END,
       -- 'syncing' may belong to another server: its lease says whose it is.
       state = CASE WHEN index_numbers.state = 'syncing' THEN index_numbers.state
                    WHEN NOT $4 AND index_numbers.forgotten_at IS NOT NULL THEN index_numbers.state ELSE 'queued' END,
       tid = CASE WHEN index_numbers.tid = ANY(EXCLUDED.other_tids) THEN index_numbers.tid ELSE EXCLUDED.tid END,
       other_tids = CASE WHEN index_numbers.tid = ANY(EXCLUDED.other_tids)
                         THEN array_remove(EXCLUDED.other_tids, index_numbers.tid) || EXCLUDED.tid ELSE EXCLUDED.other_tids END`,
    [numbers, first, all, revive],
  )
  // A listing of no numbers at all is taken for a bad answer, not for an account emptied: it
  // marked every number removed, and the index stopped keeping any of them fresh.
  if (numbers.length === 0) {
    ctx.log('index: the account listing named no numbers; no number is marked as removed from it')
    return []
  }
  // Every number the listing lacks, a number first synced by name (its history opened) too: it
  // stayed "in the account" after it left, because only numbers a listing had named were looked at.
  // `listed` goes false with it: a sync that works no longer clears the mark (see finish in
  // number.ts), so a number the upstream serves but does not list stays marked rather than
  // flipping between "removed" and not with each listing and sync.
  await ctx.db.query(
    `UPDATE index_numbers SET removed_at = COALESCE(removed_at, now()), removed_by = 'listing', listed = false
     WHERE (removed_at IS NULL OR removed_by IS DISTINCT FROM 'listing' OR listed) AND line_of IS NULL AND NOT (number = ANY($1::text[]))`,
    [numbers],
  )
  return recordLines(ctx, listing, revive)
}
