-- Callback watch (proxy/watch/): the account's listings kept as history, and checks of the
-- callback endpoints. What happened is appended, never changed: the history answers "when did
-- this webhook change, and what was it before", so an edit would be a forged answer.

-- One row per listing attempt. A failed listing (ok = false) is a gap: the history cannot say
-- what changed during it, and the next listing's changes carry a window across it.
CREATE TABLE watch_listings (
  id        bigserial PRIMARY KEY,
  at        timestamptz NOT NULL,
  ok        boolean NOT NULL,
  -- The first successful listing: what the account was, not what changed.
  baseline  boolean NOT NULL DEFAULT false,
  -- The previous successful listing's time (the start of this listing's window).
  prev_at   timestamptz,
  numbers   integer,
  changes   integer,
  error     text
);
CREATE INDEX watch_listings_at ON watch_listings (at DESC);

-- One row per change seen between two successful listings, with the window it happened in.
CREATE TABLE watch_changes (
  id            bigserial PRIMARY KEY,
  listing_id    bigint NOT NULL REFERENCES watch_listings (id),
  number        text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('added', 'removed', 'webhook', 'dlr', 'tid', 'type', 'listed-twice', 'listed-once')),
  from_value    text,
  to_value      text,
  window_start  timestamptz NOT NULL,
  window_end    timestamptz NOT NULL
);
CREATE INDEX watch_changes_number ON watch_changes (number, window_end);
CREATE INDEX watch_changes_window ON watch_changes (window_end DESC, id DESC);

-- The account as the last successful listing showed it: what the next listing is compared with.
-- It is a cache of the history above (the baseline plus every change), kept beside it so a diff
-- of 10,000 numbers reads one table, and so it is the one table here that changes.
CREATE TABLE watch_state (
  number   text PRIMARY KEY,
  tid      text NOT NULL,
  tids     text[] NOT NULL,
  type     text NOT NULL,
  webhook  text NOT NULL,
  dlr      text NOT NULL
);

-- One row per check of one callback URL. outcome: up | client-error | failing | redirect |
-- private | invalid; failure (when failing): dns | connection | tls | http | timeout.
CREATE TABLE watch_checks (
  id            bigserial PRIMARY KEY,
  url           text NOT NULL,
  at            timestamptz NOT NULL,
  outcome       text NOT NULL CHECK (outcome IN ('up', 'client-error', 'failing', 'redirect', 'private', 'invalid')),
  failure       text CHECK (failure IN ('dns', 'connection', 'tls', 'http', 'timeout')),
  detail        text NOT NULL,
  status        integer,
  latency_ms    integer,
  addresses     text[],
  tls_protocol  text,
  tls_valid_to  timestamptz,
  tls_days      integer,
  tls_error     text,
  location      text
);
CREATE INDEX watch_checks_url ON watch_checks (url, at DESC);
CREATE INDEX watch_checks_at ON watch_checks (at DESC);

CREATE FUNCTION watch_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: its rows are never changed or deleted', TG_TABLE_NAME;
END
$$;
CREATE TRIGGER watch_listings_append_only BEFORE UPDATE OR DELETE ON watch_listings
  FOR EACH ROW EXECUTE FUNCTION watch_refuse_change();
CREATE TRIGGER watch_changes_append_only BEFORE UPDATE OR DELETE ON watch_changes
  FOR EACH ROW EXECUTE FUNCTION watch_refuse_change();
CREATE TRIGGER watch_checks_append_only BEFORE UPDATE OR DELETE ON watch_checks
  FOR EACH ROW EXECUTE FUNCTION watch_refuse_change();
