-- Outbound sends per number, UTC day and recipient-local day (the local day of a send to a zone
-- the area-code table cannot tell is its UTC day): the quiet-hours report over whole days sums
-- these rows instead of scanning every outbound message (a year of a million-message history is
-- some 370,000 sends). Kept with desk_messages by the same statements (proxy/desk/refresh.ts).
CREATE TABLE desk_quiet_days (
  number     text NOT NULL,
  day        date NOT NULL,
  local_day  date NOT NULL,
  outbound   integer NOT NULL,
  -- Sends to a party whose zone cannot be told (quiet IS NULL).
  unknown    integer NOT NULL,
  quiet      integer NOT NULL,
  PRIMARY KEY (number, day, local_day)
);

INSERT INTO desk_quiet_days (number, day, local_day, outbound, unknown, quiet)
SELECT number, (date AT TIME ZONE 'UTC')::date, COALESCE(local_day, (date AT TIME ZONE 'UTC')::date),
       count(*), count(*) FILTER (WHERE quiet IS NULL), count(*) FILTER (WHERE quiet)
  FROM desk_messages WHERE direction = 'outbound'
 GROUP BY 1, 2, 3;

-- The report's list of quiet sends is newest first within a range of dates: its index follows
-- the date (the per-day counts above answer what the local-day index served).
DROP INDEX desk_messages_quiet;
CREATE INDEX desk_messages_quiet ON desk_messages (number, date DESC, ordinal DESC) WHERE quiet;
