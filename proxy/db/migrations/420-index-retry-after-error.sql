-- A number whose sync gave up on transient failures (state 'error': an outage, a run of 5xx)
-- is tried again by the server on its own, with a back-off: when it last failed, and how many
-- times in a row (proxy/index/sync/leases.ts dueNumbers). A sync that ends well sets both back.
ALTER TABLE index_numbers ADD COLUMN failed_at timestamptz;
ALTER TABLE index_numbers ADD COLUMN failures integer NOT NULL DEFAULT 0;
