-- The media of the history pages served to each sign-in (proxy/media/locate.ts): /api/media
-- serves a message's media by its ids only when a page served to that sign-in held it. Kept in
-- the database, not one server's memory, so a thumbnail asked of another server behind the same
-- PostgreSQL is found too. Rows are customer data (an address and a customer's number): they
-- expire after two hours and go with a forget.
CREATE TABLE media_served (
  sign_in text NOT NULL,
  number text NOT NULL,
  -- '' for an id the record did not carry: a real id is 1 to 128 printable characters.
  system_id text NOT NULL,
  message_id text NOT NULL,
  url text NOT NULL,
  party text NOT NULL,
  served_at bigint NOT NULL,
  PRIMARY KEY (sign_in, number, system_id, message_id, url, party)
);
CREATE INDEX media_served_number ON media_served (number);
CREATE INDEX media_served_at ON media_served (served_at);
