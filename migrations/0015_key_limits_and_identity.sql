-- A key may carry its own budget of requests a minute; null is the service's RATE_LIMIT_PER_MINUTE.
ALTER TABLE api_keys ADD COLUMN rate_limit_per_minute integer
  CHECK (rate_limit_per_minute BETWEEN 1 AND 1000000);

-- A project's identity secret signs (HS256) the tokens a site gives its logged-in visitors, so the
-- service must be able to read it back: it is kept as it is, shown once when made, never again.
-- Requiring verified visitors without a secret would refuse every widget visitor, so it cannot be.
-- Constant defaults add the columns without rewriting the tables.
ALTER TABLE projects
  ADD COLUMN identity_secret text,
  ADD COLUMN identity_secret_created_at timestamptz,
  ADD COLUMN require_verified_visitors boolean NOT NULL DEFAULT false,
  ADD CONSTRAINT projects_verified_visitors_need_a_secret
    CHECK (NOT require_verified_visitors OR identity_secret IS NOT NULL),
  ADD CONSTRAINT projects_identity_secret_with_its_time
    CHECK ((identity_secret IS NULL) = (identity_secret_created_at IS NULL));
