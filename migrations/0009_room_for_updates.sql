-- A ticket is updated within a second of being written (triage), and a webhook delivery once per
-- attempt. On a full page such an update goes to another page, and every index of the table gets
-- an entry for the new row version: for a ticket that is eleven, two of them GIN (its search vector
-- and the subject's trigrams). With room left on the page, an update that changes no indexed
-- column stays on it (a HOT update) and touches no index. A ticket's row carries its stored search
-- vector, so its new version is about as large as the old: half a page leaves room for one each.
-- Measured on 20,000 rows of the usual size, one update of each as the pipeline makes it:
--   tickets (triage): 1,591 ms at full pages (0 % HOT), 442 ms at 60 % (67 %), 193 ms at 50 % (100 %)
--   webhook_deliveries (an attempt): 245 ms at full pages (0 %), 192 ms at 70 % (40 %), 60 ms at 50 % (100 %)
-- The tables end the same size: at full pages the new versions fill pages of their own. Pages
-- written from now on keep the room; older ones are left as they are.
ALTER TABLE tickets SET (fillfactor = 50);
ALTER TABLE webhook_deliveries SET (fillfactor = 50);
