-- Alerts (proxy/alerts/): rules the team tunes, the alerts they raise, the channels notices go to,
-- and a durable outbox. A notice is written to alert_outbox in the same transaction that decides
-- it (a firing, a reminder, a resolution), and sent from there: a crash between the decision and
-- the send leaves the row pending, and the next server to start sends it. The shape is
-- graphile-worker's: claimed with FOR UPDATE SKIP LOCKED, attempts and run_at in the row.
-- No customer data is kept here beyond the owned numbers an alert is about; a channel with
-- details turned on gets customer phones in its notices' payload (kept until the row is purged).

-- One row per rule, seeded on by default; params are the rule's thresholds (proxy/alerts/rules.ts
-- checks them), reminder_minutes how often a firing, unacknowledged alert is sent again.
CREATE TABLE alert_rules (
  id                text PRIMARY KEY,
  enabled           boolean NOT NULL DEFAULT true,
  -- Urgent rules ignore a channel's quiet hours.
  urgent            boolean NOT NULL DEFAULT false,
  params            jsonb NOT NULL DEFAULT '{}',
  reminder_minutes  integer NOT NULL DEFAULT 240 CHECK (reminder_minutes BETWEEN 5 AND 10080),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  updated_by        text
);

INSERT INTO alert_rules (id, urgent, params, reminder_minutes) VALUES
  ('failure-spike', true, '{"windowMinutes":60,"minOutbound":20,"minFailed":5,"minRate":0.2,"baselineHours":168,"factor":3}', 60),
  ('customer-waiting', false, '{"minutes":120,"minThreads":1}', 240),
  ('sent-after-opt-out', true, '{"lookbackHours":24}', 1440),
  ('sync-stalled', false, '{"minutes":15}', 240),
  ('sync-failing', false, '{"failures":3}', 240),
  ('credentials-refused', true, '{}', 240),
  ('index-behind', false, '{"messages":1000}', 1440),
  ('access-log', true, '{"everyMinutes":60}', 240),
  ('callback-changed', true, '{"holdHours":24}', 1440),
  ('endpoint-failing', true, '{"failures":3,"recoveries":2}', 60),
  ('cert-expiring', false, '{"days":14,"holdHours":26}', 1440);

-- Where notices go. Channels declared by the server's configuration (ALERT_WEBHOOK_URL, …) are
-- not rows: they live in the server's memory under ids starting "env-".
CREATE TABLE alert_channels (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind         text NOT NULL CHECK (kind IN ('webhook', 'slack', 'email')),
  name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
  -- The webhook's or Slack's URL (a Slack URL is itself a secret: never sent back), or the email
  -- recipients (comma-separated).
  target       text NOT NULL,
  -- whsec_<base64> for a webhook; never sent back to the browser.
  secret       text,
  enabled      boolean NOT NULL DEFAULT true,
  -- Customer phones in the notices (off by default: they stay behind the sign-in).
  details      boolean NOT NULL DEFAULT false,
  -- Quiet hours (local hour of quiet_zone, start inclusive, end exclusive): non-urgent notices wait.
  quiet_start  smallint CHECK (quiet_start BETWEEN 0 AND 23),
  quiet_end    smallint CHECK (quiet_end BETWEEN 0 AND 23),
  quiet_zone   text NOT NULL DEFAULT 'UTC',
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- One row per firing: opened when a rule's condition holds for a subject (a number, an endpoint,
-- "all"), resolved when it stops. At most one firing row per (rule, subject): the dedup key.
CREATE TABLE alert_alerts (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  rule             text NOT NULL,
  subject          text NOT NULL,
  number           text,
  state            text NOT NULL DEFAULT 'firing' CHECK (state IN ('firing', 'resolved')),
  title            text NOT NULL,
  detail           text NOT NULL,
  count            integer,
  link             text,
  -- Customer phones behind the alert, for channels with details on only.
  private          jsonb,
  started_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  resolved_at      timestamptz,
  -- When a notice about it last went to the outbox (null: none yet, e.g. silenced when it began).
  notified_at      timestamptz,
  acked_at         timestamptz,
  acked_by         text
);
CREATE UNIQUE INDEX alert_alerts_open ON alert_alerts (rule, subject) WHERE state = 'firing';
CREATE INDEX alert_alerts_recent ON alert_alerts (started_at DESC);

CREATE TABLE alert_silences (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  rule        text,
  number      text,
  until       timestamptz NOT NULL,
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (rule IS NOT NULL OR number IS NOT NULL)
);

-- The durable outbox: one row per notice per channel.
CREATE TABLE alert_outbox (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The idempotency key sent with every attempt (Standard Webhooks' webhook-id).
  key         text NOT NULL UNIQUE,
  channel     text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('firing', 'reminder', 'resolved', 'test')),
  -- The notice as decided (rendered per channel at send time).
  payload     jsonb NOT NULL,
  state       text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'dead')),
  attempts    integer NOT NULL DEFAULT 0,
  run_at      timestamptz NOT NULL,
  -- A claim: who sends it now and since when; a claim older than the lease is taken over.
  locked_by   text,
  locked_at   timestamptz,
  last_error  text,
  created_at  timestamptz NOT NULL,
  sent_at     timestamptz
);
CREATE INDEX alert_outbox_due ON alert_outbox (run_at, id) WHERE state = 'pending';
CREATE INDEX alert_outbox_channel ON alert_outbox (channel, id DESC);

-- Each attempt: when, the answer's status (null when none came), how long it took.
CREATE TABLE alert_attempts (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  outbox_id  bigint NOT NULL REFERENCES alert_outbox (id) ON DELETE CASCADE,
  at         timestamptz NOT NULL,
  status     integer,
  ms         integer NOT NULL,
  error      text
);
CREATE INDEX alert_attempts_outbox ON alert_attempts (outbox_id, id);

-- What the callback watch reported, kept so a rule can read it at its next evaluation: the last
-- finding per (kind, subject), and a run of failures or recoveries for endpoints.
CREATE TABLE alert_findings (
  kind       text NOT NULL,
  subject    text NOT NULL,
  number     text,
  detail     text NOT NULL,
  at         timestamptz NOT NULL,
  -- endpoint.failing / endpoint.recovered in a row (the other reset to 0).
  fails      integer NOT NULL DEFAULT 0,
  goods      integer NOT NULL DEFAULT 0,
  PRIMARY KEY (kind, subject)
);

-- The access log's verification, when it last ran and what it said (the security rule runs it
-- on a schedule, not at every evaluation).
CREATE TABLE alert_checks (
  name     text PRIMARY KEY,
  at       timestamptz NOT NULL,
  ok       boolean NOT NULL,
  message  text NOT NULL
);
