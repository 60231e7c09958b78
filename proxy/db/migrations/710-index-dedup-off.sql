-- The secondary indexes whose keys end in (…, ordinal) hold no two equal keys (a number's
-- ordinals are unique), so b-tree deduplication never merges anything in them: off, as
-- proxy/index/sync/indexes.ts builds them after a bulk load. Their builds skip its pass and an
-- insert into a full leaf splits it without trying to deduplicate first. IF EXISTS: a bulk load
-- cut short leaves them missing until its number's next sync builds them (with the option).
ALTER INDEX IF EXISTS index_messages_number_date SET (deduplicate_items = off);
ALTER INDEX IF EXISTS index_messages_thread SET (deduplicate_items = off);
ALTER INDEX IF EXISTS index_messages_desk_quiet SET (deduplicate_items = off);
