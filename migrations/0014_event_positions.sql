-- An event's position is given when it is written, not by a sequencer afterwards: the writing
-- transaction's id times a million, plus the event's rank among that transaction's events.
-- A reader takes only positions below the oldest transaction still running (every transaction
-- with a lower id has ended, so nothing can appear below what it has read): positions increase in
-- the order readers see them, a transaction's events stay together, and one that began writing
-- after another committed comes after it. Nothing is rewritten, and writers never wait for each
-- other.

-- `base` shifts transaction ids forward after a restore into another cluster (whose ids start
-- lower), so positions keep increasing; `pruned_through` is the highest position retention removed.
CREATE TABLE event_clock (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  base bigint NOT NULL DEFAULT 0,
  pruned_through bigint NOT NULL DEFAULT 0
);
INSERT INTO event_clock DEFAULT VALUES;

-- the position before this transaction's next event: its events are numbered from there on
CREATE FUNCTION event_position_before_next() RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT x.slot * 1000000 - 1 + (
    SELECT count(*) FROM events WHERE position >= x.slot * 1000000 AND position < (x.slot + 1) * 1000000)
  FROM (SELECT pg_current_xact_id()::text::bigint + base AS slot FROM event_clock) x
$$;

-- every position below this one is final: no transaction still running can write there
CREATE FUNCTION event_horizon() RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT (pg_snapshot_xmin(pg_current_snapshot())::text::bigint + base) * 1000000 FROM event_clock
$$;

-- what the sequencer had not numbered yet goes after what it had, in the order it was written
UPDATE events e SET position = n.position FROM (
  SELECT id, (SELECT coalesce(max(position), 0) FROM events) + row_number() OVER (ORDER BY id) AS position
  FROM events WHERE position IS NULL
) n WHERE e.id = n.id;

DROP INDEX events_unnumbered;
DROP INDEX events_of_project;
DROP INDEX events_of_ticket;
ALTER TABLE events ALTER COLUMN position SET NOT NULL;
CREATE INDEX events_of_project ON events (project_id, position);
CREATE INDEX events_of_ticket ON events (ticket_id, position);

-- the readers wake when events are written (one NOTIFY a statement)
CREATE OR REPLACE FUNCTION notify_events_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('events', '');
  RETURN NULL;
END $$;
