-- The account-wide "customers waiting" rule (proxy/alerts/rules.ts customer-waiting-all), seeded on
-- with its defaults beside the per-number one: a backlog spread thin over many numbers, none of
-- which reaches the per-number threshold, is one alert for the account.
INSERT INTO alert_rules (id, urgent, params, reminder_minutes) VALUES
  ('customer-waiting-all', false, '{"minutes":120,"minThreads":10}', 240)
ON CONFLICT (id) DO NOTHING;
