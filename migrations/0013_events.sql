-- Every event of every project in one log, for the event streams. An event is written in the
-- statement of the change that caused it, as its webhook deliveries are, and numbered afterwards
-- by one sequencer at a time (under an advisory lock): a position names a committed event, and
-- every event numbered later has a higher one, so a stream resumed after a position misses
-- nothing and repeats nothing. Positions are gapless: each run continues from the highest.
CREATE TABLE events (
  id bigserial PRIMARY KEY,
  position bigint UNIQUE,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  ticket_id uuid,
  kind text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX events_unnumbered ON events (id) WHERE position IS NULL;
CREATE INDEX events_of_project ON events (project_id, position) WHERE position IS NOT NULL;
CREATE INDEX events_of_ticket ON events (ticket_id, position) WHERE position IS NOT NULL;

-- the sequencers wake when events are written (one NOTIFY a statement), the readers when numbered
CREATE FUNCTION notify_events_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('events', 'written');
  RETURN NULL;
END $$;
CREATE TRIGGER events_written AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION notify_events_written();
