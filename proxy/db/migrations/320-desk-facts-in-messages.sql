-- The support desk's per-message facts move into index_messages: the sync writes them with the
-- row itself (the same COPY or INSERT), instead of a second million-row table beside it with its
-- own primary key and a copy of the thread index. A second table roughly doubled what a full
-- sync writes; a few mostly-NULL columns cost a few bytes a row. desk_messages stays as a view
-- with its old columns, so its readers are unchanged.
--
-- NULL desk_segments means "no facts yet" (stored while the desk was off, or before this
-- migration): index_numbers.desk_behind says which numbers hold such rows, and refreshDesk fills
-- them. A flag rather than a partial index over those rows: such an index would cost a sync
-- without the desk an entry per row, and a bulk load a scan of the table to rebuild it.
ALTER TABLE index_messages
  -- true inbound, false outbound, NULL any other direction (shown, never counted).
  ADD COLUMN desk_inbound   boolean,
  -- classifyOptOut of an inbound body when it is one: 'opt-out' | 'opt-in'; NULL otherwise.
  ADD COLUMN desk_opt       text,
  ADD COLUMN desk_segments  integer,
  -- encodingCost: the characters that forced UCS-2 (NULL: GSM-7) and the segments they added.
  ADD COLUMN desk_forcing   text[],
  ADD COLUMN desk_extra     integer,
  -- Outbound to a NANP party only: the recipient's local day and whether it was a quiet hour.
  ADD COLUMN desk_local_day date,
  ADD COLUMN desk_quiet     boolean,
  ADD CONSTRAINT index_messages_desk_opt CHECK (desk_opt IN ('opt-out', 'opt-in'));

UPDATE index_messages m
   SET desk_inbound = CASE d.direction WHEN 'inbound' THEN true WHEN 'outbound' THEN false END,
       desk_opt = NULLIF(d.opt_kind, 'none'),
       desk_segments = d.segments,
       desk_forcing = d.forcing,
       desk_extra = NULLIF(d.extra_segments, 0),
       desk_local_day = d.local_day,
       desk_quiet = d.quiet
  FROM desk_messages d
 WHERE d.number = m.number AND d.ordinal = m.ordinal AND d.date = m.date AND d.party = m.party_digits;

DROP TABLE desk_messages;

ALTER TABLE index_numbers ADD COLUMN desk_behind boolean NOT NULL DEFAULT false;
UPDATE index_numbers n SET desk_behind = true
 WHERE EXISTS (SELECT 1 FROM index_messages m WHERE m.number = n.number AND m.desk_segments IS NULL);

CREATE VIEW desk_messages AS
SELECT number, ordinal, party_digits AS party, date,
       CASE desk_inbound WHEN true THEN 'inbound' WHEN false THEN 'outbound' END AS direction,
       COALESCE(status_code >= 400, false) AS failed,
       COALESCE(desk_opt, 'none') AS opt_kind,
       CASE WHEN desk_forcing IS NULL THEN 'GSM-7' ELSE 'UCS-2' END AS encoding,
       desk_segments AS segments,
       desk_forcing AS forcing,
       COALESCE(desk_extra, 0) AS extra_segments,
       desk_local_day AS local_day,
       desk_quiet AS quiet
  FROM index_messages
 WHERE desk_segments IS NOT NULL;

-- The thread index (index_messages_thread) serves the desk's per-thread reads; these two are
-- partial and small: opt-out and opt-in messages, and quiet-hour sends (the report pages them
-- newest first).
CREATE INDEX index_messages_desk_opt ON index_messages (number, party_digits, date) WHERE desk_opt IS NOT NULL;
CREATE INDEX index_messages_desk_quiet ON index_messages (number, date DESC, ordinal DESC) WHERE desk_quiet;
