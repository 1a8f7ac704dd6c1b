-- Issue 33: every credit writes one journal entry and one event, and each kept a unique index on its
-- seq column besides the indexes its reads use. seq is a bigserial: every value comes from its
-- sequence (nothing inserts one: appendEvents and the journal's writers leave it to its default), so
-- the values are unique without an index checking it. No read looks a row up by seq alone: events
-- are listed by (merchant_id, created_at, seq) and (merchant_id, type, created_at, seq), journal
-- entries exported by journal_entries_created (created_at, seq), and those indexes remain.
ALTER TABLE events DROP CONSTRAINT events_seq_key;
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_seq_key;
