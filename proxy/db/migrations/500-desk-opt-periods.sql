-- "Sent after opt-out" is kept per opt-out period, not per message. desk_sent_after held a row
-- for each of a period's first 10,000 sends (the list stopped there), written by the recompute
-- after every sync that touched the thread: on the simulator's million, 70,000 rows and three
-- index entries each took 0.7 s of the sync's 0.8 s recompute. A period's sends are the thread's
-- outbound messages between its opt-out and the opt-in that ends it: the thread index
-- (index_messages_thread) reads them in order, so the report reads them from there (every send,
-- no cap), and the desk keeps only what says where they are and how many.
CREATE TABLE desk_opt_periods (
  number        text NOT NULL,
  party         text NOT NULL,
  -- The opt-out message that starts the period.
  opt_ordinal   integer NOT NULL,
  opt_date      timestamptz NOT NULL,
  -- The opt-in that ends it; NULL while the party is still opted out.
  end_ordinal   integer,
  end_date      timestamptz,
  -- The one confirmation the rules allow (the first send, within CONFIRMATION_WINDOW_MS of the
  -- opt-out): not a send after opt-out, never counted or listed. NULL when there was none.
  confirmation  integer,
  -- The period's sends after opt-out (the confirmation left out), and the first and last of them.
  sends         integer NOT NULL,
  first_send    timestamptz,
  last_send     timestamptz,
  PRIMARY KEY (number, party, opt_ordinal),
  CHECK ((sends > 0) = (last_send IS NOT NULL AND first_send IS NOT NULL))
);
-- The report's page takes the periods with the newest last sends first (proxy/desk/sent-after.ts).
CREATE INDEX desk_opt_periods_last ON desk_opt_periods (last_send DESC) WHERE sends > 0;

DROP TABLE desk_sent_after;

-- Every thread with an opt-out history is recomputed in full by the next desk read or sync, which
-- writes its periods.
INSERT INTO desk_dirty AS x (number, party, since)
SELECT number, party, NULL FROM desk_threads WHERE opt_history <> '[]'
ON CONFLICT (number, party) DO UPDATE SET since = NULL;
