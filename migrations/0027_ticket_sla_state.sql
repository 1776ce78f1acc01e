-- What the ticket list shows of a ticket's SLA, kept on the ticket by the jobs that keep
-- ticket_slas: `!` first when a target was breached, then the next due time (ISO 8601, UTC, to
-- the millisecond); null without an SLA. A page then reads no other table for it, which a lookup
-- a row cost in planning on every list.
ALTER TABLE tickets ADD COLUMN sla_state text;

UPDATE tickets t SET sla_state = CASE WHEN s.breached THEN '!' ELSE '' END
  || coalesce(to_char(s.next_due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '')
FROM ticket_slas s WHERE s.ticket_id = t.id;
