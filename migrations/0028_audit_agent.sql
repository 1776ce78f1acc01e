-- The agent an operator action was done as: a desk acting for one of its agents names them, and so
-- does a reply's author; the actor says so with 'agent'.
ALTER TABLE audit_log ADD COLUMN agent_email text;
ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_check CHECK (actor IN ('admin_token', 'agent', 'cli'));
CREATE INDEX audit_log_of_agent ON audit_log (agent_email, id DESC) WHERE agent_email IS NOT NULL;
