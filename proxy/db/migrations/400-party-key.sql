-- One key per party (contract/desk partyKey): a 10-digit North American number is kept with its
-- leading 1, as proxy/index/parse.ts now stores it. The field notes allow `phone` in 10 or 11
-- digits, so one customer could be stored as two parties: two threads, two counts, a reply in one
-- thread that did not answer the other, a send after a STOP that went unreported. `phone` keeps
-- what the upstream wrote; only the key changes.
UPDATE index_messages SET party_digits = '1' || party_digits
 WHERE length(party_digits) = 10 AND party_digits ~ '^[2-9]';

-- The per-number party counts: both forms' rows become one.
INSERT INTO index_parties AS x (number, party, count, last_date)
SELECT number, '1' || party, count, last_date FROM index_parties
 WHERE length(party) = 10 AND party ~ '^[2-9]'
ON CONFLICT (number, party) DO UPDATE SET count = x.count + EXCLUDED.count, last_date = GREATEST(x.last_date, EXCLUDED.last_date);
DELETE FROM index_parties WHERE length(party) = 10 AND party ~ '^[2-9]';

-- "Mark handled" is a person's record: kept, under the key, the later one where both forms had one.
INSERT INTO desk_handled AS x (number, party, handled_at, handled_by, through_date, through_ordinal)
SELECT number, '1' || party, handled_at, handled_by, through_date, through_ordinal FROM desk_handled
 WHERE length(party) = 10 AND party ~ '^[2-9]'
ON CONFLICT (number, party) DO UPDATE
  SET handled_at = EXCLUDED.handled_at, handled_by = EXCLUDED.handled_by,
      through_date = EXCLUDED.through_date, through_ordinal = EXCLUDED.through_ordinal
  WHERE EXCLUDED.handled_at > x.handled_at;
DELETE FROM desk_handled WHERE length(party) = 10 AND party ~ '^[2-9]';

-- The desk's threads: the counts the sync keeps by adding (first and last contact, in, out,
-- failed) are summed into the key's row; what depends on order (waiting, opt-out state, the sends
-- after an opt-out) is recomputed from the messages, read in full (since NULL), by the next desk
-- read or sync (proxy/desk/refresh.ts).
INSERT INTO desk_threads AS x (number, party, first_at, last_at, inbound, outbound, failed)
SELECT number, '1' || party, first_at, last_at, inbound, outbound, failed FROM desk_threads
 WHERE length(party) = 10 AND party ~ '^[2-9]'
ON CONFLICT (number, party) DO UPDATE
  SET first_at = LEAST(x.first_at, EXCLUDED.first_at), last_at = GREATEST(x.last_at, EXCLUDED.last_at),
      inbound = x.inbound + EXCLUDED.inbound, outbound = x.outbound + EXCLUDED.outbound, failed = x.failed + EXCLUDED.failed;
INSERT INTO desk_dirty AS x (number, party, since)
SELECT number, '1' || party, NULL::timestamptz FROM desk_threads WHERE length(party) = 10 AND party ~ '^[2-9]'
UNION
SELECT number, '1' || party, NULL::timestamptz FROM desk_dirty WHERE length(party) = 10 AND party ~ '^[2-9]'
ON CONFLICT (number, party) DO UPDATE SET since = NULL;
DELETE FROM desk_dirty WHERE length(party) = 10 AND party ~ '^[2-9]';
DELETE FROM desk_sent_after WHERE length(party) = 10 AND party ~ '^[2-9]';
DELETE FROM desk_threads WHERE length(party) = 10 AND party ~ '^[2-9]';
