-- The support desk (contract/desk): facts kept up to date during sync (proxy/desk/refresh.ts),
-- so the queue, the opt-out ledger and the charts read a few rows instead of classifying every
-- message at read time. Customer data: each row derives from an indexed message. No foreign keys
-- to index_messages (forget TRUNCATEs it); refreshDesk drops rows whose message is gone.

-- One row per indexed message: what the desk rules say about it on its own.
CREATE TABLE desk_messages (
  number          text NOT NULL,
  ordinal         integer NOT NULL,
  party           text NOT NULL,
  date            timestamptz NOT NULL,
  -- 'inbound' | 'outbound' | NULL (any other direction: shown, never counted).
  direction       text,
  failed          boolean NOT NULL DEFAULT false,
  -- classifyOptOut of an inbound body: 'opt-out' | 'opt-in' | 'none'.
  opt_kind        text NOT NULL DEFAULT 'none',
  encoding        text NOT NULL,
  segments        integer NOT NULL,
  -- encodingCost: the characters that forced UCS-2 and the segments they added.
  forcing         text[],
  extra_segments  integer NOT NULL DEFAULT 0,
  -- Outbound to a NANP party only: the recipient's local day and whether it was a quiet hour.
  local_day       date,
  quiet           boolean,
  PRIMARY KEY (number, ordinal),
  CONSTRAINT desk_messages_opt CHECK (opt_kind IN ('opt-out', 'opt-in', 'none'))
);
-- A thread's messages by time: the last reply, the unanswered messages, the sends in an opt-out period.
CREATE INDEX desk_messages_thread ON desk_messages (number, party, date DESC, ordinal DESC);
CREATE INDEX desk_messages_opt ON desk_messages (number, party, date) WHERE opt_kind <> 'none';
CREATE INDEX desk_messages_quiet ON desk_messages (number, local_day) WHERE quiet;

-- One row per (number, party) thread: needs-reply and opt-out state, recomputed for the parties
-- a stored batch touched.
CREATE TABLE desk_threads (
  number                text NOT NULL,
  party                 text NOT NULL,
  first_at              timestamptz,
  last_at               timestamptz,
  inbound               integer NOT NULL DEFAULT 0,
  outbound              integer NOT NULL DEFAULT 0,
  failed                integer NOT NULL DEFAULT 0,
  last_inbound_ordinal  integer,
  last_inbound_at       timestamptz,
  last_reply_at         timestamptz,
  -- The first unanswered inbound message (after the last delivered reply and any "mark
  -- handled", opt-outs left out); NULL when nothing is unanswered.
  waiting_since         timestamptz,
  unanswered            integer NOT NULL DEFAULT 0,
  opted_out             boolean NOT NULL DEFAULT false,
  opt_out_ordinal       integer,
  opted_out_at          timestamptz,
  -- Every change of state, oldest first: [{state, ordinal, date}].
  opt_history           jsonb NOT NULL DEFAULT '[]',
  sent_after            integer NOT NULL DEFAULT 0,
  PRIMARY KEY (number, party)
);
CREATE INDEX desk_threads_waiting ON desk_threads (waiting_since) WHERE waiting_since IS NOT NULL;
CREATE INDEX desk_threads_opt ON desk_threads (number, party) WHERE opt_history <> '[]';
CREATE INDEX desk_threads_party ON desk_threads (party);

-- Outbound messages sent while the party was opted out (after the one allowed confirmation).
CREATE TABLE desk_sent_after (
  number       text NOT NULL,
  ordinal      integer NOT NULL,
  party        text NOT NULL,
  -- The send's date: the report pages newest first without visiting every message.
  date         timestamptz NOT NULL,
  opt_ordinal  integer NOT NULL,
  after_ms     bigint NOT NULL,
  failed       boolean NOT NULL,
  PRIMARY KEY (number, ordinal)
);
CREATE INDEX desk_sent_after_party ON desk_sent_after (number, party);
CREATE INDEX desk_sent_after_date ON desk_sent_after (date DESC, number, ordinal DESC);

-- "Mark handled" (a call or an email answered them): the latest per thread, who and when.
CREATE TABLE desk_handled (
  number      text NOT NULL,
  party       text NOT NULL,
  handled_at  timestamptz NOT NULL,
  handled_by  text NOT NULL,
  PRIMARY KEY (number, party)
);

-- Threads a sync batch touched whose state is not recomputed yet: refreshDesk recomputes a
-- number's threads at most every few seconds during a long walk and leaves the rest here; any
-- desk read recomputes these first (flushDesk), so answers are never stale.
CREATE TABLE desk_dirty (
  number  text NOT NULL,
  party   text NOT NULL,
  PRIMARY KEY (number, party)
);
