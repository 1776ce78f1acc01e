-- The trace a job belongs to: the W3C traceparent of the request (or job) that caused it, so
-- that a trace shows a ticket from its request to its deliveries. Null when tracing is off.
ALTER TABLE jobs ADD COLUMN trace_context text;
