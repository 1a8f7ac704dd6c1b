-- Issue 33 item 1: a deposit event's `data` (the deposit as GET /v1/deposits answers it) is rendered
-- by the statement that appends the events (@mp/events appendDepositEvents), from the rows as that
-- transaction has just written them, instead of read out to Node, rendered there, and sent back as
-- JSON for the server to parse again. A catch-up's batch of 2,000 confirmations spent ~120 ms of
-- Node's time and ~70 ms of the database's parsing 2 MB of JSON on that; without its events the
-- confirm-and-credit step took 465 ms instead of 560-620 ms (`pnpm bench indexer`).
-- The shape is toDepositResource's (packages/events/src/deposit-resource.ts), which the API keeps
-- for its reads; packages/events/test/deposit-resource-sql.test.ts checks the two equal on random
-- rows, on both engines.

-- Each function is one expression, without STRICT or a FROM: the planner inlines it into the
-- statement that calls it. (A SQL function it cannot inline starts an executor at every call: a
-- first version of these with FROM clauses took 1.7 s for a batch of 2,000 events.)

-- unitsToDecimal (@mp/core money.ts) with six fractional digits at least: `raw` (an integer) smallest
-- units, `decimals` of them per whole unit, more fractional digits only where they are not zero,
-- never rounded. 12500000, 6 -> '12.500000'; 123, 18 -> '0.000000000000000123'. Null for null.
CREATE FUNCTION units_to_decimal(raw numeric, decimals integer) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN raw < 0 THEN '-' ELSE '' END
         -- The whole part: the digits but the last `decimals`, or 0.
         || CASE WHEN length(abs(raw)::text) > decimals
                 THEN left(abs(raw)::text, length(abs(raw)::text) - decimals) ELSE '0' END
         || '.'
         -- The fraction: the last `decimals` digits (zero-padded), trailing zeros off, padded back to six.
         || rpad(rtrim(right(repeat('0', decimals) || abs(raw)::text, decimals), '0'),
                 greatest(6, length(rtrim(right(repeat('0', decimals) || abs(raw)::text, decimals), '0'))), '0')
$$;

-- iso() of @mp/core: RFC 3339 in UTC with milliseconds, as JavaScript's toISOString writes it.
CREATE FUNCTION iso_time(at timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- toDepositResource: `head_height` is the chain's latest indexed head (chain_cursors), null before
-- the chain has one; confirmations count from it as the API's do. A pending deposit never shows the
-- required count before the indexer has credited it; a confirmed one keeps counting with the chain.
CREATE FUNCTION deposit_resource(d deposits, head_height bigint) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT jsonb_build_object(
    'id', d.id,
    'merchant_id', d.merchant_id,
    'wallet_id', d.wallet_id,
    'customer_id', d.customer_id,
    'chain', d.chain,
    'asset', d.asset,
    'contract_address', d.contract_address,
    'from_address', d.from_address,
    'to_address', d.to_address,
    'tx_hash', d.tx_hash,
    'block_height', d.block_height,
    'confirmations', CASE
                       WHEN d.status = 'PENDING' THEN least(
                         CASE WHEN head_height IS NULL THEN 0 ELSE greatest(0, head_height - d.block_height + 1) END,
                         d.required_confirmations - 1)
                       WHEN d.status = 'CONFIRMED' THEN greatest(
                         CASE WHEN head_height IS NULL THEN 0 ELSE greatest(0, head_height - d.block_height + 1) END,
                         d.required_confirmations)
                       ELSE 0
                     END,
    'required_confirmations', d.required_confirmations,
    'amount', units_to_decimal(d.amount_raw, d.decimals),
    'amount_raw', d.amount_raw::text,
    'amount_usd', units_to_decimal(d.amount_usd_micros, 6),
    'fee_usd', units_to_decimal(d.fee_usd_micros, 6),
    'net_amount_usd', units_to_decimal(d.net_amount_usd_micros, 6),
    'usd_rate', d.usd_rate,
    'status', d.status,
    'awaiting_rate', d.status = 'PENDING' AND d.awaiting_rate_since IS NOT NULL,
    -- A reversed deposit is no longer held: its money left the chain (and merchant_held with it).
    'held', COALESCE(d.hold_status = 'HELD' AND d.status = 'CONFIRMED', false),
    'hold_status', d.hold_status,
    'held_reason', d.held_reason,
    'confirmed_at', iso_time(d.confirmed_at),
    'reversed_at', iso_time(d.reversed_at),
    'created_at', iso_time(d.created_at)
  )
$$;
