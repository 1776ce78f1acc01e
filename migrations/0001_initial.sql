-- The whole schema of the first release. Every table carries project_id so that each query
-- can be scoped to the caller's project with an index, never by joining through a parent.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Search excerpts are HTML (matches wrapped in <mark>): the text around them must be escaped.
CREATE FUNCTION html_escape(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS
  $$ SELECT replace(replace(replace($1, '&', '&amp;'), '<', '&lt;'), '>', '&gt;') $$;

CREATE TABLE service_settings (
  name text PRIMARY KEY,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE projects (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  -- last ticket_number handed out; bumped under the row lock of the creating transaction,
  -- so numbers are gapless among committed tickets
  ticket_seq integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name text,
  scope text NOT NULL CHECK (scope IN ('full', 'widget')),
  key_hash bytea NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_project ON api_keys (project_id);

CREATE TABLE contacts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  email text NOT NULL,
  name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  search tsvector GENERATED ALWAYS AS (
    to_tsvector('simple', coalesce(name, '') || ' ' || replace(replace(email, '@', ' '), '.', ' '))
  ) STORED,
  UNIQUE (project_id, email)
);
CREATE INDEX contacts_search ON contacts USING gin (search);
CREATE INDEX contacts_email_trgm ON contacts USING gin (email gin_trgm_ops);

CREATE TABLE agents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  email text NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, email)
);

CREATE TABLE tickets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  ticket_number integer NOT NULL,
  subject text NOT NULL,
  body text NOT NULL,
  status text NOT NULL DEFAULT 'open'
    CHECK (status IN ('open', 'in_progress', 'waiting', 'resolved', 'closed')),
  priority text NOT NULL DEFAULT 'p3_medium'
    CHECK (priority IN ('p1_critical', 'p2_high', 'p3_medium', 'p4_low')),
  -- 'human' when a submitter or an agent chose it; triage never overwrites a human value
  priority_source text CHECK (priority_source IN ('ai', 'human')),
  priority_confidence double precision,
  category text CHECK (category IN ('billing', 'bug', 'account', 'feature_request', 'question', 'other')),
  category_source text CHECK (category_source IN ('ai', 'human')),
  category_confidence double precision,
  sentiment text CHECK (sentiment IN ('negative', 'neutral', 'positive')),
  sentiment_score double precision,
  sentiment_source text CHECK (sentiment_source IN ('ai', 'human')),
  sentiment_confidence double precision,
  triage_status text NOT NULL DEFAULT 'pending' CHECK (triage_status IN ('pending', 'done', 'failed')),
  triage_model text,
  source text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'widget', 'email', 'form')),
  sender_email text,
  sender_name text,
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  assignee_id uuid REFERENCES agents(id) ON DELETE SET NULL,
  metadata jsonb,
  duplicate_of uuid REFERENCES tickets(id) ON DELETE SET NULL,
  linked_issues jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', subject), 'A') || setweight(to_tsvector('english', body), 'B')
  ) STORED,
  UNIQUE (project_id, ticket_number)
);
CREATE INDEX tickets_search ON tickets USING gin (search);
CREATE INDEX tickets_project_created ON tickets (project_id, created_at DESC);
CREATE INDEX tickets_subject_trgm ON tickets USING gin (subject gin_trgm_ops);

CREATE TABLE tags (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX tags_project_name ON tags (project_id, lower(name));

CREATE TABLE ticket_tags (
  ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
  tag_id uuid NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (ticket_id, tag_id)
);

CREATE TABLE messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- breaks ties between messages written in the same millisecond
  seq bigint GENERATED ALWAYS AS IDENTITY,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
  author_type text NOT NULL CHECK (author_type IN ('contact', 'agent', 'system')),
  contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
  agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
  body text NOT NULL,
  internal boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_ticket ON messages (ticket_id, created_at, seq);

CREATE TABLE articles (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  title text NOT NULL,
  slug text NOT NULL,
  body text NOT NULL,
  category text NOT NULL,
  published boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') ||
    setweight(to_tsvector('english', category), 'B') ||
    setweight(to_tsvector('english', body), 'C')
  ) STORED,
  UNIQUE (project_id, slug)
);
CREATE INDEX articles_search ON articles USING gin (search);
CREATE INDEX articles_project ON articles (project_id, published);

-- The transactional outbox: every write with follow-up work inserts its jobs here in the
-- same transaction; background workers claim due rows with FOR UPDATE SKIP LOCKED.
CREATE TABLE jobs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind text NOT NULL,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  ticket_id uuid REFERENCES tickets(id) ON DELETE CASCADE,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  run_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_due ON jobs (run_at) WHERE status IN ('pending', 'running');
CREATE INDEX jobs_ticket ON jobs (ticket_id);

CREATE TABLE idempotency_keys (
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  request_hash text NOT NULL,
  response_status integer NOT NULL,
  response_body jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, idempotency_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
