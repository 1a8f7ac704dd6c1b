import { randomUUID } from "node:crypto";
import {
  type IntervalPasses,
  type Logger,
  mapBounded,
  silentLogger,
  startIntervalPasses,
  USD_DECIMALS,
} from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import type { RateProvider } from "@mp/providers";
import { createTransfer, feeScheduleOf, insertQuote, type TransferStatus, travelRuleBeneficiary } from "@mp/transfers";
import {
  LIQUIDATION_ADDRESS_COLUMNS,
  type LiquidationAddressRow,
  openAddressBeneficiary,
  openBankDestination,
} from "./address-store.ts";
import { moveDrain } from "./drain-events.ts";
import { DEFAULT_MAX_DRAIN_ATTEMPTS, recordDrainError } from "./drain-failures.ts";
import { priceDrain } from "./drain-pricing.ts";
import { type DrainReturnDeps, oweFailedDrainBack, returnFailedDrains } from "./drain-returns.ts";

/** Drains looked at per pass and step: a backlog drains over a few passes, never one long transaction. */
const BATCH = 100;
/**
 * Drains moved at once, each in its own transaction on its own connection: a backlog (a block
 * confirming many deposits) is no longer one transaction after the other. Kept under the pool's
 * size (10) so the executor and the API still get connections.
 */
export const DEFAULT_DRAIN_CONCURRENCY = 4;
/** The bank rail and the balance's network, as quotes name them. */
const BANK_RAIL = "ACH";
const BALANCE_NETWORK = "LEDGER";

export interface DrainSettings {
  /** The transfers' spread: a drain is priced as a BALANCE quote of the same merchant. */
  spreadBps: number;
  /** The product's own fee (LIQUIDATION_FEE_*), unless the merchant has a liquidation_fee_overrides row. */
  feeFixedUsdMicros: bigint;
  feeBps: number;
  /** TRAVEL_RULE_THRESHOLD_USD: a crypto payout worth this much carries the address's beneficiary. */
  travelRuleThresholdUsdMicros: bigint;
  /** Tries before a drain that cannot be made into a transfer fails retries_exhausted (default 8). */
  maxAttempts?: number | undefined;
}

export interface DrainDeps {
  db: Database;
  keyring: EncryptionKeyring;
  rates: RateProvider;
  settings: DrainSettings;
  logger?: Logger | undefined;
  /** Drains moved at once (default DEFAULT_DRAIN_CONCURRENCY). */
  concurrency?: number | undefined;
  /** Sends failed drains' money to their address's return_address (drain-returns.ts); without it, none is sent. */
  returns?: DrainReturnDeps | undefined;
}

export interface DrainPass {
  submitted: number;
  notPaid: number;
  canceled: number;
  synced: number;
  /** Tries that could not make the drain's transfer (tried again later). */
  retried: number;
  /** Drains moved to failed without a transfer (a final refusal, or retries spent). */
  failed: number;
  /** Failed or not_paid (below_minimum) drains whose money was sent to their address's return_address. */
  refunded: number;
}

interface DrainCandidate {
  id: string;
  destination_asset: string;
}

/**
 * One pass of the drainer (worker role):
 * 1. every drain awaiting funds whose deposit is no longer PENDING, in its own transaction under the
 *    drain's and the deposit's row locks (SKIP LOCKED: another worker, or the indexer, has it now):
 *    a reversed deposit cancels it; a held one is not paid (its money stays held); otherwise it is
 *    priced (drain-pricing.ts) and becomes a BALANCE quote and transfer of the merchant (its USD held
 *    at once) that the transfer executor pays out, or not_paid below the minimum;
 * 2. drains whose transfer ended follow it (COMPLETED -> payment_processed, FAILED or CANCELED ->
 *    failed, owed to the return_address if any; REFUNDED -> refunded);
 * 3. failed and not_paid drains owed to their address's return_address are sent there (drain-returns.ts).
 * The drain's transfer is made in the transaction that moves the drain out of awaiting_funds, so a
 * crash or a second worker never makes two (and the deposit id is unique among drains).
 */
