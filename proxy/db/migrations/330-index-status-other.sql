-- Messages whose status is neither a success (2xx) nor a failure (400 and up): no status, 1xx or
-- 3xx. The upstream documents only 200 and 400, so these are few and the index costs little to
-- keep (a bulk load keeps it, like the desk's partial indexes). A search counts its successes
-- from the roll-ups as all messages less failures less these, counted here; the search's "other"
-- status filter reads it too. The predicate is written as proxy/index/queries.ts (OTHER_STATUS)
-- writes it, so the planner proves the index serves.
CREATE INDEX IF NOT EXISTS index_messages_status_other ON index_messages (date DESC)
  WHERE (status_code IS NULL OR status_code < 200 OR status_code BETWEEN 300 AND 399);
