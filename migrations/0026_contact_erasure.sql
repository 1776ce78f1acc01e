-- A contact erased on the owner's request keeps its row, so the ids that point at it stay valid,
-- but none of its data: its address becomes 'erased:' and its own id, and only the SHA-256 (hex) of
-- the address, lower-cased, is kept, so a second erasure of the same address is recognised. The
-- unique (project_id, email) then lets the address write in again as a new contact. Null columns
-- are added without rewriting the table.
ALTER TABLE contacts ADD COLUMN email_hash text;
ALTER TABLE contacts ADD COLUMN erased_at timestamptz;
ALTER TABLE contacts ADD CONSTRAINT contacts_erased_with_hash CHECK (erased_at IS NULL OR email_hash IS NOT NULL);
CREATE INDEX contacts_erased ON contacts (project_id, email_hash) WHERE erased_at IS NOT NULL;

-- An export and an erasure find every message a contact wrote in the project; without this they
-- read the whole messages table. Partial: agents' and system messages never carry a contact.
CREATE INDEX messages_of_contact ON messages (contact_id) WHERE contact_id IS NOT NULL;
