-- The desk's opt-out index answers a thread's opt-out history by itself: its key carries the
-- ordinal (the history's order) and it includes the keyword, so the recompute of a thread reads
-- the index only (an index-only scan once VACUUM has marked the pages visible, which a large sync
-- does before its recompute) instead of visiting one table page per opt-out message: on a
-- million-message number the opt messages lie on most of the table's pages.
DROP INDEX IF EXISTS index_messages_desk_opt;
CREATE INDEX index_messages_desk_opt ON index_messages (number, party_digits, date, ordinal) INCLUDE (desk_opt) WHERE desk_opt IS NOT NULL;
