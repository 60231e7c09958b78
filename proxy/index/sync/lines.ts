import { lineKey } from '../../../contract/lines.ts'
import { fetchPage } from './fetch.ts'
import type { NumberRow, SyncContext } from './types.ts'

/**
 * A number's further lines (contract/lines.ts): the account lists one number under more tids
 * than one, and a tid other than the one its own row syncs under serves a history of its own.
 * Such a history is a line of its own in the index, synced like a number, keyed `<number>~2`.
 */

/** The tids a number's further lines sync under, with their keys. */
export async function lineTids(ctx: SyncContext, number: string): Promise<Map<string, string>> {
  const r = await ctx.db.query<{ number: string; tid: string }>('SELECT number, tid FROM index_numbers WHERE line_of = $1', [number])
  return new Map(r.rows.map((x) => [x.tid, x.number]))
}

/**
 * After a number's own sync worked under `tid`: every other tid the account lists it with, and
 * no line holds yet, is asked for its newest record, once per tid while this server runs. One
 * that answers becomes a further line, recorded as queued and handed to `ctx.lines.found`. One
 * refused stays what it was: a finding on the number's row ("listed twice").
 */
export async function discoverLines(ctx: SyncContext, row: NumberRow, tid: string, signal: AbortSignal): Promise<void> {
  if (row.line_of !== null || row.other_tids.length === 0) return
  const held = await lineTids(ctx, row.number)
  for (const other of row.other_tids) {
    const asked = `${row.number}\u0000${other}`
    if (other === tid || held.has(other) || ctx.lines.probed.has(asked) || signal.aborted) continue
    ctx.lines.probed.add(asked)
    const probe = await fetchPage({ ctx, number: row.number, upstream: row.number, tid: other, signal }, 1, 1)
    if (!probe.ok) {
      ctx.log(`index: ${row.number}: tid ${other} serves no history of its own (${probe.stop.message}); it stays a finding`)
      continue
    }
    const key = await addLine(ctx, row.number, other)
    if (key === null) continue
    held.set(other, key)
    ctx.log(`index: ${row.number}: tid ${other} serves a history of its own (${probe.value.total} messages): indexed as ${key}`)
    ctx.lines.found(key)
  }
}

/**
 * Records `tid` as a further line of `number`, queued, at the first free place: its key, or null
 * when the number has nine lines already. A tid a line holds already keeps its line.
 */
export async function addLine(ctx: SyncContext, number: string, tid: string): Promise<string | null> {
  const lines = await lineTids(ctx, number)
  const held = lines.get(tid)
  if (held !== undefined) return held
  const used = new Set(lines.values())
  let place = 2
  while (place <= 9 && used.has(lineKey(number, place))) place++
  if (place > 9) {
    ctx.log(`index: ${number}: tid ${tid} serves a history, but the number has nine lines already; not indexed`)
    return null
  }
  const key = lineKey(number, place)
  await ctx.db.query(
    `INSERT INTO index_numbers (number, tid, listed, line_of, state) VALUES ($1, $2, true, $3, 'queued') ON CONFLICT (number) DO NOTHING`,
    [key, tid, number],
  )
  return key
}

/**
 * What the listing says of the further lines: a line whose number the listing no longer gives its
 * tid is marked removed from the account (as a number that left it is); one it gives again is
 * listed, and queued with the numbers. The keys of the lines the listing gives.
 */
export async function recordLines(ctx: SyncContext, listing: Map<string, string[]>, revive: boolean): Promise<string[]> {
  const numbers = [...listing.keys()]
  const all = numbers.map((n) => listing.get(n)!.join(' '))
  const listed = await ctx.db.query<{ number: string; forgotten_at: unknown }>(
    `UPDATE index_numbers l SET listed = true,
       removed_at = CASE WHEN l.removed_by = 'listing' THEN NULL ELSE l.removed_at END,
       removed_by = CASE WHEN l.removed_by = 'listing' THEN NULL ELSE l.removed_by END,
       forgotten_at = CASE WHEN $3 THEN NULL ELSE l.forgotten_at END,
       state = CASE WHEN l.state = 'syncing' THEN l.state WHEN NOT $3 AND l.forgotten_at IS NOT NULL THEN l.state ELSE 'queued' END
     FROM unnest($1::text[], $2::text[]) AS u(n, a)
     WHERE l.line_of = u.n AND l.tid = ANY(string_to_array(u.a, ' '))
     RETURNING l.number, l.forgotten_at`,
    [numbers, all, revive],
  )
  await ctx.db.query(
    `UPDATE index_numbers l SET removed_at = COALESCE(removed_at, now()), removed_by = 'listing', listed = false
     WHERE l.line_of IS NOT NULL AND NOT (l.number = ANY($1::text[]))`,
    [listed.rows.map((r) => r.number)],
  )
  return listed.rows.filter((r) => r.forgotten_at === null).map((r) => r.number)
}
