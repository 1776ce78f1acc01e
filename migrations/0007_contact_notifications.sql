-- An agent's public reply tells the ticket's contact, so a notification names its recipient as
-- either an agent or a contact, never both and never neither. Each (recipient, message, reason)
-- is recorded once, as agent notifications already are: a job that runs again finds its record.
ALTER TABLE notifications ALTER COLUMN agent_id DROP NOT NULL;
ALTER TABLE notifications ADD COLUMN contact_id uuid REFERENCES contacts(id) ON DELETE CASCADE;
ALTER TABLE notifications ADD CONSTRAINT notifications_one_recipient CHECK (num_nonnulls(agent_id, contact_id) = 1);
ALTER TABLE notifications ADD CONSTRAINT notifications_contact_message_reason UNIQUE (contact_id, message_id, reason);
