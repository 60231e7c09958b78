-- Browsers that have signed in as a user before (OWASP's device cookie): a sign-in that presents
-- one for the same name is not held behind strangers' guesses in the password-check queue. Only
-- the token's SHA-256 is kept; a device is forgotten after its days, or with its user.
CREATE TABLE signin_devices (
  token_hash text PRIMARY KEY,
  user_name text NOT NULL REFERENCES users (name) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX signin_devices_expires_at ON signin_devices (expires_at);
