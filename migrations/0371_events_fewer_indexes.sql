-- Issue 33: every credit appends its deposit.confirmed event, which wrote 7 index entries. Two of
-- them go (EXPLAIN on 200,000 events: docs/benchmarks.md, issue 33 row).

-- events_merchant_object (merchant_id, object_id) went: GET /v1/events?object_id= reads the
-- (object_id, object_version) unique index, whose first column is as selective (an object's events
-- are its few versions) and which appendEvents needs anyway for the next version; the merchant is
-- checked on those few rows.
DROP INDEX events_merchant_object;

-- events_created becomes BRIN: events are appended with created_at = now(), so the table is in
-- created_at order and a block range summary (min, max) finds the old ones for the retention prune
-- and a replay's [from, to) (`payments webhooks replay`) without a btree entry per event. Neither
-- needs rows in order: the prune deletes whatever is past retention, 5,000 at a time, until none is
-- left (prune-events.ts no longer sorts them, which over a BRIN scan would sort every old row per batch).
DROP INDEX events_created;
CREATE INDEX events_created ON events USING brin (created_at) WITH (autosummarize = on);
