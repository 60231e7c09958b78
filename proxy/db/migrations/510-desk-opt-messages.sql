-- A thread's opt-out and opt-in messages in a table of their own, written by the sync's store step
-- with the batch's counts (proxy/desk/refresh.ts BATCH_COUNTS), instead of the partial index
-- index_messages_desk_opt. A bulk load dropped that index and built it again at its end: a pass
-- over the whole million-row table for some 37,000 entries, 0.35 s of PGlite's sync (0.18 s on
-- PostgreSQL). The recompute reads a thread's opt messages from here by its key, as it read the
-- index only. index_messages.desk_opt stays: the thread state's reads filter on it.
CREATE TABLE desk_opt_messages (
  number   text NOT NULL,
  party    text NOT NULL,
  date     timestamptz NOT NULL,
  ordinal  integer NOT NULL,
  kind     text NOT NULL CHECK (kind IN ('opt-out', 'opt-in')),
  PRIMARY KEY (number, party, date, ordinal)
);

INSERT INTO desk_opt_messages (number, party, date, ordinal, kind)
SELECT number, party_digits, date, ordinal, desk_opt FROM index_messages WHERE desk_opt IS NOT NULL;

DROP INDEX IF EXISTS index_messages_desk_opt;
