-- An Idempotency-Key belongs to the API key that sent it: another key of the same project (the
-- site's backend, and a widget's visitors) must never be answered with what it stored. Entries
-- from before carry no key; they are read as before, by any key of their project, until they run
-- out at 24 hours, so a retry that spans the upgrade still finds its first answer.
ALTER TABLE idempotency_keys ADD COLUMN api_key_id uuid REFERENCES api_keys(id) ON DELETE CASCADE;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
CREATE UNIQUE INDEX idempotency_keys_owner ON idempotency_keys (project_id, api_key_id, idempotency_key);
