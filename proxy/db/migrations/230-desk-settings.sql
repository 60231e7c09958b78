-- The support desk's team settings: one row. thresholdMinutes is how long an unanswered
-- customer waits before the needs-reply queue shows them (15 minutes unless an admin sets it).
CREATE TABLE desk_settings (
  id                 smallint PRIMARY KEY CHECK (id = 1),
  threshold_minutes  integer NOT NULL CHECK (threshold_minutes >= 0),
  updated_at         timestamptz NOT NULL,
  updated_by         text NOT NULL
);
