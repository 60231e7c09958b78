-- What the last full walk of a number found about the upstream's history that the index could
-- not follow, in words for the Index page: a total that counts more than the history serves (the
-- walk ended short of it), or fewer (the oldest records, past the total, had no place). Null when
-- the walk found nothing to say.
ALTER TABLE index_numbers ADD COLUMN finding text;
