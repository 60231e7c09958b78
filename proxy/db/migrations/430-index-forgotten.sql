-- When an admin forgot a number's messages. A forgotten number stays out of the index's own
-- paths (the periodic re-sync, the refresh a history view starts) until someone asks for it by
-- name or presses "Index all", which the access log records (proxy/index/sync/queue.ts).
ALTER TABLE index_numbers ADD COLUMN forgotten_at timestamptz;
