-- Typed fields a project defines for its tickets. The type never changes once created, so the
-- values already on tickets always read as that type.
CREATE TABLE custom_fields (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key text NOT NULL,
  label text NOT NULL,
  type text NOT NULL CHECK (type IN ('text', 'number', 'boolean', 'date', 'select')),
  options jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, key)
);

-- NULL when a ticket has none, so a create without fields writes nothing more
ALTER TABLE tickets ADD COLUMN custom_fields jsonb;

-- containment (`custom_fields @> '{"plan": "pro"}'`) is how the list filters on a field
-- partial: tickets without fields (most of them) cost the index nothing on create
CREATE INDEX tickets_custom_fields ON tickets USING gin (custom_fields jsonb_path_ops) WHERE custom_fields IS NOT NULL;
