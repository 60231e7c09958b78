-- The message index. Customer messages: every row below is a message someone sent
-- or received. Forget (POST /api/index/forget) deletes them.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- One row per account number: the envelope facts from the last page seen and the sync state.
CREATE TABLE index_numbers (
  number          text PRIMARY KEY,
  tid             text NOT NULL,
  -- Listed by allownednumbers (an "index all" knows it), or only seen through a history view.
  listed          boolean NOT NULL DEFAULT false,
  -- Envelope facts (the upstream's, as of the last page fetched).
  upstream_total  integer,
  newest_msg_id   text,
  newest_at       timestamptz,
  created_raw     text,
  optin           text,
  -- What the index holds: maintained in the same transaction as the message inserts.
  indexed         integer NOT NULL DEFAULT 0,
  top_ordinal     integer NOT NULL DEFAULT 0,
  -- Sync state: never | queued | syncing | idle | paused | error.
  state           text NOT NULL DEFAULT 'never',
  error           text,
  -- A full walk is complete once every ordinal from 1 to its anchor is stored.
  full_done       boolean NOT NULL DEFAULT false,
  -- Checkpoint of a full walk (newest first): every ordinal above cp_next (up to top_ordinal)
  -- is stored; cp_total is the upstream total the walk last saw, which turns ordinals into
  -- positions for the next request. cp_next_id is the system/message id of ordinal cp_next + 1,
  -- so the next page's overlap record proves the alignment.
  cp_next         integer,
  cp_total        integer,
  cp_check        text,
  started_at      timestamptz,
  finished_at     timestamptz,
  last_synced_at  timestamptz,
  progress_done   integer,
  progress_total  integer,
  CONSTRAINT index_numbers_state CHECK (state IN ('never', 'queued', 'syncing', 'idle', 'paused', 'error'))
);

-- Messages keyed by (number, ordinal): ordinal 1 is the number's oldest message and stays put as
-- new ones arrive, and two records with the same message_id (the upstream sends such
-- duplicates) are two rows.
CREATE TABLE index_messages (
  number        text NOT NULL,
  ordinal       integer NOT NULL,
  -- The number's tid the record was fetched under, and the record's own tid (they may differ).
  fetched_tid   text NOT NULL,
  tid           text,
  system_id     text,
  message_id    text,
  date          timestamptz NOT NULL,
  -- The GMTdate text when it did not parse (then `date` is the neighbouring record's date).
  date_raw      text,
  phone         text,
  party_digits  text NOT NULL DEFAULT '',
  direction     text,
  body          text,
  mms           boolean NOT NULL DEFAULT false,
  media_url     text,
  status        text,
  status_code   integer,
  PRIMARY KEY (number, ordinal)
);

-- Account-wide search, newest first, keyset over (date, number, ordinal).
CREATE INDEX index_messages_date ON index_messages (date DESC, number DESC, ordinal DESC);
-- One number's history by date (locate, per-number search and export).
CREATE INDEX index_messages_number_date ON index_messages (number, date DESC, ordinal DESC);
-- A thread: one number with one party.
CREATE INDEX index_messages_thread ON index_messages (number, party_digits, date DESC, ordinal DESC);
-- Failures with a date range (a few percent of rows: a partial index costs little to keep).
CREATE INDEX index_messages_errors ON index_messages (date DESC) WHERE status_code >= 400;
-- Substring search of bodies (ILIKE '%…%').
CREATE INDEX index_messages_body_trgm ON index_messages USING gin (body gin_trgm_ops);
-- proxy/index/sync.ts (SECONDARY_INDEXES) drops and rebuilds the five secondary indexes above around the
-- first bulk load of a large history; keep the two lists the same.

-- Daily roll-up, maintained with the inserts (same statement): a chart over a million messages
-- reads a few hundred rows.
CREATE TABLE index_daily (
  number    text NOT NULL,
  day       date NOT NULL,
  inbound   integer NOT NULL DEFAULT 0,
  outbound  integer NOT NULL DEFAULT 0,
  failed    integer NOT NULL DEFAULT 0,
  PRIMARY KEY (number, day)
);
CREATE INDEX index_daily_day ON index_daily (day);

-- The other parties of each number, with counts: the thread picker without a million-row GROUP BY.
CREATE TABLE index_parties (
  number     text NOT NULL,
  party      text NOT NULL,
  count      integer NOT NULL DEFAULT 0,
  last_date  timestamptz,
  PRIMARY KEY (number, party)
);
-- Partial phone digits (LIKE '%5550142%') are matched here, among the distinct parties, and the
-- messages then come through the thread index: far cheaper than a trigram index over every
-- message's phone, which would cost as much to maintain as the body's.
CREATE INDEX index_parties_party_trgm ON index_parties USING gin (party gin_trgm_ops);
