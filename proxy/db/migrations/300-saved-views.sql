-- Saved views: Search page queries kept by name, private or shared with the team, and when each
-- person last opened each one (their "new matches" count starts there).

-- When a message was stored in the index (the sync's INSERT and COPY leave it to this default).
-- A view's new matches are the messages stored after its last opening: a history walked in late
-- or a message dated in the past still counts as new to someone who has not seen it. Rows that
-- predate this migration take the migration's time (PostgreSQL stores one value, no rewrite).
ALTER TABLE index_messages ADD COLUMN indexed_at timestamptz NOT NULL DEFAULT now();
-- Rows arrive in indexed_at order, so a BRIN index (a few pages for a million rows, next to
-- nothing to keep during a bulk load) finds the recent ones.
CREATE INDEX index_messages_indexed_at ON index_messages USING brin (indexed_at);

CREATE TABLE saved_views (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The signed-in principal's name ("local" with ACCESS=local); no foreign key: header
  -- identities and the local user have no row in users.
  owner       text NOT NULL,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
  shared      boolean NOT NULL DEFAULT false,
  -- The Search page's query string (its URL state), checked against the search parameters.
  query       text NOT NULL CHECK (length(query) <= 2000),
  -- A relative date range resolved when opened; null = the query's own from/to days.
  range       text CHECK (range IN ('today', 'last-7-days', 'last-30-days')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
-- One name per owner, compared as people read names (case-insensitively).
CREATE UNIQUE INDEX saved_views_owner_name ON saved_views (owner, lower(name));
CREATE INDEX saved_views_shared ON saved_views (id) WHERE shared;

CREATE TABLE saved_view_opens (
  view_id    bigint NOT NULL REFERENCES saved_views (id) ON DELETE CASCADE,
  user_name  text NOT NULL,
  -- The database's clock, the same one that writes index_messages.indexed_at.
  opened_at  timestamptz NOT NULL,
  PRIMARY KEY (view_id, user_name)
);
