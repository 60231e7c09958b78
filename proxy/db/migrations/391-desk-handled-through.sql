-- "Mark handled" up to the newest message the person saw (its date and ordinal), rather than up
-- to the moment they clicked: a message dated before that moment but indexed after it (a sync
-- still catching up) was never seen, and stays unanswered. NULL: marked without saying which
-- message (the time alone decides, as before).
ALTER TABLE desk_handled ADD COLUMN through_date timestamptz, ADD COLUMN through_ordinal integer;
