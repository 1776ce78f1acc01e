-- What keeps an endpoint healthy for months: its own retry schedule and throttle, the time it has
-- failed since its last success (which disables it after a while), a secret rotated out that still
-- signs for an overlap, and replays of a range of its deliveries.
ALTER TABLE webhooks ADD COLUMN retry_schedule text NOT NULL DEFAULT 'default'
  CHECK (retry_schedule IN ('default', 'extended'));
ALTER TABLE webhooks ADD COLUMN max_per_second integer CHECK (max_per_second BETWEEN 1 AND 10000);
ALTER TABLE webhooks ADD COLUMN disabled_at timestamptz;
ALTER TABLE webhooks ADD COLUMN disabled_reason text;
-- the first failed attempt after the last success; null while deliveries get through
ALTER TABLE webhooks ADD COLUMN failing_since timestamptz;
ALTER TABLE webhooks ADD COLUMN previous_secret text;
ALTER TABLE webhooks ADD COLUMN previous_secret_until timestamptz;
-- the throttle's count of attempts in the second it names (unix seconds), shared by every instance
ALTER TABLE webhooks ADD COLUMN throttle_second bigint;
ALTER TABLE webhooks ADD COLUMN throttle_count integer NOT NULL DEFAULT 0;

CREATE TABLE webhook_replays (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  since timestamptz NOT NULL,
  until timestamptz NOT NULL,
  only_failed boolean NOT NULL,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done')),
  total integer NOT NULL,
  delivered integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE INDEX webhook_replays_of_webhook ON webhook_replays (webhook_id, created_at DESC);

ALTER TABLE webhook_deliveries ADD COLUMN replay_id uuid REFERENCES webhook_replays(id) ON DELETE SET NULL;
CREATE INDEX webhook_deliveries_replay ON webhook_deliveries (replay_id, created_at, id) WHERE status = 'pending';
