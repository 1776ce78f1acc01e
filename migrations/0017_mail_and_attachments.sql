-- The address mail to a project is sent to; a reply address is this one with `+token` added.
ALTER TABLE projects ADD COLUMN inbound_address text;
CREATE UNIQUE INDEX projects_inbound_address ON projects (inbound_address) WHERE inbound_address IS NOT NULL;

-- A reply address names a ticket and who was written to with an unguessable token, so an answer
-- finds its ticket and nobody can reach a ticket by guessing. One per ticket and recipient.
CREATE TABLE mail_threads (
  token text PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
  agent_id uuid REFERENCES agents(id) ON DELETE CASCADE,
  contact_id uuid REFERENCES contacts(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT mail_threads_one_recipient CHECK (num_nonnulls(agent_id, contact_id) = 1)
);
CREATE UNIQUE INDEX mail_threads_agent ON mail_threads (ticket_id, agent_id) WHERE agent_id IS NOT NULL;
CREATE UNIQUE INDEX mail_threads_contact ON mail_threads (ticket_id, contact_id) WHERE contact_id IS NOT NULL;

-- Every mail that came in to a ticket or went out about one, by its Message-ID: answers find their
-- ticket through In-Reply-To and References, a mail delivered twice files once, and the service
-- knows its own mail when it comes back.
-- Its ticket is checked at commit, so a new ticket's mail and files are written before the ticket
-- row, whose statement takes the project's lock for the ticket number: the lock is then held only
-- from that statement to the commit.
CREATE TABLE mail_messages (
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  rfc_message_id text NOT NULL,
  ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  message_id uuid REFERENCES messages(id) ON DELETE SET NULL,
  direction text NOT NULL CHECK (direction IN ('in', 'out')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, rfc_message_id)
);
CREATE INDEX mail_messages_ticket ON mail_messages (ticket_id, created_at);

-- The Message-ID a notification's mail carries, chosen once, so a retried send is the same mail.
ALTER TABLE notifications ADD COLUMN rfc_message_id text;

-- Files of a ticket's opening message (message_id null) or of a later one. An upload waits with
-- no ticket until a create or a message names it, and is pruned if none does. Its ticket is
-- checked at commit, as a mail's is.
CREATE TABLE attachments (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  ticket_id uuid REFERENCES tickets(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  message_id uuid REFERENCES messages(id) ON DELETE CASCADE,
  filename text NOT NULL,
  content_type text NOT NULL,
  size integer NOT NULL CHECK (size >= 0),
  sha256 text NOT NULL,
  -- the bytes, unless object storage holds them under storage_key
  content bytea,
  storage_key text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT attachments_stored CHECK (num_nonnulls(content, storage_key) = 1),
  CONSTRAINT attachments_message_of_ticket CHECK (message_id IS NULL OR ticket_id IS NOT NULL)
);
CREATE INDEX attachments_ticket ON attachments (ticket_id, created_at) WHERE ticket_id IS NOT NULL;
CREATE INDEX attachments_message ON attachments (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX attachments_waiting ON attachments (created_at) WHERE ticket_id IS NULL;

-- How many tickets one address filed by mail lately, for the per-sender limit.
CREATE INDEX tickets_mail_sender ON tickets (project_id, sender_email, created_at) WHERE source = 'email';
