-- Deduplicated message bodies, for search speed. Much real traffic repeats a few bodies
-- (auto-replies, campaigns, codes): a body search matches the few distinct bodies through a
-- trigram index over them, then counts and pages the messages through their body_id, instead of
-- rechecking every message. The trigram index over every message (the most expensive index to
-- build and to keep) goes. Bodies are customer data: forget deletes the ones no message uses.

CREATE TABLE index_bodies (
  id    integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- Not unique: two syncs on one PostgreSQL may insert the same body at once. A duplicate is
  -- harmless (a search finds every copy, each message references exactly one).
  body  text NOT NULL
);
CREATE INDEX index_bodies_md5 ON index_bodies (md5(body));
CREATE INDEX index_bodies_trgm ON index_bodies USING gin (body gin_trgm_ops);

ALTER TABLE index_messages ADD COLUMN body_id integer;

-- Messages per (body, number), maintained with the inserts: the exact count of a text search
-- (alone or within numbers) is a sum over a few rows.
CREATE TABLE index_body_counts (
  body_id  integer NOT NULL,
  number   text NOT NULL,
  count    integer NOT NULL DEFAULT 0,
  PRIMARY KEY (body_id, number)
);
CREATE INDEX index_body_counts_number ON index_body_counts (number);

-- Existing rows (a data directory indexed before this migration).
INSERT INTO index_bodies (body) SELECT DISTINCT body FROM index_messages WHERE body IS NOT NULL;
UPDATE index_messages m SET body_id = b.id FROM index_bodies b WHERE m.body IS NOT NULL AND md5(m.body) = md5(b.body) AND m.body = b.body;
INSERT INTO index_body_counts (body_id, number, count) SELECT body_id, number, count(*) FROM index_messages WHERE body_id IS NOT NULL GROUP BY body_id, number;

DROP INDEX IF EXISTS index_messages_body_trgm;
CREATE INDEX index_messages_body ON index_messages (body_id);
-- proxy/index/sync.ts (SECONDARY_INDEXES) drops and rebuilds the secondary indexes of
-- index_messages around the first bulk load of a large history; keep the lists the same.
