-- The desk's facts that depend on a message's body alone (the characters that forced UCS-2 and
-- the segments they added) are kept once per distinct body in index_bodies, which the sync
-- writes anyway, instead of in every message row: a full sync's COPY then parses an array for
-- none of its rows (half of a history's rows carried one) and the table is smaller. NULL
-- desk_extra on a body: its facts are not known yet (it came while the desk was off); 0 is none.
--
-- Rows written before, and rows whose facts a catch-up fills (proxy/desk/refresh.ts addFacts),
-- keep their own copy in index_messages; desk_messages takes a row's own first, so nothing is
-- moved and every answer stays the same. The join goes by the body's key: a query on the view
-- that reads neither column skips it.
ALTER TABLE index_bodies ADD COLUMN desk_forcing text[], ADD COLUMN desk_extra integer;

CREATE OR REPLACE VIEW desk_messages AS
SELECT m.number, m.ordinal, m.party_digits AS party, m.date,
       CASE m.desk_inbound WHEN true THEN 'inbound' WHEN false THEN 'outbound' END AS direction,
       COALESCE(m.status_code >= 400, false) AS failed,
       COALESCE(m.desk_opt, 'none') AS opt_kind,
       CASE WHEN COALESCE(m.desk_forcing, b.desk_forcing) IS NULL THEN 'GSM-7' ELSE 'UCS-2' END AS encoding,
       m.desk_segments AS segments,
       COALESCE(m.desk_forcing, b.desk_forcing) AS forcing,
       COALESCE(m.desk_extra, b.desk_extra, 0) AS extra_segments,
       m.desk_local_day AS local_day,
       m.desk_quiet AS quiet
  FROM index_messages m
  LEFT JOIN index_bodies b ON b.id = m.body_id
 WHERE m.desk_segments IS NOT NULL;
