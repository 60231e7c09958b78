-- desk_sent_after: one index fewer to keep. The desk's recompute writes up to 10,000 evidence rows
-- per opt-out period (proxy/desk/refresh.ts), each into every index of the table, and a full sync
-- of a large history recomputes every thread. The primary key takes the party before the ordinal:
-- it then serves the deletes and reads by thread that desk_sent_after_party served, and stays
-- one row per message (a message has one party). Rows already kept stay as they are.
ALTER TABLE desk_sent_after DROP CONSTRAINT desk_sent_after_pkey;
ALTER TABLE desk_sent_after ADD CONSTRAINT desk_sent_after_pkey PRIMARY KEY (number, party, ordinal);
DROP INDEX desk_sent_after_party;
