-- Events (issue 13): indexes for GET /v1/events filtered by type, and for the retention prune, which
-- deletes by age across merchants (events_merchant_created leads with the merchant).
CREATE INDEX events_merchant_type_created ON events (merchant_id, type, created_at DESC, seq DESC);
CREATE INDEX events_created ON events (created_at);
