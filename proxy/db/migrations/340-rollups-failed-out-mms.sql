-- The daily and quarter-hour roll-ups also keep, per slot, the outbound failures and the messages
-- with media, so a search that narrows by a direction with a status, or by media, is counted from
-- them (proxy/index/queries.ts rollUpMeasure) like the other filters, not row by row. The sync's
-- store step adds to them with the rest (proxy/index/sync/store.ts rollUp); here they are filled
-- once for the rows an index already holds, by the same definitions: outbound is direction
-- 'outbound', a failure a status code of 400 or more, a slot the UTC day or quarter hour.
ALTER TABLE index_daily ADD COLUMN failed_out integer NOT NULL DEFAULT 0;
ALTER TABLE index_daily ADD COLUMN mms integer NOT NULL DEFAULT 0;
ALTER TABLE index_quarter_hours ADD COLUMN failed_out integer NOT NULL DEFAULT 0;
ALTER TABLE index_quarter_hours ADD COLUMN mms integer NOT NULL DEFAULT 0;

UPDATE index_daily d SET failed_out = s.fo, mms = s.mm
  FROM (SELECT number, (date AT TIME ZONE 'UTC')::date AS day,
               count(*) FILTER (WHERE direction = 'outbound' AND status_code >= 400)::int AS fo,
               count(*) FILTER (WHERE mms)::int AS mm
          FROM index_messages GROUP BY 1, 2) s
 WHERE d.number = s.number AND d.day = s.day AND (s.fo > 0 OR s.mm > 0);

UPDATE index_quarter_hours q SET failed_out = s.fo, mms = s.mm
  FROM (SELECT number, to_timestamp(floor(extract(epoch FROM date) / 900) * 900) AS slot,
               count(*) FILTER (WHERE direction = 'outbound' AND status_code >= 400)::int AS fo,
               count(*) FILTER (WHERE mms)::int AS mm
          FROM index_messages GROUP BY 1, 2) s
 WHERE q.number = s.number AND q.slot = s.slot AND (s.fo > 0 OR s.mm > 0);
