-- A send whose batched transaction the node refused for good (a Bitcoin batch with one output the
-- node will not relay) is queued again to be signed in a transaction of its own: only the send at
-- fault is refused then, and its siblings go out without it.
ALTER TABLE treasury_sends ADD COLUMN sign_alone boolean NOT NULL DEFAULT false;
