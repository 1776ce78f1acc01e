-- An endpoint registered without a list of events takes every event, including kinds added after
-- it was registered; one that chose its events keeps exactly those.
ALTER TABLE webhooks ADD COLUMN all_events boolean NOT NULL DEFAULT false;

UPDATE webhooks SET all_events = true
WHERE events @> ARRAY['ticket_created', 'ticket_replied', 'ticket_resolved', 'ticket_status_changed', 'ticket_assigned']::text[];
