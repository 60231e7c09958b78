-- A number's messages are keyed newest first: the key (number, ordinal) becomes a unique index on
-- (number, ordinal DESC). A full walk stores the history newest first, so each batch's rows now
-- enter the key just after the ones before them (a b-tree's append, pages split to stay full)
-- and the table holds them in the order of the (number, date DESC) indexes, which a bulk load
-- then builds from rows already in order. On PGlite, a million rows in batches of 6,000: the
-- load 1.1 to 1.5 s faster and index_messages_number_date built in 1.1 s instead of 2.6, the key
-- the same size (docs/performance.md). ON CONFLICT (number, ordinal) infers it as it did the key.
ALTER TABLE index_messages DROP CONSTRAINT index_messages_pkey;
CREATE UNIQUE INDEX index_messages_key ON index_messages (number, ordinal DESC);
