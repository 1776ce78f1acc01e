-- Satisfaction (CSAT): whether a project asks a resolved ticket's contact to rate it, on which
-- scale, and how long after the resolution. Columns of the project, so the outbox can read the
-- delay in the statement that writes the request's job.
ALTER TABLE projects ADD COLUMN satisfaction_enabled boolean NOT NULL DEFAULT true;
ALTER TABLE projects ADD COLUMN satisfaction_scale text NOT NULL DEFAULT 'five'
  CHECK (satisfaction_scale IN ('five', 'good_bad'));
ALTER TABLE projects ADD COLUMN satisfaction_delay_minutes integer NOT NULL DEFAULT 0
  CHECK (satisfaction_delay_minutes BETWEEN 0 AND 525600);

-- One request per ticket, ever: a ticket resolved again after a reopening is not asked twice.
-- Only the SHA-256 of the link's token is kept, as for API keys. `scale` is the project's when
-- it asked, so a later change of the setting does not make a recorded rating unreadable.
CREATE TABLE satisfaction_requests (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  ticket_id uuid NOT NULL UNIQUE REFERENCES tickets(id) ON DELETE CASCADE,
  token_hash bytea NOT NULL UNIQUE,
  scale text NOT NULL CHECK (scale IN ('five', 'good_bad')),
  requested_at timestamptz NOT NULL,
  -- set once the link went out by mail: a retried job mails again only until then
  mailed_at timestamptz,
  rating text CHECK (rating IN ('1', '2', '3', '4', '5', 'good', 'bad')),
  comment text,
  rated_at timestamptz,
  CHECK ((rating IS NULL) = (rated_at IS NULL))
);
CREATE INDEX satisfaction_requests_rated ON satisfaction_requests (project_id, rated_at) WHERE rated_at IS NOT NULL;
