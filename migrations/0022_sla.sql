-- Service levels: a project's business hours, its SLA policies (first match by position wins),
-- and each ticket's due times as the sla_update and sla_check jobs keep them.
CREATE TABLE business_hours (
  project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  -- {time_zone, weekly: {monday: [{start, end}], ...}, holidays: ["YYYY-MM-DD", ...]}
  schedule jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sla_policies (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name text NOT NULL,
  position integer NOT NULL,
  -- the automation rules' [{field, op, value}]: every one must hold
  conditions jsonb NOT NULL DEFAULT '[]',
  first_response_minutes integer CHECK (first_response_minutes BETWEEN 1 AND 525600),
  resolution_minutes integer CHECK (resolution_minutes BETWEEN 1 AND 525600),
  hours text NOT NULL DEFAULT 'calendar' CHECK (hours IN ('calendar', 'business')),
  pause_when_waiting boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (first_response_minutes IS NOT NULL OR resolution_minutes IS NOT NULL)
);
CREATE INDEX sla_policies_project ON sla_policies (project_id, position, created_at);

CREATE TABLE ticket_slas (
  ticket_id uuid PRIMARY KEY REFERENCES tickets(id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  policy_id uuid REFERENCES sla_policies(id) ON DELETE SET NULL,
  -- as it was when the policy applied, so a deleted policy's tickets still say what they were held to
  policy_name text NOT NULL,
  first_response_due_at timestamptz,
  first_response_met_at timestamptz,
  first_response_breached_at timestamptz,
  resolution_due_at timestamptz,
  resolution_met_at timestamptz,
  resolution_breached_at timestamptz,
  -- while waiting on the customer: since when; time spent paused is credited to the target, in
  -- the policy's own measure (business or calendar milliseconds)
  resolution_paused_at timestamptz,
  resolution_credit_ms bigint NOT NULL DEFAULT 0,
  -- the next unmet, unpaused due time and whether a target was breached: what the list filters
  -- and sorts by, kept with the row so the list reads one index
  next_due_at timestamptz,
  breached boolean NOT NULL DEFAULT false
);
CREATE INDEX ticket_slas_next_due ON ticket_slas (project_id, next_due_at, ticket_id) WHERE next_due_at IS NOT NULL;
CREATE INDEX ticket_slas_breached ON ticket_slas (project_id, ticket_id) WHERE breached;
