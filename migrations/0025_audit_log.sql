-- Who did what through the operator API or the CLI, kept as it was written: rows are added, never
-- changed or removed (a trigger refuses both), so the log can be trusted after the fact.
CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  -- the project acted on; null for actions of no one project (a project created, the admin token)
  project_id uuid,
  actor text NOT NULL CHECK (actor IN ('admin_token', 'cli')),
  -- the operator API's group and endpoint, e.g. webhooks.replay
  action text NOT NULL,
  -- the ids the action named (path parameters), e.g. {"webhook_id": "…"}
  target jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- the HTTP status answered; null when the CLI worked on the database itself
  status integer,
  source_ip text,
  user_agent text
);
CREATE INDEX audit_log_of_project ON audit_log (project_id, id DESC);
CREATE INDEX audit_log_of_action ON audit_log (action, id DESC);

CREATE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only';
END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_is_append_only();
