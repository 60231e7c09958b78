-- Segments per number and UTC day (the Encoding & segments page's chart and table), kept by the
-- sync's store step with each stored batch's own rows, as desk_quiet_days is, instead of grouping
-- every message of the range on each read. Only additions: a message is counted once, when its
-- facts are written (with the row, or by a catch-up of rows stored while the desk was off); forget
-- and a re-walk delete the number's rows (forgetDesk).
CREATE TABLE desk_segment_days (
  number   text    NOT NULL,
  day      date    NOT NULL,
  -- Messages with facts, the segments they took, those in UCS-2, and the segments UCS-2 added.
  messages integer NOT NULL,
  segments integer NOT NULL,
  ucs2     integer NOT NULL,
  extra    integer NOT NULL,
  PRIMARY KEY (number, day)
);

-- The rows already stored with their facts.
INSERT INTO desk_segment_days (number, day, messages, segments, ucs2, extra)
SELECT number, (date AT TIME ZONE 'UTC')::date, count(*), sum(segments), count(*) FILTER (WHERE encoding = 'UCS-2'), sum(extra_segments)
  FROM desk_messages
 GROUP BY 1, 2;
