-- Issue 33: every credit appends its deposit.confirmed event, which wrote 7 index entries. Two of
-- them go (EXPLAIN on 200,000 events over 5 merchants: docs/benchmarks.md, issue 33 row).

-- events_merchant_object (merchant_id, object_id) went: GET /v1/events?object_id= reads the
-- (object_id, object_version) unique index, whose first column is as selective (an object's events
-- are its few versions) and which appendEvents needs anyway for the next version; the merchant is
-- checked on those few rows.
DROP INDEX events_merchant_object;

-- events_created (created_at) went. Its two reads, the retention prune and `payments webhooks
-- replay` (events created in [from, to)), now go merchant by merchant through
-- events_merchant_created (merchant_id, created_at): every event names a merchant that exists (0330).
-- Not a BRIN instead: the prune frees the oldest pages, new events fill them, and a block range's
-- (min, max) only widens, so after a few prunes every range matched "older than the retention" and
-- each batch of the prune read the whole table (measured: 2,445 of ~2,860 blocks per batch of 5,000
-- after five prune-and-append rounds over 100,000 events, against 117 with the btree).
DROP INDEX events_created;
