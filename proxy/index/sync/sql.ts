/**
 * The sync's SQL beside the message rows (whose INSERT and COPY come from ../columns.ts): the
 * roll-ups kept with every batch, body ids, and the number's counters and checkpoint.
 */

/** The daily roll-up, added to (a batch's few days, summed in JavaScript from the rows stored): messages in and out, failures, outbound failures and messages with media. */
export const DAILY_SQL = `
INSERT INTO index_daily (number, day, inbound, outbound, failed, failed_out, mms)
SELECT $1, d, i, o, f, fo, mm FROM unnest($2::date[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[]) AS u(d, i, o, f, fo, mm)
ON CONFLICT (number, day) DO UPDATE SET
  inbound = index_daily.inbound + EXCLUDED.inbound,
  outbound = index_daily.outbound + EXCLUDED.outbound,
  failed = index_daily.failed + EXCLUDED.failed,
  failed_out = index_daily.failed_out + EXCLUDED.failed_out,
  mms = index_daily.mms + EXCLUDED.mms`

/**
 * The quarter-hour roll-up (UTC slots), added to beside the daily one: the days of any zone are
 * whole sets of slots, so the charts count the shown zone's days from it.
 */
export const QUARTER_SQL = `
INSERT INTO index_quarter_hours (number, slot, inbound, outbound, failed, failed_out, mms)
SELECT $1, s, i, o, f, fo, mm FROM unnest($2::timestamptz[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[]) AS u(s, i, o, f, fo, mm)
ON CONFLICT (number, slot) DO UPDATE SET
  inbound = index_quarter_hours.inbound + EXCLUDED.inbound,
  outbound = index_quarter_hours.outbound + EXCLUDED.outbound,
  failed = index_quarter_hours.failed + EXCLUDED.failed,
  failed_out = index_quarter_hours.failed_out + EXCLUDED.failed_out,
  mms = index_quarter_hours.mms + EXCLUDED.mms`

/**
 * The ids of a batch's distinct bodies ($1, answered by position k, 1-based), adding the new
 * ones. Two syncs on one PostgreSQL may add the same body at once: the copies are harmless (see
 * migration 002), and the lowest id is used from then on. With the desk's facts ($2 the forcing
 * characters joined by U+001F, $3 the extra segments; null arrays while the desk is off) a new
 * body gets them, and a known body that has none yet (added while the desk was off) is given them.
 */
export const BODY_IDS_SQL = `
WITH input AS (SELECT b, f, x, k FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY AS u(b, f, x, k)),
found AS (
  SELECT i.k, min(x.id) AS id FROM input i JOIN index_bodies x ON md5(x.body) = md5(i.b) AND x.body = i.b GROUP BY i.k
),
filled AS (
  UPDATE index_bodies x SET desk_forcing = string_to_array(i.f, E'\\x1f'), desk_extra = i.x
    FROM found f JOIN input i ON i.k = f.k
   WHERE x.id = f.id AND x.desk_extra IS NULL AND i.x IS NOT NULL
),
added AS (
  INSERT INTO index_bodies (body, desk_forcing, desk_extra)
  SELECT i.b, string_to_array(i.f, E'\\x1f'), i.x FROM input i WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.k = i.k) ORDER BY i.k
  RETURNING id, body
)
SELECT k::int AS k, id FROM found
UNION ALL
SELECT i.k::int AS k, a.id FROM added a JOIN input i ON i.b = a.body`

/**
 * The ids of a batch's distinct status texts ($1, answered by position k, 1-based), adding the
 * new ones (migration 410). As with bodies, two syncs on one PostgreSQL may add the same text at
 * once; the lowest id is used from then on.
 */
export const STATUS_IDS_SQL = `
WITH input AS (SELECT s, k FROM unnest($1::text[]) WITH ORDINALITY AS u(s, k)),
found AS (
  SELECT i.k, min(x.id) AS id FROM input i JOIN index_statuses x ON md5(x.status) = md5(i.s) AND x.status = i.s GROUP BY i.k
),
added AS (
  INSERT INTO index_statuses (status)
  SELECT i.s FROM input i WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.k = i.k) ORDER BY i.k
  RETURNING id, status
)
SELECT k::int AS k, id FROM found
UNION ALL
SELECT i.k::int AS k, a.id FROM added a JOIN input i ON i.s = a.status`

export const BODY_COUNTS_SQL = `
INSERT INTO index_body_counts (body_id, number, count)
SELECT b, $1, c FROM unnest($2::int[], $3::int[]) AS u(b, c)
ON CONFLICT (body_id, number) DO UPDATE SET count = index_body_counts.count + EXCLUDED.count`

export const PARTIES_SQL = `
INSERT INTO index_parties (number, party, count, last_date)
SELECT $1, p, c, l FROM unnest($2::text[], $3::int[], $4::timestamptz[]) AS u(p, c, l)
ON CONFLICT (number, party) DO UPDATE SET
  count = index_parties.count + EXCLUDED.count,
  last_date = GREATEST(index_parties.last_date, EXCLUDED.last_date)`

/**
 * The number's counters and envelope after a batch ($2 inserted, $3 highest ordinal, $4–$8 the
 * page's envelope) and, when $9, the full walk's checkpoint ($10 next, $11 total, $12 check):
 * the walk is done once nothing is left below its checkpoint.
 *
 * Fenced by the lease ($13, this syncer's owner): no row comes back once another server has
 * taken the number over, and the store then rolls the whole batch back. The row lock this takes
 * orders the batch against a takeover: an acquire that comes after it waits for the commit and
 * then reads the checkpoint this batch wrote; one that came before it leaves locked_by changed.
 */
export const NUMBER_AFTER_STORE_SQL = `
UPDATE index_numbers SET
  indexed = indexed + $2, top_ordinal = GREATEST(top_ordinal, $3),
  upstream_total = $4, newest_msg_id = $5, newest_at = $6, created_raw = COALESCE($7, created_raw), optin = COALESCE($8, optin),
  progress_done = indexed + $2, progress_total = $4,
  cp_next = CASE WHEN $9::boolean THEN $10::int ELSE cp_next END,
  cp_total = CASE WHEN $9::boolean THEN $11::int ELSE cp_total END,
  cp_check = CASE WHEN $9::boolean THEN $12::text ELSE cp_check END,
  full_done = CASE WHEN $9::boolean THEN $10::int = 0 ELSE full_done END
WHERE number = $1 AND locked_by = $13
RETURNING number`
