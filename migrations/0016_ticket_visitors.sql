-- The verified visitor (the site's own user id, the `sub` of the token its backend signed) a
-- ticket belongs to, so "Your requests" follows them to any device.
ALTER TABLE tickets ADD COLUMN visitor_sub text;
CREATE INDEX tickets_of_visitor ON tickets (project_id, visitor_sub, ticket_number DESC) WHERE visitor_sub IS NOT NULL;
