-- A ticket merged into another keeps its row, closed, with a pointer to where its conversation
-- went: reads of it answer the target's id, and a message sent to it lands on the target.
ALTER TABLE tickets ADD COLUMN merged_into_id uuid REFERENCES tickets(id) ON DELETE SET NULL;
ALTER TABLE tickets ADD COLUMN merged_at timestamptz;

-- A ticket's reads list the tickets merged into it (who may see it), and a merge re-points them.
CREATE INDEX tickets_merged_into ON tickets (merged_into_id) WHERE merged_into_id IS NOT NULL;
