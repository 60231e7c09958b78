-- Sign-in throttling by (name, address) and by address, with growing delays. One row per key
-- holds its consecutive failures and when it last admitted an attempt; the next attempt is
-- allowed at last_at + delay(failures). Attempts are counted here, under a row lock, before any
-- password is checked, so concurrent guesses on one or several servers cannot pass the limit.
-- Never keyed by name alone: a stranger's guesses from elsewhere must not lock out the user.
CREATE TABLE signin_limits (
  scope text NOT NULL CHECK (scope IN ('pair', 'address')),
  -- 'pair': the lower-cased name, a newline, the address; 'address': the address (an IPv6
  -- client counts by its /64, which one host usually holds whole).
  key text NOT NULL,
  failures integer NOT NULL CHECK (failures >= 0),
  last_at timestamptz NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX signin_limits_last_at ON signin_limits (last_at);

-- The per-name window table is replaced by the rows above.
DROP TABLE signin_failures;