export async function drainOnce(deps: DrainDeps): Promise<DrainPass> {
  const pass: DrainPass = { submitted: 0, notPaid: 0, canceled: 0, synced: 0, retried: 0, failed: 0, refunded: 0 };
  const maxAttempts = deps.settings.maxAttempts ?? DEFAULT_MAX_DRAIN_ATTEMPTS;
  const giveUpOrRetry = async (drainId: string, error: unknown) => {
    const failed = await recordDrainError(deps.db, drainId, error, maxAttempts);
    if (failed) pass.failed += 1;
    else pass.retried += 1;
    deps.logger?.warn(
      { drainId, err: String(error), failed },
      failed ? "drain failed: no transfer could be made" : "drain not submitted; retried with backoff",
    );
  };
  const { rows } = await deps.db.query<DrainCandidate>(
    `SELECT ld.id, a.destination_asset FROM liquidation_drains ld
       JOIN deposits d ON d.id = ld.deposit_id JOIN liquidation_addresses a ON a.id = ld.liquidation_address_id
      WHERE ld.state = 'awaiting_funds' AND d.status <> 'PENDING' AND ld.next_attempt_at <= now()
      ORDER BY ld.next_attempt_at, ld.id LIMIT $1`,
    [BATCH],
  );
  // The destinations' USD rates, asked outside any transaction.
  // A rate missing counts as a try of each drain needing it: never waiting forever.
  const rates = new Map<string, string | Error>([["USD", "1"]]);
  for (const asset of new Set(rows.map((r) => r.destination_asset))) {
    if (rates.has(asset)) continue;
    try {
      rates.set(asset, (await deps.rates.rateFor(asset)).rate);
    } catch (error) {
      rates.set(asset, new Error(`no rate for ${asset}: ${String(error)}`));
    }
  }
  // Several at once, each its own transaction under its row locks (SKIP LOCKED): the guarantees are
  // those of one drain at a time, two of them never touch the same drain or deposit.
  const concurrency = deps.concurrency ?? DEFAULT_DRAIN_CONCURRENCY;
  await mapBounded(rows, concurrency, async (row) => {
    const rate = rates.get(row.destination_asset) ?? new Error(`no rate for ${row.destination_asset}`);
    if (rate instanceof Error) {
      await giveUpOrRetry(row.id, rate);
      return;
    }
    try {
      const outcome = await deps.db.tx((sql) => submitDrain(sql, deps, row.id, rate));
      if (outcome === "payment_submitted") pass.submitted += 1;
      else if (outcome === "not_paid") pass.notPaid += 1;
      else if (outcome === "canceled") pass.canceled += 1;
    } catch (error) {
      await giveUpOrRetry(row.id, error);
    }
  });
  pass.synced = await syncDrains(deps, concurrency);
  if (deps.returns) pass.refunded = await returnFailedDrains(deps.db, deps.returns, BATCH);
  return pass;
}

interface LockedDrain {
  id: string;
  merchant_id: string;
  state: string;
  deposit_status: string;
  hold_status: string | null;
  net_amount_usd_micros: string | null;
}

async function submitDrain(
  sql: Queryable,
  deps: DrainDeps,
  drainId: string,
  destinationUsdRate: string,
): Promise<"payment_submitted" | "not_paid" | "canceled" | null> {
  const { rows } = await sql.query<LockedDrain>(
    `SELECT ld.id, ld.merchant_id, ld.state, d.status AS deposit_status, d.hold_status,
            d.net_amount_usd_micros::text AS net_amount_usd_micros
       FROM liquidation_drains ld JOIN deposits d ON d.id = ld.deposit_id
      WHERE ld.id = $1 FOR UPDATE OF ld, d SKIP LOCKED`,
    [drainId],
  );
  const drain = rows[0];
  if (drain?.state !== "awaiting_funds" || drain.deposit_status === "PENDING") return null;
  const ref = { id: drain.id, merchantId: drain.merchant_id };
  if (drain.deposit_status === "REVERSED") {
    await moveDrain(sql, ref, "canceled");
    return "canceled";
  }
  if (drain.hold_status !== null) {
    await moveDrain(sql, ref, "not_paid", { notPaidReason: "held" });
    return "not_paid";
  }
  const address = (
    await sql.query<LiquidationAddressRow>(
      `SELECT ${LIQUIDATION_ADDRESS_COLUMNS} FROM liquidation_addresses
        WHERE id = (SELECT liquidation_address_id FROM liquidation_drains WHERE id = $1)`,
      [drainId],
    )
  ).rows[0];
  if (!address) throw new Error(`drain ${drainId} has no address`);
  const fee = await feeScheduleOf(
    sql,
    drain.merchant_id,
    { fixedUsdMicros: deps.settings.feeFixedUsdMicros, bps: deps.settings.feeBps },
    "liquidation_fee_overrides",
  );
  const destination = {
    kind: address.destination_kind,
    asset: address.destination_asset,
    network: address.destination_kind === "US_BANK_ACCOUNT" ? BANK_RAIL : address.destination_network,
    decimals: address.destination_decimals,
    usdRate: destinationUsdRate,
  };
  const priced = priceDrain({
    creditedUsdMicros: BigInt(drain.net_amount_usd_micros ?? "0"),
    destination,
    spreadBps: deps.settings.spreadBps,
    fee,
  });
  if (!priced) {
    await moveDrain(sql, ref, "not_paid", { notPaidReason: "below_minimum" });
    await oweFailedDrainBack(sql, drainId);
    return "not_paid";
  }
  // Travel rule: at or above the threshold the address's beneficiary goes on the quote; without one
  // this throws BeneficiaryRequiredError, which fails the drain (drain-failures.ts).
  const beneficiary = travelRuleBeneficiary({
    destinationKind: address.destination_kind,
    destinationUsdMicros: priced.destinationUsdMicros,
    thresholdUsdMicros: deps.settings.travelRuleThresholdUsdMicros,
    beneficiary: openAddressBeneficiary(deps.keyring, address) ?? undefined,
  });
  const quote = await insertQuote(sql, deps.keyring, {
    id: randomUUID(),
    merchantId: drain.merchant_id,
    customerId: address.customer_id,
    source: { method: "BALANCE", asset: "USD", network: BALANCE_NETWORK, decimals: USD_DECIMALS, usdRate: "1" },
    destination: {
      ...destination,
      address: address.destination_address,
      bankAccount: address.destination_kind === "US_BANK_ACCOUNT" ? openBankDestination(deps.keyring, address) : null,
      beneficiary,
    },
    priced,
    spreadBps: deps.settings.spreadBps,
    fee,
    ttlSeconds: 60,
  });
  const transfer = await createTransfer(sql, {
    merchantId: drain.merchant_id,
    quoteId: quote.id,
    fundingTtlSeconds: 3600,
  });
  await moveDrain(sql, ref, "payment_submitted", { transferId: transfer.id });
  return "payment_submitted";
}

