-- The earliest date among the messages that marked a thread for recompute since its last one
-- (proxy/desk/refresh.ts): every message dated before it was there, unchanged, at that recompute.
-- A period whose first 10,000 sends (the evidence list) all come before it keeps its rows without
-- being read again, which is most of a catch-up's recompute on a thread with an old opt-out.
-- NULL (rows marked before this column, or marked without dates): the thread is read in full.
ALTER TABLE desk_dirty ADD COLUMN since timestamptz;
-- The recompute then compares only a thread's evidence rows dated at or after that date: read
-- by thread and date, instead of visiting every row of the thread (10,000 per full list).
CREATE INDEX desk_sent_after_thread_date ON desk_sent_after (number, party, date);
