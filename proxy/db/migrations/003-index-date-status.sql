-- Status with a date range, kept fast: the account-wide date index carries the
-- status code, so the exact count of "failed/succeeded between two dates" is an index-only
-- scan of the range instead of a visit to every row in it.
DROP INDEX IF EXISTS index_messages_date;
CREATE INDEX index_messages_date ON index_messages (date DESC, number DESC, ordinal DESC) INCLUDE (status_code);