/** Where a drain goes when its transfer is in `status` (null: it stays). */
function followTransfer(state: string, status: TransferStatus): ("payment_processed" | "failed" | "refunded")[] {
  if (state === "payment_submitted") {
    if (status === "COMPLETED") return ["payment_processed"];
    if (status === "FAILED" || status === "CANCELED" || status === "EXPIRED") return ["failed"];
    if (status === "REFUNDED") return ["failed", "refunded"];
  }
  if ((state === "payment_processed" || state === "failed") && status === "REFUNDED") return ["refunded"];
  return [];
}

/** Drains whose transfer ended, each moved in its own transaction under its row lock. */
async function syncDrains(deps: DrainDeps, concurrency: number): Promise<number> {
  const { rows } = await deps.db.query<{ id: string }>(
    `SELECT ld.id FROM liquidation_drains ld JOIN transfers t ON t.id = ld.transfer_id
      WHERE (ld.state = 'payment_submitted' AND t.status IN ('COMPLETED', 'FAILED', 'CANCELED', 'EXPIRED', 'REFUNDED'))
         OR (ld.state IN ('payment_processed', 'failed') AND t.status = 'REFUNDED')
      ORDER BY ld.updated_at LIMIT $1`,
    [BATCH],
  );
  let moved = 0;
  await mapBounded(rows, concurrency, async ({ id }) => {
    try {
      // Awaited first, then added: `moved += await` would read `moved` before the others finished.
      const followed = await deps.db.tx(async (sql) => {
        const locked = await sql.query<{ merchant_id: string; state: string; status: TransferStatus }>(
          `SELECT ld.merchant_id, ld.state, t.status FROM liquidation_drains ld JOIN transfers t ON t.id = ld.transfer_id
            WHERE ld.id = $1 FOR UPDATE OF ld SKIP LOCKED`,
          [id],
        );
        const row = locked.rows[0];
        if (!row) return 0;
        const steps = followTransfer(row.state, row.status);
        for (const state of steps) {
          const reason = state === "failed" ? { failureReason: "payout_failed" as const } : {};
          await moveDrain(sql, { id, merchantId: row.merchant_id }, state, reason);
        }
        // A payout that failed released its hold to available: owed to the return_address, if any.
        if (steps.length === 1 && steps[0] === "failed") await oweFailedDrainBack(sql, id);
        return steps.length > 0 ? 1 : 0;
      });
      moved += followed;
    } catch (error) {
      deps.logger?.warn({ drainId: id, err: String(error) }, "drain not brought up to date with its transfer; retried");
    }
  });
  return moved;
}

/** Runs drainOnce every `intervalMs` (default 500 ms) until stopped; passes never overlap. */
export function startDrainer(deps: DrainDeps & { intervalMs?: number }): IntervalPasses {
  return startIntervalPasses({
    pass: () => drainOnce(deps),
    intervalMs: deps.intervalMs ?? 500,
    logger: deps.logger ?? silentLogger(),
    didWork: (done) =>
      done.submitted + done.notPaid + done.canceled + done.synced + done.retried + done.failed + done.refunded > 0,
    worked: "liquidation drains",
    failed: "liquidation drain pass failed; retried",
  });
}
