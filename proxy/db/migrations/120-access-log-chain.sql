-- The access log proves it was not edited: every entry carries its place in one chain (seq),
-- the previous entry's hash and its own SHA-256 over its canonical form and that previous hash
-- (proxy/access/access-log.ts computes and verifies them). Entries written before this file
-- have no place yet; the server chains them, oldest first, the first time it starts.
ALTER TABLE access_log ADD COLUMN seq bigint;
ALTER TABLE access_log ADD COLUMN prev_hash text;
ALTER TABLE access_log ADD COLUMN hash text;
CREATE UNIQUE INDEX access_log_seq ON access_log (seq);

-- The chain's head: one row, locked (SELECT … FOR UPDATE) by every writer while it numbers and
-- hashes a batch, so servers sharing one PostgreSQL append in one strict order. It also records
-- the last entry written, so removing the newest entries is seen too.
CREATE TABLE access_log_head (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  seq bigint NOT NULL,
  hash text NOT NULL
);
INSERT INTO access_log_head (one, seq, hash) VALUES (true, 0, repeat('0', 64));

-- Retention checkpoints and the chaining of old entries are written by the server itself.
ALTER TABLE access_log DROP CONSTRAINT access_log_via_check;
ALTER TABLE access_log ADD CONSTRAINT access_log_via_check CHECK (via IN ('local', 'password', 'header', 'anonymous', 'system'));

-- Still append-only, with one exception: an entry written before the chain existed may be given
-- its place once (seq, prev_hash, hash from NULL), and nothing else about it may change.
CREATE OR REPLACE FUNCTION access_log_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.seq IS NULL AND OLD.hash IS NULL
     AND NEW.id = OLD.id AND NEW.at = OLD.at AND NEW.actor = OLD.actor AND NEW.via = OLD.via
     AND NEW.address = OLD.address AND NEW.action = OLD.action
     AND NEW.number IS NOT DISTINCT FROM OLD.number AND NEW.party IS NOT DISTINCT FROM OLD.party
     AND NEW.details = OLD.details THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'access_log is append-only: entries are never changed';
END
$$;
