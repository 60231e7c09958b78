-- Team access: users, sessions, sign-in failures, the access log.
-- Sessions and failures live here, not in memory, so several servers sharing one PostgreSQL
-- share sign-ins and the brute-force limit.

CREATE TABLE users (
  -- Lower-cased at the edges: names are compared case-insensitively.
  name text PRIMARY KEY CHECK (name = lower(name) AND length(name) BETWEEN 1 AND 64),
  role text NOT NULL CHECK (role IN ('admin', 'viewer')),
  -- scrypt$N$r$p$salt$key (proxy/access/passwords.ts)
  password_hash text NOT NULL,
  disabled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE sessions (
  -- SHA-256 of the cookie's id (hex): a copy of this table does not let anyone sign in.
  id_hash text PRIMARY KEY,
  user_name text NOT NULL REFERENCES users (name) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  -- The absolute end (created_at + SESSION_MAX_HOURS), whatever the activity.
  expires_at timestamptz NOT NULL,
  address text NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_name);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- One row per failed sign-in and per key it counts against: ('name', the name tried) and
-- ('address', the client's address). Old rows are purged; a success clears its name's rows.
CREATE TABLE signin_failures (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('name', 'address')),
  key text NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX signin_failures_key ON signin_failures (kind, key, at);
CREATE INDEX signin_failures_at ON signin_failures (at);

CREATE TABLE access_log (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  actor text NOT NULL,
  via text NOT NULL CHECK (via IN ('local', 'password', 'header', 'anonymous')),
  address text NOT NULL,
  action text NOT NULL,
  number text,
  party text,
  -- Filters and row counts; never message bodies, never passwords.
  details jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX access_log_at ON access_log (at DESC, id DESC);
CREATE INDEX access_log_actor ON access_log (actor, at DESC, id DESC);
CREATE INDEX access_log_number ON access_log (number, at DESC, id DESC);
CREATE INDEX access_log_party ON access_log (party, at DESC, id DESC);

-- Append-only from the application's side: no statement may change an entry. Deleting is left
-- to the retention purge (ACCESS_LOG_RETAIN_DAYS), the only DELETE on this table in the code.
CREATE FUNCTION access_log_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'access_log is append-only: entries are never changed';
END
$$;
CREATE TRIGGER access_log_append_only BEFORE UPDATE ON access_log
  FOR EACH ROW EXECUTE FUNCTION access_log_refuse_update();
