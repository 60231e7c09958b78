-- Witnesses of the access log (proxy/alerts/witness.ts): a channel marked as one gets the log's
-- signed head (proxy/access/signed-heads.ts) once a day and when an admin asks, through the outbox
-- like any notice, under its own kind. Someone who can edit the database and the heads file kept
-- beside the key still cannot reach the copies a witness holds.
ALTER TABLE alert_channels ADD COLUMN witness boolean NOT NULL DEFAULT false;

ALTER TABLE alert_outbox DROP CONSTRAINT alert_outbox_kind_check;
ALTER TABLE alert_outbox ADD CONSTRAINT alert_outbox_kind_check CHECK (kind IN ('firing', 'reminder', 'resolved', 'test', 'witness'));
