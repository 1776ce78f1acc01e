-- The operator's lists and a contact's tickets page on a unique key (keyset paging). The default
-- order, newest first, walks the (project_id, ticket_number) unique index backwards; these serve
-- the other order and the filters an operator uses most, so a page at 100k tickets reads a page's
-- worth of rows instead of the whole project.
CREATE INDEX tickets_project_updated ON tickets (project_id, updated_at DESC, id DESC);
CREATE INDEX tickets_project_status ON tickets (project_id, status, ticket_number DESC);
CREATE INDEX tickets_project_assignee ON tickets (project_id, assignee_id, ticket_number DESC);
-- addresses are stored lower-cased; the index on lower() keeps the match case-insensitive even so
CREATE INDEX tickets_project_sender ON tickets (project_id, lower(sender_email), ticket_number DESC);
-- the tag filter starts from the tag: its tickets
CREATE INDEX ticket_tags_tag ON ticket_tags (tag_id);
CREATE INDEX articles_project_created ON articles (project_id, created_at DESC, id DESC);
