-- Counts per number and UTC quarter hour, kept with index_daily by the same sync transaction.
-- Every zone's offset today is a whole number of quarter hours, so a day (or week) of any zone is
-- exactly a set of slots: the charts count the days of the zone the console shows, as Search does,
-- by grouping these rows by (slot AT TIME ZONE tz)::date. index_daily stays for UTC readers.
CREATE TABLE index_quarter_hours (
  number    text NOT NULL,
  slot      timestamptz NOT NULL,
  inbound   integer NOT NULL DEFAULT 0,
  outbound  integer NOT NULL DEFAULT 0,
  failed    integer NOT NULL DEFAULT 0,
  PRIMARY KEY (number, slot)
);
CREATE INDEX index_quarter_hours_slot ON index_quarter_hours (slot);

INSERT INTO index_quarter_hours (number, slot, inbound, outbound, failed)
SELECT number,
       to_timestamp(floor(extract(epoch FROM date) / 900) * 900),
       count(*) FILTER (WHERE direction IS DISTINCT FROM 'outbound'),
       count(*) FILTER (WHERE direction = 'outbound'),
       count(*) FILTER (WHERE status_code >= 400)
  FROM index_messages
 GROUP BY 1, 2;
