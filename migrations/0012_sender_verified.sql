-- Whether a ticket's sender address and name come from a trusted caller: a full key (the site's
-- own backend) vouches for them, a widget key's visitor can type anyone's. Nothing recorded which
-- key filed the tickets already here, so they count as unverified; a new ticket always sets it.
-- A constant default adds the column without rewriting the table.
ALTER TABLE tickets ADD COLUMN sender_verified boolean NOT NULL DEFAULT false;
