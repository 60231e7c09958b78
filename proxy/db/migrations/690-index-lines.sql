-- A number's further lines (contract/lines.ts): the account lists a number under a second tid
-- that serves a history of its own, and the index keeps that history as a row of its own, keyed
-- `<number>~2` (up to ~9). `line_of` is the number it belongs to, asked of the upstream with the
-- row's tid; null on a number's own row.
ALTER TABLE index_numbers ADD COLUMN line_of text;
CREATE INDEX index_numbers_line_of ON index_numbers (line_of) WHERE line_of IS NOT NULL;
