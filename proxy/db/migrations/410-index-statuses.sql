-- Each distinct status text kept once (index_statuses), the message row holding its id, as the
-- bodies are (migration 002). The upstream's status texts repeat: the spec's example status is
-- 62 bytes on every message, a quarter of each COPY line of a sync, and PGlite parses every
-- byte of it in WebAssembly. Rows written before keep their own `status`; readers take the row's
-- own text first, else the id's (proxy/index/queries.ts STATUS_OF, the export's look-up).
-- Not unique: two syncs on one PostgreSQL may add the same text at once; a copy is harmless
-- (each message references exactly one) and the lowest id is used from then on.
-- A status is the provider's delivery state, not a customer's words: forgetting every number
-- empties this table, forgetting one leaves the few texts other numbers may share.
CREATE TABLE index_statuses (
  id     integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  status text NOT NULL
);
CREATE INDEX index_statuses_md5 ON index_statuses (md5(status));

ALTER TABLE index_messages ADD COLUMN status_id integer;
