-- The background pipeline: job leases and wake-ups, webhooks, automation rules, notifications.

-- The claim that holds a running job. A worker finishes a job only while its lease is the
-- current one, so a worker that lost its lease (it stalled past locked_until and another took
-- the job) cannot overwrite the newer run's outcome.
ALTER TABLE jobs ADD COLUMN lease uuid;
ALTER TABLE jobs ADD COLUMN locked_by text;
-- workers claim per kind, oldest due first
DROP INDEX jobs_due;
CREATE INDEX jobs_due ON jobs (kind, run_at) WHERE status IN ('pending', 'running');
-- when the next pending job falls due, asked by every claim
CREATE INDEX jobs_next_due ON jobs (run_at) WHERE status = 'pending';
CREATE INDEX jobs_running ON jobs (locked_by) WHERE status = 'running';
CREATE INDEX jobs_finished ON jobs (updated_at) WHERE status IN ('done', 'failed');

-- One NOTIFY per inserting statement, sent at commit, so idle workers wake at once. It carries
-- nothing but 'due' (@effect/sql-pg drops empty payloads): a worker that wakes asks the table
-- what is due.
CREATE FUNCTION notify_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('jobs', 'due');
  RETURN NULL;
END
$$;
CREATE TRIGGER jobs_inserted AFTER INSERT ON jobs FOR EACH STATEMENT EXECUTE FUNCTION notify_jobs();

CREATE TABLE webhooks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  url text NOT NULL,
  events text[] NOT NULL,
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_project ON webhooks (project_id, created_at);

CREATE TABLE webhook_deliveries (
  -- sent as X-Service-Delivery and webhook-id, the same on every attempt
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  ticket_id uuid REFERENCES tickets(id) ON DELETE CASCADE,
  event text NOT NULL,
  -- the exact bytes sent and signed, so every attempt carries the same body
  body text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error text,
  next_attempt_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at DESC);

CREATE TABLE automation_rules (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- creation order, which is the order rules run in, even for rules made in one millisecond
  seq bigint GENERATED ALWAYS AS IDENTITY,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name text NOT NULL,
  event text NOT NULL,
  conditions jsonb NOT NULL,
  actions jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX automation_rules_event ON automation_rules (project_id, event, seq);

CREATE TABLE automation_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  rule_id uuid NOT NULL REFERENCES automation_rules(id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  ticket_id uuid REFERENCES tickets(id) ON DELETE CASCADE,
  -- the automation job; a re-run of the job after a crash records nothing twice
  job_id uuid NOT NULL,
  event text NOT NULL,
  matched boolean NOT NULL,
  -- what the run changed: [{type, value, applied}] (an action that changed nothing is not applied)
  actions jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (job_id, rule_id)
);
CREATE INDEX automation_runs_rule ON automation_runs (rule_id, created_at DESC);

CREATE TABLE notifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  message_id uuid REFERENCES messages(id) ON DELETE CASCADE,
  reason text NOT NULL,
  -- 'not_configured' without SMTP_URL; 'pending' until the mail server took it
  email_status text NOT NULL CHECK (email_status IN ('not_configured', 'pending', 'sent', 'failed')),
  email_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (agent_id, message_id, reason)
);
CREATE INDEX notifications_ticket ON notifications (ticket_id, created_at);

-- Duplicate detection compares a new ticket with the project's recent unresolved ones.
CREATE INDEX tickets_project_open ON tickets (project_id, created_at DESC) WHERE status NOT IN ('resolved', 'closed');
