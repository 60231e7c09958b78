-- Sync leases, modelled on graphile-worker's locked_by/locked_at: a server holding a number's
-- sync renews locked_at while it works (a heartbeat), so the lease of a server that died
-- expires and another server (or this one after a restart) takes the number over. The
-- PostgreSQL advisory lock it replaces lived on a connection and did not say who held it.
ALTER TABLE index_numbers ADD COLUMN locked_by text;
ALTER TABLE index_numbers ADD COLUMN locked_at timestamptz;
-- Other tids the account listing gave for the same number (an account may list a number twice):
-- the sync tries them when the upstream refuses the first.
ALTER TABLE index_numbers ADD COLUMN other_tids text[] NOT NULL DEFAULT '{}';
-- When an "index all" no longer found the number in the account's listing. The messages stay
-- (forget removes them); the number is not re-synced and is never reported fresh.
ALTER TABLE index_numbers ADD COLUMN removed_at timestamptz;
