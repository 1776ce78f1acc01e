-- The tickets a new one can be a duplicate of: open and not marked themselves. The duplicate
-- check reads the newest of them in a project; without this index it walked past every ticket
-- already marked, which under a flood of look-alike tickets is nearly all of them.
CREATE INDEX tickets_duplicate_candidates ON tickets (project_id, created_at DESC, ticket_number DESC)
  WHERE duplicate_of IS NULL AND status NOT IN ('resolved', 'closed');
